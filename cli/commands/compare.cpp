// `duet compare <workload|all>`: every selected device and variant, each checked against the CPU
// reference, the devices against each other, and CUDA against OpenCL where one GPU is reached
// through both; a table per workload, and JSON, CSV and an HTML report for tools and people.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/devices.hpp"
#include "model/ranks.hpp"
#include "model/runs.hpp"
#include "model/workloads.hpp"
#include "render/csv.hpp"
#include "render/describe.hpp"
#include "render/format.hpp"
#include "render/progress.hpp"
#include "render/records.hpp"
#include "render/report.hpp"
#include "render/tables.hpp"

#include <duet/workload/turns.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <set>

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

/// What compare is about to do: how many workloads, devices and runs, the seed, the timing rule,
/// and each backend that is unavailable.
void print_header(std::size_t workloads, std::size_t devices, std::size_t total, const Comparison& comparison,
                  const std::map<std::string, std::string>& build_flags)
{
    std::cout << "duet compare: " << format::count(workloads, "workload") << " on " << format::count(devices, "device")
              << ", " << format::count(total, "run") << "; seed " << comparison.seed << "; "
              << describe_timing(comparison.timing, comparison.in_turns) << "\n";
    print_unavailable_backends(std::cout);
    if (!build_flags.empty()) {
        std::cout << describe_build_flags(build_flags) << "\n";
    }
}

/// Every plan's variants on every device, the devices of a variant taking their passes in turn
/// (execute_in_turns) so that drift falls on all of them; the devices and variants of a workload
/// cross-checked once all its runs are in, and its table printed then when `table`.
void run_plans(const std::vector<Plan>& plans, const std::vector<std::pair<Device, std::string>>& devices,
               const std::map<std::string, std::string>& build_flags, std::size_t total, Comparison& comparison,
               bool table)
{
    Progress progress(total);
    for (const auto& plan : plans) {
        const std::size_t first = comparison.runs.size();
        for (const auto& variant : plan.variants) {
            std::vector<Job> jobs;
            for (const auto& [device, label] : devices) {
                jobs.push_back({plan.workload, plan.info, variant, plan.settings, device, label, comparison.seed,
                                comparison.timing, build_flags_for(build_flags, device)});
            }
            std::optional<std::string> apart;
            if (ranks() != nullptr) {
                // Under mpirun the devices run one after another: each run's exchanges and agreements
                // are collectives that every rank must reach in the same order, one thread at a time.
                for (const auto& job : jobs) {
                    progress.start(job_name(job));
                    comparison.runs.push_back(workload::execute(job, true));
                }
            } else {
                for (auto& run : workload::execute_in_turns(
                         jobs, true, [&](const Job& job) { progress.start(job_name(job)); }, &apart)) {
                    comparison.runs.push_back(std::move(run));
                }
            }
            if (apart) {
                comparison.apart.push_back(plan.info.name + "/" + variant + ": " + *apart);
                if (table) {
                    progress.clear();
                    std::cout << "note: " << plan.info.name << "/" << variant
                              << ": the devices ran one after another, not in turns: " << *apart << "\n";
                }
            }
        }
        cross_check(comparison.runs.begin() + static_cast<std::ptrdiff_t>(first), comparison.runs.end());
        progress.clear();
        if (table) {
            print_workload_table(comparison.runs, first);
        }
    }
}

} // namespace

int compare_command(const Arguments& arguments)
{
    const std::string name = arguments.positional().at(0);
    const auto plans = plan(name, arguments.assignments("set"), arguments.list("variants"));
    const auto devices = pick_devices(arguments.list("devices"));
    const auto build_flags = build_flags_from(arguments);
    Comparison comparison;
    comparison.seed = arguments.number("seed", 1, 0, UINT64_MAX);
    comparison.timing = timing_from(arguments);
    comparison.in_turns = devices.size() > 1 && ranks() == nullptr;
    auto outputs = Outputs::open(arguments);
    if (name == "all") {
        add_unloaded_plugins(comparison.verdict); // a workload that did not load is one `all` did not compare
    }

    std::size_t total = 0;
    for (const auto& plan : plans) {
        total += plan.variants.size() * devices.size();
    }
    if (outputs.table) {
        print_header(plans.size(), devices.size(), total, comparison, build_flags);
    }
    run_plans(plans, devices, build_flags, total, comparison, outputs.table);
    comparison.pairs = api_pairs(comparison.runs);
    for (const auto& run : comparison.runs) {
        comparison.verdict.add(job_name(run.job), run.status, run.reason,
                               run.job.info.has_reference ? run.job.info.reference : "", run.cross_checked());
    }

    if (outputs.table) {
        if (!comparison.pairs.empty()) {
            print_pairs_table(comparison.pairs);
        }
        // What the runs' max error was measured against, as their verdicts name it.
        std::string reference;
        for (const auto& run : comparison.runs) {
            if (run.job.info.has_reference) {
                reference = reference.empty() || reference == run.job.info.reference ? run.job.info.reference
                                                                                     : "their references";
            }
        }
        std::cout << "\nms: medians of the timed passes, ± half their interquartile range. max error: "
                  << (reference.empty() ? "none, no reference ran" : "against " + reference)
                  << ";\nULPs: the largest error relative to max(|reference|, 1) in epsilons of the type, as a "
                     "tolerance in ULPs counts it;\nof peak: the rate over the device's peak memory bandwidth or FMA "
                     "rate (a CUDA twin's for its OpenCL view; - where\nunknown); device Δ: against the base device "
                     "of the same variant; variant Δ: against the base variant on the\nsame device (errors "
                     "relative, absolute below 1)\n"
                  << verdict_summary(comparison.verdict)
                  << (comparison.verdict.ok() ? "" : " Details on standard error.") << "\n";
    }
    const int code = exit_code(comparison.verdict);
    outputs.write([&] { return json::document(comparison_json(comparison)); },
                  [&] { return comparison_csv(comparison); }, [&] { return compare_report(comparison); });
    return code;
}

} // namespace duet::cli
