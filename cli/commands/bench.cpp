// `duet bench <workload> --sweep k=v1,v2,...`: the cross product of the swept values on every
// selected device and variant; warm-up runs, repeats (the first verified), median and spread per
// point; a table, CSV and JSON that record the environment, and an HTML report with charts.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/devices.hpp"
#include "model/environment.hpp"
#include "model/statistics.hpp"
#include "model/sweep.hpp"
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
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>

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

std::string spread(const std::vector<double>& samples)
{
    const auto range = relative_range(samples);
    return range ? format::percent(*range) : "-";
}

void print_table(const Benchmark& bench)
{
    std::string unit = "rate";
    for (const auto& point : bench.points) {
        if (point.measured()) {
            unit = rate_unit(point.unit);
            break;
        }
    }
    std::cout << "\n"
              << bench.info.name << ": median of " << format::count(bench.repeats, "repeat") << " after "
              << format::count(bench.warmup, "warm-up run") << ", each column's median taken on its own (a row's "
              << "figures may come from different repeats); spread = (max - min) / median of the kernel time\n";
    using Align = Table::Align;
    std::vector<Table::Column> columns{{"variant"}, {"device"}};
    for (const auto& sweep : bench.sweeps) {
        const auto parameter = std::find_if(bench.info.parameters.begin(), bench.info.parameters.end(),
                                            [&](const WorkloadParameter& p) { return p.name == sweep.parameter; });
        columns.push_back(
            {sweep.parameter, parameter->type == WorkloadParameter::Type::choice ? Align::left : Align::right});
    }
    for (const char* header : {"kernel ms", "spread", "total ms"}) {
        columns.push_back({header, Align::right});
    }
    columns.push_back({unit, Align::right});
    columns.push_back({"max error", Align::right});
    columns.push_back({"status"});
    Table table(std::move(columns));
    for (const auto& point : bench.points) {
        std::vector<std::string> cells{point.job.variant, point.job.label};
        for (const auto& sweep : bench.sweeps) {
            cells.push_back(point.job.settings.values().at(sweep.parameter));
        }
        if (point.status == Status::unsupported || point.status == Status::failed) {
            table.add_row_with_text(std::move(cells), to_string(point.status) + ": " + headline(point.reason, 120));
            continue;
        }
        cells.insert(cells.end(),
                     {format::milliseconds(workload::summarize(point.kernel_ms).median), spread(point.kernel_ms),
                      format::milliseconds(workload::summarize(point.total_ms).median),
                      format::rate(workload::summarize(point.rate).median), format::error(point.max_error),
                      point.status == Status::ok ? "ok" : "WRONG"});
        table.add_row(std::move(cells));
    }
    table.print(std::cout);
    if (std::any_of(bench.points.begin(), bench.points.end(), [](const Point& point) { return point.overlapped; })) {
        std::cout << "\n" << overlap_note << "\n";
    }
}

json::Value stats_json(const std::vector<double>& samples)
{
    if (samples.empty()) {
        return {};
    }
    const workload::Summary stats = workload::summarize(samples);
    return json::Object{
        {"median", stats.median}, {"min", stats.min}, {"max", stats.max}, {"q1", stats.q1}, {"q3", stats.q3}};
}

json::Value point_json(const Point& point)
{
    json::Object extras, extra_samples;
    for (const auto& [name, samples] : point.extras) {
        extras.emplace_back(name, stats_json(samples));
        extra_samples.emplace_back(name, json::Array(samples.begin(), samples.end()));
    }
    const auto measured = [&](double value) { return point.measured() ? json::Value(value) : json::Value(); };
    return json::Object{
        {"variant", point.job.variant},
        {"device", point.job.label},
        {"selector", point.job.device.selector()},
        {"device_name", point.job.device.properties().name},
        {"api", api_label(point.job.device)},
        {"settings", settings_json(point.job.info, point.job.settings.values())},
        {"status", to_string(point.status)},
        {"reason", point.reason},
        {"max_error", measured(point.max_error)},
        {"tolerance", measured(point.tolerance)},
        {"rate_unit", rate_unit(point.unit)},
        {"h2d_ms", stats_json(point.h2d_ms)},
        {"kernel_ms", stats_json(point.kernel_ms)},
        {"d2h_ms", stats_json(point.d2h_ms)},
        {"total_ms", stats_json(point.total_ms)},
        {"rate", stats_json(point.rate)},
        {"extras", std::move(extras)},
        {"samples", json::Object{{"kernel_ms", json::Array(point.kernel_ms.begin(), point.kernel_ms.end())},
                                 {"total_ms", json::Array(point.total_ms.begin(), point.total_ms.end())},
                                 {"rate", json::Array(point.rate.begin(), point.rate.end())},
                                 {"extras", std::move(extra_samples)}}}};
}

json::Value bench_json(const Benchmark& bench)
{
    json::Array sweeps, points;
    for (const auto& sweep : bench.sweeps) {
        sweeps.push_back(json::Object{{"parameter", sweep.parameter},
                                      {"values", json::Array(sweep.values.begin(), sweep.values.end())}});
    }
    for (const auto& point : bench.points) {
        points.push_back(point_json(point));
    }
    const auto problems = bench.verdict.problems();
    return json::Object{{"schema", "duet.bench/1"},
                        {"environment", environment_json(Registry::global())},
                        {"workload", workload_json(bench.info)},
                        {"sweeps", std::move(sweeps)},
                        {"fixed", settings_json(bench.info, bench.fixed)},
                        {"warmup", bench.warmup},
                        {"repeats", bench.repeats},
                        {"seed", bench.seed},
                        {"ok", problems.empty()},
                        {"counts", counts_json(bench.verdict)},
                        {"problems", json::Array(problems.begin(), problems.end())},
                        {"points", std::move(points)}};
}

