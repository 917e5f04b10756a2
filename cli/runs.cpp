// One run and its verdict; cross-device agreement; CUDA/OpenCL pairs on one GPU.
#include "runs.hpp"

#include "commands.hpp"

#include "environment.hpp"
#include "format.hpp"
#include "options.hpp"
#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <new>

namespace duet::cli {

std::vector<std::string> extra_names(std::span<const Run> runs)
{
    std::vector<std::string> names;
    for (const auto& run : runs) {
        for (const auto& [name, value] : run.measurement.extras) {
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                names.push_back(name);
            }
        }
    }
    return names;
}

std::optional<double> extra(const Measurement& measurement, const std::string& name)
{
    for (const auto& [key, value] : measurement.extras) {
        if (key == name) {
            return value;
        }
    }
    return std::nullopt;
}

std::string rate_unit(Measurement::Unit unit)
{
    return unit == Measurement::Unit::flops ? "GFLOP/s" : "GB/s";
}

std::string rate_name(const Measurement& measurement)
{
    return measurement.rate_ms > 0 ? "copy rate" : "kernel rate";
}

std::string common_rate_name(const std::vector<std::string>& names)
{
    const bool shared = !names.empty() && std::all_of(names.begin(), names.end(),
                                                      [&](const std::string& name) { return name == names.front(); });
    return shared ? names.front() : "rate";
}

bool phases_overlap(const Measurement& measurement)
{
    // Phases timed one after another add up to the whole run, up to rounding.
    const double phases = measurement.h2d_ms + measurement.kernel_ms + measurement.d2h_ms;
    return phases > measurement.total_ms * (1 + 1e-9);
}

const std::string overlap_note =
    "Where phases overlap (matmul's schedule=overlapped: one queue per product; bandwidth's direction=both), each "
    "phase's time is summed over the queues it ran on, while total is the wall time of the whole run, first copy in "
    "to last copy out: so a phase, the kernel time included, can exceed the total.";

std::string outcome(const std::string& name, Status status, const std::string& reason)
{
    const bool named = status == Status::failed || status == Status::unsupported;
    return name + ": " + (named ? to_string(status) + ": " : "") + reason;
}

std::vector<ApiPair> api_pairs(const std::vector<Run>& runs)
{
    std::vector<ApiPair> pairs;
    for (const auto& cuda : runs) {
        const auto& gpu = cuda.job.device.properties();
        if (!cuda.measured() || cuda.job.device.backend() != "cuda" || gpu.pci_bus_id.empty()) {
            continue;
        }
        for (const auto& opencl : runs) {
            if (opencl.measured() && opencl.job.device.backend() == "opencl" &&
                opencl.job.device.properties().pci_bus_id == gpu.pci_bus_id &&
                opencl.job.info.name == cuda.job.info.name && opencl.job.variant == cuda.job.variant) {
                pairs.push_back(
                    {cuda.job.info.name, cuda.job.variant, gpu.name, gpu.pci_bus_id, cuda.job.label, opencl.job.label,
                     workload::ratio(opencl.measurement.summary(Phase::kernel),
                                     cuda.measurement.summary(Phase::kernel)),
                     workload::ratio(opencl.measurement.total_summary(), cuda.measurement.total_summary())});
            }
        }
    }
    return pairs;
}

Verdict::Verdict(std::string noun, std::string agreement) : noun_(std::move(noun)), agreement_(std::move(agreement)) {}

void Verdict::add(const std::string& name, Status status, const std::string& reason)
{
    ++total_;
    switch (status) {
    case Status::ok:
        ++ok_;
        return;
    case Status::wrong:
        ++wrong_;
        run_problems_.push_back(outcome(name, status, reason));
        return;
    case Status::unsupported:
        ++unsupported_;
        unsupported_runs_.push_back(outcome(name, status, reason));
        return;
    case Status::failed:
        ++failed_;
        run_problems_.push_back(outcome(name, status, reason));
        return;
    }
}

void Verdict::add_problem(std::string problem)
{
    other_problems_.push_back(std::move(problem));
}

std::vector<std::string> Verdict::problems() const
{
    std::vector<std::string> all = other_problems_;
    if (checked() == 0) {
        // No result was judged, so nothing can be said to agree; the reasons are the answer.
        all.push_back("nothing was checked: " +
                      (total_ == 0 ? "there was no " + noun_ + " to run" : "no " + noun_ + " produced a result"));
        all.insert(all.end(), unsupported_runs_.begin(), unsupported_runs_.end());
    }
    all.insert(all.end(), run_problems_.begin(), run_problems_.end());
    return all;
}

