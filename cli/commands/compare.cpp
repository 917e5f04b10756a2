// `duet compare <workload|all>`: every selected device and variant, each checked against the CPU
// reference, the devices against each other, and CUDA against OpenCL where one GPU is reached
// through both; a table per workload, and JSON, CSV and an HTML report for tools and people.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/devices.hpp"
#include "model/environment.hpp"
#include "model/runs.hpp"
#include "model/workloads.hpp"
#include "render/csv.hpp"
#include "render/describe.hpp"
#include "render/environment.hpp"
#include "render/format.hpp"
#include "render/progress.hpp"
#include "render/records.hpp"
#include "render/report.hpp"
#include "render/table.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <set>
#include <span>
#include <sstream>

namespace duet::cli {

namespace {

struct Plan {
    std::shared_ptr<const Workload> workload;
    WorkloadInfo info;
    Settings settings;
    std::vector<std::string> variants;
};

bool has_parameter(const WorkloadInfo& info, const std::string& name)
{
    return std::any_of(info.parameters.begin(), info.parameters.end(),
                       [&](const WorkloadParameter& parameter) { return parameter.name == name; });
}

/// For one workload, --set and --variants must fit it. For "all", each applies to the workloads
/// that have that parameter or variant, and one that none of them has is an error listing what
/// they have.
std::vector<Plan> plan(const std::string& name, const std::map<std::string, std::string>& overrides,
                       const std::vector<std::string>& wanted_variants)
{
    std::vector<Plan> plans;
    if (name != "all") {
        const auto workload = find_workload(name);
        auto info = workload->info();
        auto settings = make_settings(info, overrides);
        auto variants = pick_variants(info, wanted_variants);
        plans.push_back({workload, std::move(info), std::move(settings), std::move(variants)});
        return plans;
    }
    std::set<std::string> used_parameters, used_variants;
    std::string parameter_list, variant_list;
    for (const auto& workload : all_workloads()) {
        auto info = workload->info();
        std::map<std::string, std::string> own;
        for (const auto& [parameter, value] : overrides) {
            if (has_parameter(info, parameter)) {
                own.emplace(parameter, value);
                used_parameters.insert(parameter);
            }
        }
        std::vector<std::string> variants;
        for (const auto& variant : info.variants) {
            if (wanted_variants.empty() ||
                std::find(wanted_variants.begin(), wanted_variants.end(), variant) != wanted_variants.end()) {
                variants.push_back(variant);
                used_variants.insert(variant);
            }
        }
        parameter_list += "\n  " + info.name + ":";
        for (const auto& parameter : info.parameters) {
            parameter_list += " " + parameter.name;
        }
        variant_list += "\n  " + info.name + ":";
        for (const auto& variant : info.variants) {
            variant_list += " " + variant;
        }
        auto settings = make_settings(info, own);
        if (!variants.empty()) {
            plans.push_back({workload, std::move(info), std::move(settings), std::move(variants)});
        }
    }
    for (const auto& [parameter, value] : overrides) {
        if (!used_parameters.contains(parameter)) {
            throw UsageError("no workload has a parameter '" + parameter + "'; their parameters:" + parameter_list);
        }
    }
    for (const auto& variant : wanted_variants) {
        if (!used_variants.contains(variant)) {
            throw UsageError("no workload has a variant '" + variant + "'; their variants:" + variant_list);
        }
    }
    return plans;
}

void print_workload(const std::vector<Run>& runs, std::size_t first)
{
    const auto& info = runs[first].job.info;
    std::string unit;
    for (std::size_t i = first; i < runs.size() && unit.empty(); ++i) {
        if (runs[i].measured()) {
            unit = rate_unit(runs[i].measurement.unit);
        }
    }
    std::cout << "\n" << info.name << "  " << describe_settings(info, runs[first].job.settings.values()) << "\n";
    using Align = Table::Align;
    Table table({{"device"},
                 {"API"},
                 {"variant"},
                 {"runs", Align::right},
                 {"h→d ms", Align::right},
                 {"kernel ms", Align::right},
                 {"d→h ms", Align::right},
                 {"total ms", Align::right},
                 {unit.empty() ? "rate" : unit, Align::right},
                 {"max error", Align::right},
                 {"ULPs", Align::right},
                 {"device Δ", Align::right},
                 {"variant Δ", Align::right},
                 {"agrees"}});
    const auto difference = [](const workload::Comparison& comparison, const char* base) {
        return comparison.compared() ? format::error(comparison.agreement.max_error) : std::string(base);
    };
    for (std::size_t i = first; i < runs.size(); ++i) {
        const auto& run = runs[i];
        const auto& m = run.measurement;
        std::vector<std::string> cells{truncate(run.job.label + " " + run.job.device.properties().name, 40),
                                       api_label(run.job.device), run.job.variant};
        if (!run.measured()) {
            table.add_row_with_text(std::move(cells), to_string(run.status) + ": " + headline(run.reason, 120));
            continue;
        }
        const std::string rate = format::rate(m.rate()) + (rate_unit(m.unit) == unit ? "" : " " + rate_unit(m.unit));
        const auto with_spread = [](double median, const workload::Summary& summary) {
            const std::string spread = format::spread(summary);
            return format::milliseconds(median) + (spread.empty() ? "" : " " + spread);
        };
        cells.insert(cells.end(), {std::to_string(m.samples.size()), format::milliseconds(m.h2d_ms),
                                   with_spread(m.kernel_ms, m.summary(Phase::kernel)), format::milliseconds(m.d2h_ms),
                                   with_spread(m.total_ms, m.total_summary()), rate, format::error(m.max_error),
                                   m.agreement.max_ulps == UINT64_MAX ? "NaN" : std::to_string(m.agreement.max_ulps),
                                   difference(run.device, "base"), difference(run.variant, "base"),
                                   run.status == Status::ok ? "yes" : "NO"});
        table.add_row(std::move(cells));
    }
    table.print(std::cout);

    const std::span<const Run> workload_runs = std::span(runs).subspan(first);
    const auto names = extra_names(workload_runs);
    if (names.empty()) {
        return;
    }
    std::cout << "\n  " << info.name << "'s own figures\n";
    std::vector<Table::Column> columns{{"device"}, {"variant"}};
    for (const auto& name : names) {
        columns.push_back({name, Align::right});
    }
    Table extras(std::move(columns));
    for (const auto& run : workload_runs) {
        if (run.measurement.extras.empty()) {
            continue;
        }
        std::vector<std::string> cells{run.job.label, run.job.variant};
        for (const auto& name : names) {
            const auto value = extra(run.measurement, name);
            cells.push_back(value ? format::figure(*value) : "-");
        }
        extras.add_row(std::move(cells));
    }
    extras.print(std::cout);
}

void print_pairs(const std::vector<ApiPair>& pairs)
{
    std::cout << "\nOne GPU through both APIs: OpenCL time / CUDA time, medians, [interval from the quartiles];\n"
                 "parity where the interval holds 1 (above 1: OpenCL is slower)\n";
    Table table({{"GPU"},
                 {"PCI bus id"},
                 {"workload"},
                 {"variant"},
                 {"CUDA"},
                 {"OpenCL"},
                 {"kernel", Table::Align::right},
                 {""},
                 {"total", Table::Align::right},
                 {""}});
    for (const auto& pair : pairs) {
        table.add_row({pair.gpu, pair.pci_bus_id, pair.workload, pair.variant, pair.cuda_label, pair.opencl_label,
                       format::ratio(pair.kernel), format::ratio_verdict(pair.kernel), format::ratio(pair.total),
                       format::ratio_verdict(pair.total)});
    }
    table.print(std::cout);
}

std::string csv_text(const Comparison& comparison)
{
    std::ostringstream out;
    const auto& build = build_info();
    csv::write_row(
        out,
        {"workload",       "variant",       "settings",        "device",         "device_name",  "api",
         "driver_version", "api_version",   "backend_version", "status",         "reason",       "samples",
         "h2d_ms",         "kernel_ms",     "kernel_ms_low",   "kernel_ms_high", "d2h_ms",       "total_ms",
         "total_ms_low",   "total_ms_high", "reference_ms",    "rate",           "rate_unit",    "max_error",
         "max_ulps",       "differing",     "tolerance",       "baseline",       "difference",   "allowed_difference",
         "seed",           "duet_version",  "duet_commit",     "compiler",       "cuda_compiler"});
    for (const auto& run : comparison.runs) {
        const auto& m = run.measurement;
        const auto& p = run.job.device.properties();
        const auto number = [&](double value) { return run.measured() ? format::exact(value) : std::string(); };
        const bool compared = run.device.compared();
        const auto kernel = m.summary(Phase::kernel);
        const auto total = m.total_summary();
        const bool checked = run.measured() && m.verified;
        csv::write_row(out, {run.job.info.name,
                             run.job.variant,
                             describe_settings(run.job.info, run.job.settings.values()),
                             run.job.label,
                             p.name,
                             api_label(run.job.device),
                             p.driver_version,
                             p.api_version,
                             backend_version(run.job.device),
                             to_string(run.status),
                             run.reason,
                             run.measured() ? std::to_string(m.samples.size()) : "",
                             number(m.h2d_ms),
                             number(m.kernel_ms),
                             number(kernel.low),
                             number(kernel.high),
                             number(m.d2h_ms),
                             number(m.total_ms),
                             number(total.low),
                             number(total.high),
                             number(m.reference_ms),
                             number(m.rate()),
                             rate_unit(m.unit),
                             number(m.max_error),
                             checked && m.agreement.max_ulps != UINT64_MAX ? std::to_string(m.agreement.max_ulps)
                             : checked                                     ? "NaN"
                                                                           : "",
                             checked ? std::to_string(m.agreement.differing) : "",
                             number(m.tolerance),
                             run.device.with,
                             compared ? format::exact(run.device.agreement.max_error) : "",
                             compared ? format::exact(run.device.allowed) : "",
                             std::to_string(comparison.seed),
                             build.version,
                             build.commit,
                             build.compiler,
                             build.cuda_compiler});
    }
    return out.str();
}

json::Value comparison_json(const Comparison& comparison)
{
    json::Array runs, pairs;
    for (const auto& run : comparison.runs) {
        runs.push_back(run_json(run));
    }
    for (const auto& pair : comparison.pairs) {
        pairs.push_back(pair_json(pair));
    }
    const auto problems = comparison.verdict.problems();
    return json::Object{{"schema", "duet.compare/1"},
                        {"environment", environment_json(Registry::global())},
                        {"seed", comparison.seed},
                        {"warmup", comparison.timing.warmup},
                        {"timing", timing_json(comparison.timing)},
                        {"agree", problems.empty()},
                        {"counts", counts_json(comparison.verdict)},
                        {"problems", json::Array(problems.begin(), problems.end())},
                        {"runs", std::move(runs)},
                        {"pairs", std::move(pairs)}};
}

} // namespace

int compare_command(const Arguments& arguments)
{
    const std::string name = arguments.positional().at(0);
    const auto plans = plan(name, arguments.assignments("set"), arguments.list("variants"));
    const auto devices = pick_devices(arguments.list("devices"));
    Comparison comparison;
    comparison.seed = arguments.number("seed", 1, 0, UINT64_MAX);
    comparison.timing = timing_from(arguments);
    auto outputs = Outputs::open(arguments);
    if (name == "all") {
        // A workload that did not load is one that `all` did not compare.
        for (const auto& plugin : WorkloadRegistry::global().plugins()) {
            if (!plugin.loaded) {
                comparison.verdict.add_problem("workload plugin '" + plugin.name + "' did not load (" +
                                               plugin.path.string() + "): " + plugin.reason);
            }
        }
    }

    std::size_t total = 0;
    for (const auto& plan : plans) {
        total += plan.variants.size() * devices.size();
    }
    if (outputs.table) {
        std::cout << "duet compare: " << format::count(plans.size(), "workload") << " on "
                  << format::count(devices.size(), "device") << ", " << format::count(total, "run") << "; seed "
                  << comparison.seed << "; " << describe_timing(comparison.timing) << "\n";
        for (const auto& backend : Registry::global().backends()) {
            if (!backend.loaded) {
                std::cout << "note: " << backend.name << " unavailable: " << backend.reason << "\n";
            }
        }
    }

    Progress progress(total);
    for (const auto& plan : plans) {
        const std::size_t first = comparison.runs.size();
        for (const auto& variant : plan.variants) {
            for (const auto& [device, label] : devices) {
                const Job job{plan.workload, plan.info, variant,         plan.settings,
                              device,        label,     comparison.seed, comparison.timing};
                progress.start(job_name(job));
                comparison.runs.push_back(execute(job, true));
            }
        }
        cross_check(comparison.runs.begin() + static_cast<std::ptrdiff_t>(first), comparison.runs.end());
        progress.clear();
        if (outputs.table) {
            print_workload(comparison.runs, first);
        }
    }
    comparison.pairs = api_pairs(comparison.runs);
    for (const auto& run : comparison.runs) {
        comparison.verdict.add(job_name(run.job), run.status, run.reason);
    }

    if (outputs.table) {
        if (!comparison.pairs.empty()) {
            print_pairs(comparison.pairs);
        }
        std::cout << "\nms: medians of the timed passes, ± half their interquartile range. max error: against the "
                     "CPU reference;\nULPs: the largest distance from it in units in the last place; device Δ: against "
                     "the base device of the\nsame variant; variant Δ: against the base variant on the same device "
                     "(errors relative, absolute below 1)\n"
                  << verdict_summary(comparison.verdict)
                  << (comparison.verdict.ok() ? "" : " Details on standard error.") << "\n";
    }
    const int code = exit_code(comparison.verdict);
    outputs.write([&] { return json::document(comparison_json(comparison)); }, [&] { return csv_text(comparison); },
                  [&] { return compare_report(comparison); });
    return code;
}

} // namespace duet::cli