std::string csv_text(const Benchmark& bench)
{
    std::ostringstream out;
    std::vector<std::string> extra_names;
    for (const auto& point : bench.points) {
        for (const auto& [name, samples] : point.extras) {
            if (std::find(extra_names.begin(), extra_names.end(), name) == extra_names.end()) {
                extra_names.push_back(name);
            }
        }
    }
    std::vector<std::string> header{"workload", "variant",        "device",      "device_name",
                                    "api",      "driver_version", "api_version", "backend_version"};
    for (const auto& parameter : bench.info.parameters) {
        header.push_back(parameter.name);
    }
    for (const char* column :
         {"status", "reason", "repeats", "kernel_ms_median", "kernel_ms_min", "kernel_ms_max", "kernel_ms_q1",
          "kernel_ms_q3", "total_ms_median", "total_ms_min", "total_ms_max", "h2d_ms_median", "d2h_ms_median",
          "rate_median", "rate_min", "rate_max", "rate_unit", "max_error", "tolerance"}) {
        header.push_back(column);
    }
    for (const auto& name : extra_names) {
        header.push_back(name + "_median");
    }
    for (const char* column : {"warmup", "seed", "duet_version", "duet_commit", "compiler", "cuda_compiler"}) {
        header.push_back(column);
    }
    csv::write_row(out, header);

    const auto& build = build_info();
    for (const auto& point : bench.points) {
        const auto& p = point.job.device.properties();
        std::vector<std::string> row{bench.info.name,
                                     point.job.variant,
                                     point.job.label,
                                     p.name,
                                     api_label(point.job.device),
                                     p.driver_version,
                                     p.api_version,
                                     backend_version(point.job.device)};
        for (const auto& parameter : bench.info.parameters) {
            row.push_back(point.job.settings.values().at(parameter.name));
        }
        const auto number = [&](double value) { return point.measured() ? format::exact(value) : std::string(); };
        const workload::Summary kernel = workload::summarize(point.kernel_ms),
                                total = workload::summarize(point.total_ms), rate = workload::summarize(point.rate);
        for (std::string field :
             {to_string(point.status), point.reason, std::to_string(point.kernel_ms.size()), number(kernel.median),
              number(kernel.min), number(kernel.max), number(kernel.q1), number(kernel.q3), number(total.median),
              number(total.min), number(total.max), number(workload::summarize(point.h2d_ms).median),
              number(workload::summarize(point.d2h_ms).median), number(rate.median), number(rate.min), number(rate.max),
              rate_unit(point.unit), number(point.max_error), number(point.tolerance)}) {
            row.push_back(std::move(field));
        }
        for (const auto& name : extra_names) {
            const auto extra = std::find_if(point.extras.begin(), point.extras.end(),
                                            [&](const auto& existing) { return existing.first == name; });
            row.push_back(extra == point.extras.end() ? "" : format::exact(workload::summarize(extra->second).median));
        }
        for (std::string field : {std::to_string(bench.warmup), std::to_string(bench.seed), build.version, build.commit,
                                  build.compiler, build.cuda_compiler}) {
            row.push_back(std::move(field));
        }
        csv::write_row(out, row);
    }
    return out.str();
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
    const auto variants = pick_variants(bench.info, arguments.list("variants"));
    const auto devices = pick_devices(arguments.list("devices"));
    const auto total = count_points(bench.sweeps, variants.size(), devices.size());
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

    Progress progress(total);
    for (const auto& point_settings : settings) {
        for (const auto& variant : variants) {
            for (const auto& [device, label] : devices) {
                const Job job{workload, bench.info, variant,    point_settings,
                              device,   label,      bench.seed, workload::Timing::exactly(bench.repeats, bench.warmup)};
                if (const auto broken = point_settings.broken_rule(bench.info)) {
                    Point skipped(job);
                    skipped.status = Status::unsupported;
                    skipped.reason = "skipped: " + *broken;
                    bench.points.push_back(std::move(skipped));
                    continue;
                }
                progress.start(describe_settings(bench.info, point_settings.values()) + " " + variant + " on " + label);
                bench.points.push_back(measure_point(job));
            }
        }
    }
    progress.clear();
    for (const auto& point : bench.points) {
        bench.verdict.add(bench.info.name + "/" + point.job.variant + " " +
                              describe_settings(bench.info, point.job.settings.values()) + " on " + point.job.label,
                          point.status, point.reason);
    }

    if (outputs.table) {
        print_table(bench);
        std::cout << "\n"
                  << verdict_summary(bench.verdict) << (bench.verdict.ok() ? "" : " Details on standard error.")
                  << "\n";
    }
    const int code = exit_code(bench.verdict);
    outputs.write([&] { return json::document(bench_json(bench)); }, [&] { return csv_text(bench); },
                  [&] { return bench_report(bench); });
    return code;
}

} // namespace duet::cli