std::string Verdict::summary() const
{
    std::string text = format::count(total_, noun_) + ": " + std::to_string(checked()) + " checked";
    if (wrong_ > 0) {
        text += " (" + std::to_string(wrong_) + " wrong)";
    }
    if (unsupported_ > 0) {
        text += ", " + std::to_string(unsupported_) + " unsupported";
    }
    if (failed_ > 0) {
        text += ", " + std::to_string(failed_) + " failed";
    }
    const auto found = problems();
    if (checked() == 0) {
        return text + ". Nothing was checked.";
    }
    if (found.empty()) {
        return text + ". All " + agreement_ + ".";
    }
    return text + ". " + format::count(found.size(), "problem") + ".";
}

json::Value Verdict::counts_json() const
{
    return json::Object{{"total", total_}, {"checked", checked()},        {"ok", ok_},
                        {"wrong", wrong_}, {"unsupported", unsupported_}, {"failed", failed_}};
}

int exit_code(const Verdict& verdict)
{
    const auto problems = verdict.problems();
    if (problems.empty()) {
        return exit_ok;
    }
    std::cerr << "duet: " << verdict.summary() << "\n";
    for (const auto& problem : problems) {
        std::cerr << "  " << problem << "\n";
    }
    return exit_wrong;
}

Device select_device(const std::string& selector)
{
    const auto& registry = Registry::global();
    try {
        return selector.empty() ? registry.default_device() : registry.select(selector);
    } catch (const NotFound& error) {
        throw UsageError(error.message());
    } catch (const Unavailable& error) {
        throw UsageError(error.message());
    }
}

std::vector<std::pair<Device, std::string>> pick_devices(const std::vector<std::string>& selectors)
{
    const auto& registry = Registry::global();
    std::vector<Device> devices;
    if (selectors.empty()) {
        devices = registry.devices();
        if (devices.empty()) {
            std::string reasons;
            for (const auto& backend : registry.backends()) {
                reasons += "\n  " + backend.name + ": " + (backend.loaded ? "no devices" : backend.reason);
            }
            throw UsageError("no device to run on:" + reasons);
        }
    }
    for (const auto& selector : selectors) {
        devices.push_back(select_device(selector));
    }
    std::vector<std::pair<Device, std::string>> picked;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const auto first = std::find(devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(i), devices[i]);
        if (first != devices.begin() + static_cast<std::ptrdiff_t>(i)) {
            const auto earlier = static_cast<std::size_t>(first - devices.begin());
            throw UsageError("--devices names " + device_title(devices[i]) + " twice ('" + selectors[earlier] +
                             "' and '" + selectors[i] + "'); a device compared with itself proves nothing");
        }
        picked.emplace_back(devices[i], devices[i].selector());
    }
    return picked;
}

workload::Timing timing_from(const Arguments& arguments)
{
    workload::Timing timing;
    timing.warmup = static_cast<unsigned>(arguments.number("warmup", timing.warmup, 0, 1000));
    if (arguments.has("repeats")) {
        timing =
            workload::Timing::exactly(static_cast<unsigned>(arguments.number("repeats", 1, 1, 100000)), timing.warmup);
    }
    return timing;
}

std::string describe_timing(const workload::Timing& timing)
{
    const auto passes = [](unsigned count, const std::string& kind) {
        return std::to_string(count) + " " + kind + (count == 1 ? " pass" : " passes");
    };
    const std::string warmup = passes(timing.warmup, "warm-up") + ", then ";
    if (timing.min_runs == timing.max_runs) {
        return warmup + passes(timing.min_runs, "timed") + " per run";
    }
    return warmup + std::to_string(timing.min_runs) + " to " + std::to_string(timing.max_runs) +
           " timed passes per run, until the median's interval is within ±" + format::figure(100 * timing.precision) +
           "% or " + format::milliseconds(timing.budget_ms) + " ms of passes are spent";
}

json::Value timing_json(const workload::Timing& timing)
{
    return json::Object{{"warmup", timing.warmup},
                        {"min_runs", timing.min_runs},
                        {"max_runs", timing.max_runs},
                        {"budget_ms", timing.budget_ms},
                        {"precision", timing.precision}};
}

namespace {

json::Value summary_json(const workload::Summary& summary)
{
    return json::Object{{"median", summary.median}, {"low", summary.low}, {"high", summary.high},
                        {"min", summary.min},       {"max", summary.max}, {"count", summary.count}};
}

json::Value ratio_json(const workload::Ratio& ratio)
{
    if (!ratio.valid()) {
        return json::Value();
    }
    return json::Object{{"value", ratio.value}, {"low", ratio.low}, {"high", ratio.high}, {"parity", ratio.parity()}};
}

} // namespace

