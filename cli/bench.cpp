// `duet bench <workload> --sweep k=v1,v2,...`: the cross product of the swept values on every
// selected device and variant; warm-up runs, repeats (the first verified), median and spread per
// point; a table, CSV and JSON that record the environment, and an HTML report with charts.
#include "bench.hpp"

#include "commands.hpp"
#include "csv.hpp"
#include "environment.hpp"
#include "format.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "table.hpp"
#include "workloads.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace duet::cli {

namespace {

constexpr std::size_t max_sweep_values = 1000;

/// "a..b*f" (a, a·f, a·f², ... up to b), "a..b+s" (a, a+s, ... up to b) or "a..b" (step 1); any
/// other item is a value as it stands, for the workload's settings to check.
std::vector<std::string> expand(const std::string& parameter, const std::string& item)
{
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
        return {item};
    }
    const auto bad = [&]() -> UsageError {
        return UsageError("--sweep " + parameter + ": '" + item +
                          "' is not a range: write lo..hi, lo..hi+step or lo..hi*factor with whole numbers");
    };
    const auto whole = [&](const std::string& text) {
        std::int64_t value = 0;
        const auto [rest, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || rest != text.data() + text.size()) {
            throw bad();
        }
        return value;
    };
    const std::string rest = item.substr(dots + 2);
    const auto op = rest.find_first_of("*+");
    const std::int64_t low = whole(item.substr(0, dots));
    const std::int64_t high = whole(rest.substr(0, op));
    const std::int64_t step = op == std::string::npos ? 1 : whole(rest.substr(op + 1));
    const bool geometric = op != std::string::npos && rest[op] == '*';
    if (high < low || step < 1 || (geometric && (step < 2 || low < 1))) {
        throw bad();
    }
    std::vector<std::string> values;
    for (std::int64_t value = low;;) {
        values.push_back(std::to_string(value));
        if (values.size() > max_sweep_values) {
            throw UsageError("--sweep " + parameter + ": '" + item + "' gives more than " +
                             std::to_string(max_sweep_values) + " values");
        }
        // Stops before the next value would pass `high`, so the arithmetic never overflows.
        if (geometric ? value > high / step : high - value < step) {
            return values;
        }
        value = geometric ? value * step : value + step;
    }
}

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
            for (auto& value : expand(parameter, item)) {
                sweep.values.push_back(std::move(value));
            }
        }
        sweeps.push_back(std::move(sweep));
    }
    return sweeps;
}

/// The number of points, counted before any list of them is built: over max_bench_points (or
/// past what 64 bits hold) is a UsageError that names the count and the cap.
std::uint64_t count_points(const std::vector<Sweep>& sweeps, std::size_t variants, std::size_t devices)
{
    std::string factors;
    std::uint64_t points = 1;
    bool overflow = false;
    const auto times = [&](std::uint64_t factor, const std::string& what) {
        factors += (factors.empty() ? "" : " x ") + std::to_string(factor) + " " + what;
        overflow = overflow || __builtin_mul_overflow(points, factor, &points);
    };
    for (const auto& sweep : sweeps) {
        times(sweep.values.size(), sweep.parameter + " values");
    }
    times(variants, variants == 1 ? "variant" : "variants");
    times(devices, devices == 1 ? "device" : "devices");
    if (overflow || points > max_bench_points) {
        throw UsageError("bench would measure " + factors + " = " +
                         (overflow ? "more than " + std::to_string(UINT64_MAX) : std::to_string(points)) +
                         " points; the most one bench may measure is " + std::to_string(max_bench_points) +
                         ": sweep fewer values, or run several benches");
    }
    return points;
}

/// Every combination of the swept values over the fixed ones, the last sweep varying fastest.
std::vector<std::map<std::string, std::string>> combinations(const std::vector<Sweep>& sweeps,
                                                             const std::map<std::string, std::string>& fixed)
{
    std::vector<std::map<std::string, std::string>> all{fixed};
    for (const auto& sweep : sweeps) {
        std::vector<std::map<std::string, std::string>> next;
        for (const auto& partial : all) {
            for (const auto& value : sweep.values) {
                auto extended = partial;
                extended[sweep.parameter] = value;
                next.push_back(std::move(extended));
            }
        }
        all = std::move(next);
    }
    return all;
}

void add_samples(Point& point, const Measurement& m)
{
    for (const auto& sample : m.samples) {
        point.h2d_ms.push_back(sample.h2d_ms);
        point.kernel_ms.push_back(sample.kernel_ms);
        point.d2h_ms.push_back(sample.d2h_ms);
        point.total_ms.push_back(sample.total_ms);
        const double ms = sample.rate_basis_ms();
        point.rate.push_back(ms > 0 ? m.work / (ms * 1e-3) / 1e9 : 0);
    }
    for (const auto& [name, value] : m.extras) {
        point.extras.push_back({name, {value}});
    }
}

/// One run of the job, whose timing asks for the warm-up passes and the repeats; checked against
/// the reference once, after them.
Point measure_point(const Job& job)
{
    Point point(job);
    const Run run = execute(job, true);
    point.status = run.status;
    point.reason = run.reason;
    if (!run.measured()) {
        return point;
    }
    const auto& m = run.measurement;
    point.max_error = m.max_error;
    point.tolerance = m.tolerance;
    point.unit = m.unit;
    point.rate_name = rate_name(m);
    point.overlapped = phases_overlap(m);
    add_samples(point, m);
    return point;
}

std::string spread(const std::vector<double>& samples)
{
    const workload::Summary stats = workload::summarize(samples);
    if (stats.median <= 0) {
        return "-";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", 100 * (stats.max - stats.min) / stats.median);
    return text;
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
                        {"counts", bench.verdict.counts_json()},
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
                  << bench.verdict.summary() << (bench.verdict.ok() ? "" : " Details on standard error.") << "\n";
    }
    const int code = exit_code(bench.verdict);
    outputs.write([&] { return bench_json(bench).document(); }, [&] { return csv_text(bench); },
                  [&] { return bench_report(bench); });
    return code;
}

} // namespace duet::cli
