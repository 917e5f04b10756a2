// `duet bench <workload> --sweep k=v1,v2,...`: the cross product of the swept values on every
// selected device and variant; warm-up runs, repeats (the first verified), median and spread per
// point; a table, CSV and JSON that record the environment, and an HTML report with charts.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/devices.hpp"
#include "model/sweep.hpp"
#include "model/workloads.hpp"
#include "render/csv.hpp"
#include "render/describe.hpp"
#include "render/progress.hpp"
#include "render/records.hpp"
#include "render/report.hpp"
#include "render/tables.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>

namespace duet::cli {

namespace {

std::vector<Sweep> parse_sweeps(const Arguments& arguments, const WorkloadInfo& info,
                                const std::map<std::string, std::string>& fixed)
{
    std::vector<Sweep> sweeps;
    for (const auto& [parameter, text] : arguments.ordered_assignments("sweep")) {
        if (std::none_of(info.parameters.begin(), info.parameters.end(),
                         [&](const WorkloadParameter& p) { return p.name == parameter; })) {
            std::string known;
            for (const auto& p : info.parameters) {
                known += (known.empty() ? "" : ", ") + p.name;
            }
            throw UsageError("--sweep: workload '" + info.name + "' has no parameter '" + parameter +
                             "'; its parameters: " + known);
        }
        if (fixed.contains(parameter)) {
            throw UsageError("'" + parameter + "' is both swept and --set; give it one or the other");
        }
        Sweep sweep{parameter, {}};
        for (const auto& item : list_items("--sweep " + parameter, text)) {
            for (auto& value : expand_range(parameter, item)) {
                sweep.values.push_back(std::move(value));
            }
        }
        sweeps.push_back(std::move(sweep));
    }
    return sweeps;
}

/// Every point, settings first, then variant, then device, with a progress bar; the points of one
/// setting cross-checked as compare's runs are (the devices of a variant, the variants on a
/// device); a point whose settings break a rule between parameters is skipped with the rule.
void measure_points(Benchmark& bench, const std::shared_ptr<const Workload>& workload,
                    const std::vector<Settings>& settings, const std::vector<std::string>& variants,
                    const std::vector<std::pair<Device, std::string>>& devices)
{
    Progress progress(settings.size() * variants.size() * devices.size());
    // A variant is measured once for the values of the parameters that apply to it: a point that
    // differs only in another variant's parameter takes that run again rather than repeating it.
    std::map<std::string, Run> measured;
    for (const auto& point_settings : settings) {
        std::vector<Run> runs;
        for (const auto& variant : variants) {
            std::string values_for_variant = variant;
            for (const auto& parameter : bench.info.parameters) {
                if (applies_to(parameter.variants, variant)) {
                    values_for_variant += "\n" + parameter.name + "=" + point_settings.text(parameter.name);
                }
            }
            const auto broken = point_settings.broken_rule(bench.info, variant); // the same on every device
            for (const auto& [device, label] : devices) {
                const Job job{workload,
                              bench.info,
                              variant,
                              point_settings,
                              device,
                              label,
                              bench.seed,
                              workload::Timing::exactly(bench.repeats, bench.warmup),
                              build_flags_for(bench.build_flags, device)};
                if (broken) {
                    runs.push_back({job, Status::unsupported, "skipped: " + *broken, {}, {}, {}});
                    continue;
                }
                const std::string key = values_for_variant + "\n" + label;
                if (const auto earlier = measured.find(key); earlier != measured.end()) {
                    Run again = earlier->second;
                    again.job = job;
                    runs.push_back(std::move(again));
                    progress.start(describe_settings(bench.info, point_settings.values()) + " " + variant + " on " +
                                   label + ": measured already");
                    continue;
                }
                progress.start(describe_settings(bench.info, point_settings.values()) + " " + variant + " on " + label);
                runs.push_back(execute(job, true));
                measured.emplace(key, runs.back());
            }
        }
        cross_check(runs.begin(), runs.end());
        for (const auto& run : runs) {
            bench.points.push_back(point_of(run));
        }
    }
    progress.clear();
}

} // namespace

int bench_command(const Arguments& arguments)
{
    const auto workload = find_workload(arguments.positional().at(0));
    Benchmark bench;
    bench.info = workload->info();
    bench.fixed = arguments.assignments("set");
    bench.sweeps = parse_sweeps(arguments, bench.info, bench.fixed);
    bench.warmup = static_cast<unsigned>(arguments.number("warmup", 1, 0, 1000));
    bench.repeats = static_cast<unsigned>(arguments.number("repeats", 5, 1, 100000));
    bench.seed = arguments.number("seed", 1, 0, UINT64_MAX);
    bench.build_flags = build_flags_from(arguments);
    const auto variants = pick_variants(bench.info, arguments.list("variants"));
    const auto devices = pick_devices(arguments.list("devices"));
    count_points(bench.sweeps, variants.size(), devices.size()); // refuses too many before listing them
    // Every combination is checked before the first run, so a bad value never ends a long sweep;
    // one that breaks a rule between parameters is a point skipped, with the rule.
    std::vector<Settings> settings;
    for (const auto& values : combinations(bench.sweeps, bench.fixed)) {
        try {
            settings.push_back(Settings::without_rules(bench.info, values));
        } catch (const InvalidArgument& error) {
            throw UsageError(error.message());
        }
    }
    auto outputs = Outputs::open(arguments);
    if (outputs.table && !bench.build_flags.empty()) {
        std::cout << describe_build_flags(bench.build_flags) << "\n";
    }

    measure_points(bench, workload, settings, variants, devices);
    for (const auto& point : bench.points) {
        bench.verdict.add(bench.info.name + "/" + point.job.variant + " " +
                              describe_settings(bench.info, point.job.settings.values()) + " on " + point.job.label,
                          point.status, point.reason, bench.info.has_reference ? bench.info.reference : "",
                          point.cross_checked);
    }

    if (outputs.table) {
        print_bench_table(bench);
        std::cout << "\n"
                  << verdict_summary(bench.verdict) << (bench.verdict.ok() ? "" : " Details on standard error.")
                  << "\n";
    }
    const int code = exit_code(bench.verdict);
    outputs.write([&] { return json::document(bench_json(bench)); }, [&] { return bench_csv(bench); },
                  [&] { return bench_report(bench); });
    return code;
}

} // namespace duet::cli