json::Value agreement_json(const workload::Agreement& agreement)
{
    json::Array histogram;
    for (std::size_t bucket = 0; bucket < agreement.histogram.size(); ++bucket) {
        if (agreement.histogram[bucket] > 0) {
            histogram.push_back(
                json::Object{{"ulps", workload::histogram_label(bucket)}, {"count", agreement.histogram[bucket]}});
        }
    }
    const bool nan = agreement.max_ulps == UINT64_MAX;
    return json::Object{{"element_type", std::string(workload::to_string(agreement.type))},
                        {"count", agreement.count},
                        {"differing", agreement.differing},
                        {"beyond_tolerance", agreement.beyond_tolerance},
                        {"max_error", agreement.max_error},
                        {"max_error_at", agreement.where(agreement.max_error_index)},
                        {"max_ulps", nan ? json::Value("NaN") : json::Value(agreement.max_ulps)},
                        {"max_ulps_at", agreement.where(agreement.max_ulps_index)},
                        {"ulp_histogram", std::move(histogram)}};
}

namespace {

json::Value comparison_json(const workload::Comparison& comparison)
{
    if (!comparison.compared()) {
        return json::Value();
    }
    return json::Object{{"with", comparison.with},
                        {"allowed", comparison.allowed},
                        {"agreement", agreement_json(comparison.agreement)}};
}

} // namespace

json::Value run_json(const Run& run)
{
    const auto& m = run.measurement;
    const auto measured = [&](double value) { return run.measured() ? json::Value(value) : json::Value(); };
    const auto statistics = [&](const workload::Summary& summary) {
        return run.measured() ? summary_json(summary) : json::Value();
    };
    json::Object extras;
    for (const auto& [name, value] : m.extras) {
        extras.emplace_back(name, value);
    }
    return json::Object{
        {"workload", run.job.info.name},
        {"variant", run.job.variant},
        {"settings", settings_json(run.job.info, run.job.settings.values())},
        {"device", run.job.label},
        {"selector", run.job.device.selector()},
        {"device_name", run.job.device.properties().name},
        {"api", api_label(run.job.device)},
        {"status", to_string(run.status)},
        {"reason", run.reason},
        {"samples", m.samples.size()},
        {"h2d_ms", measured(m.h2d_ms)},
        {"kernel_ms", measured(m.kernel_ms)},
        {"d2h_ms", measured(m.d2h_ms)},
        {"total_ms", measured(m.total_ms)},
        {"statistics", run.measured() ? json::Value(json::Object{{"h2d_ms", statistics(m.summary(Phase::h2d))},
                                                                 {"kernel_ms", statistics(m.summary(Phase::kernel))},
                                                                 {"d2h_ms", statistics(m.summary(Phase::d2h))},
                                                                 {"total_ms", statistics(m.total_summary())},
                                                                 {"rate_ms", statistics(m.rate_summary())}})
                                      : json::Value()},
        {"reference_ms", measured(m.reference_ms)},
        {"rate", measured(m.rate())},
        {"rate_unit", rate_unit(m.unit)},
        {"work", measured(m.work)},
        {"max_error", measured(m.max_error)},
        {"tolerance", measured(m.tolerance)},
        {"tolerance_reason", m.tolerance_reason},
        {"agreement", m.verified ? agreement_json(m.agreement) : json::Value()},
        {"baseline", run.device.with},
        {"difference", run.device.compared() ? json::Value(run.device.agreement.max_error) : json::Value()},
        {"allowed_difference", run.device.compared() ? json::Value(run.device.allowed) : json::Value()},
        {"device_agreement", comparison_json(run.device)},
        {"variant_agreement", comparison_json(run.variant)},
        {"extras", std::move(extras)}};
}

json::Value pair_json(const ApiPair& pair)
{
    const auto value = [](const workload::Ratio& ratio) {
        return ratio.valid() ? json::Value(ratio.value) : json::Value();
    };
    return json::Object{{"workload", pair.workload},
                        {"variant", pair.variant},
                        {"gpu", pair.gpu},
                        {"pci_bus_id", pair.pci_bus_id},
                        {"cuda", pair.cuda_label},
                        {"opencl", pair.opencl_label},
                        {"kernel_ratio", value(pair.kernel)},
                        {"total_ratio", value(pair.total)},
                        {"kernel", ratio_json(pair.kernel)},
                        {"total", ratio_json(pair.total)},
                        {"verdict", format::ratio_verdict(pair.total)}};
}

} // namespace duet::cli
