// The model's summaries in words, with numbers as format.hpp writes them.
#include "render/describe.hpp"

#include "render/format.hpp"

namespace duet::cli {

std::string verdict_summary(const Verdict& verdict)
{
    const auto counts = verdict.counts();
    std::string text = format::count(counts.total, verdict.noun()) + ": " + std::to_string(counts.checked) + " checked";
    if (counts.wrong > 0) {
        text += " (" + std::to_string(counts.wrong) + " wrong)";
    }
    if (counts.unsupported > 0) {
        text += ", " + std::to_string(counts.unsupported) + " unsupported";
    }
    if (counts.failed > 0) {
        text += ", " + std::to_string(counts.failed) + " failed";
    }
    const auto found = verdict.problems();
    if (counts.checked == 0) {
        return text + ". Nothing was checked.";
    }
    if (found.empty()) {
        // Runs of a workload without a reference agreed with each other, and with nothing else.
        if (counts.unreferenced == counts.ok) {
            return text + ". All agree with each other; no CPU reference checked their values (the workload " +
                   "has none).";
        }
        // "With each other" only where runs were compared with each other.
        const std::string agreement =
            "agree with " + verdict.reference() + (counts.cross_checked > 0 ? " and with each other" : "");
        if (counts.unreferenced > 0) {
            return text + ". All " + agreement + ", but " + std::to_string(counts.unreferenced) +
                   " agree with each other alone: their workload has no reference.";
        }
        return text + ". All " + agreement + ".";
    }
    return text + ". " + format::count(found.size(), "problem") + ".";
}

std::string describe_timing(const workload::Timing& timing, bool in_turns)
{
    const auto passes = [](unsigned count, const std::string& kind) {
        return std::to_string(count) + " " + kind + (count == 1 ? " pass" : " passes");
    };
    const std::string warmup = passes(timing.warmup, "warm-up") + ", then ";
    const std::string turns = in_turns ? "; the devices of a variant take their passes in turn, one pass each, so that "
                                         "host-side drift falls on all of them"
                                       : "";
    if (timing.min_runs == timing.max_runs) {
        return warmup + passes(timing.min_runs, "timed") + " per run" + turns;
    }
    return warmup + std::to_string(timing.min_runs) + " to " + std::to_string(timing.max_runs) +
           " timed passes per run, until the median's interval is within ±" + format::figure(100 * timing.precision) +
           "% or " + format::milliseconds(timing.budget_ms) + " ms of its own passes are spent" + turns;
}

std::string accepted_values(const WorkloadParameter& parameter)
{
    switch (parameter.type) {
    case WorkloadParameter::Type::integer:
        return "integer " + std::to_string(integer_min(parameter)) + ".." + std::to_string(integer_max(parameter));
    case WorkloadParameter::Type::real:
        return "real " + format::exact(parameter.min) + ".." + format::exact(parameter.max);
    case WorkloadParameter::Type::choice: {
        std::string text = "one of ";
        for (std::size_t i = 0; i < parameter.choices.size(); ++i) {
            text += (i == 0 ? "" : ", ") + parameter.choices[i];
        }
        return text;
    }
    }
    return "";
}

std::string describe_build_flags(const std::map<std::string, std::string>& flags)
{
    std::string text;
    for (const auto& [api, given] : flags) {
        // Where a program ships a fatbin, the CUDA backend would load it; options need its source.
        text += (text.empty() ? "build options after each program's own: " : "; ") + api + ": " + given +
                (api == "cuda" ? " (NVRTC: a fatbin takes no options)" : "");
    }
    return text;
}

void print_unavailable_backends(std::ostream& out)
{
    for (const auto& backend : Registry::global().backends()) {
        if (!backend.loaded) {
            out << "note: " << backend.name << " unavailable: " << backend.reason << "\n";
        }
    }
}

} // namespace duet::cli
