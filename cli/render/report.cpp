// Assembles the HTML reports from the results, the environment and the SVG charts.
#include "render/report.hpp"

#include "model/environment.hpp"
#include "model/roofline.hpp"
#include "model/workloads.hpp"
#include "render/chart.hpp"
#include "render/describe.hpp"
#include "render/environment.hpp"
#include "render/format.hpp"
#include "render/html.hpp"
#include "render/roofline.hpp"
#include "render/table.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <sstream>

namespace duet::cli {

namespace {

using chart::escape;

/// The verdict's summary, the same sentence the terminal prints, and its problems.
std::string banner(const Verdict& verdict)
{
    const auto problems = verdict.problems();
    if (problems.empty()) {
        return "<div class=\"banner ok\">" + escape(verdict_summary(verdict)) + "</div>\n";
    }
    std::string html = "<div class=\"banner wrong\"><strong>" + escape(verdict_summary(verdict)) + "</strong><ul>";
    for (const auto& problem : problems) {
        html += "<li>" + escape(problem) + "</li>";
    }
    return html + "</ul></div>\n";
}

/// One colour per device label, in the order first seen.
template <class Item> std::map<std::string, std::string> colours_of(const std::vector<Item>& items)
{
    std::map<std::string, std::string> colours;
    for (const auto& item : items) {
        if (!colours.contains(item.job.label)) {
            colours.emplace(item.job.label, chart::palette(colours.size()));
        }
    }
    return colours;
}

/// Where results are not identical to the reference: each run's ULP distances, bucketed.
std::string ulp_section(std::span<const Run> runs)
{
    std::vector<std::vector<Cell>> rows;
    std::size_t buckets = 0;
    for (const auto& run : runs) {
        buckets = std::max(buckets, run.measurement.agreement.histogram.size());
    }
    std::vector<std::string> headers{"device", "variant", "differing", "largest at"};
    for (std::size_t bucket = 0; bucket < buckets; ++bucket) {
        headers.push_back(workload::histogram_label(bucket) + " ULPs");
    }
    std::vector<bool> used(buckets, false);
    for (const auto& run : runs) {
        const auto& agreement = run.measurement.agreement;
        if (!run.measurement.verified || agreement.differing == 0) {
            continue;
        }
        std::vector<Cell> cells{
            {run.job.label, ""},
            {run.job.variant, ""},
            {std::to_string(agreement.differing) + " of " + std::to_string(agreement.count), "number"},
            {agreement.where(agreement.max_ulps_index), ""}};
        for (std::size_t bucket = 0; bucket < buckets; ++bucket) {
            const std::size_t count = bucket < agreement.histogram.size() ? agreement.histogram[bucket] : 0;
            used[bucket] = used[bucket] || count > 0;
            cells.push_back({std::to_string(count), "number"});
        }
        rows.push_back(std::move(cells));
    }
    if (rows.empty()) {
        return "";
    }
    // Only the buckets some run fills: most of the 66 are empty.
    std::vector<std::string> kept_headers(headers.begin(), headers.begin() + 4);
    for (std::size_t bucket = 0; bucket < buckets; ++bucket) {
        if (used[bucket]) {
            kept_headers.push_back(headers[4 + bucket]);
        }
    }
    for (auto& row : rows) {
        std::vector<Cell> kept(row.begin(), row.begin() + 4);
        for (std::size_t bucket = 0; bucket < buckets; ++bucket) {
            if (used[bucket]) {
                kept.push_back(row[4 + bucket]);
            }
        }
        row = std::move(kept);
    }
    return "<p>Raw distances from the CPU reference in ULPs (each element's own), where a result is not identical "
           "to it:</p>\n" +
           html_table(kept_headers, rows);
}

/// A run's row in its workload's table: device, API, variant, phase times, rate, error, agreement.
std::vector<Cell> run_row(const Run& run)
{
    const auto& m = run.measurement;
    const auto number = [&](std::string text) { return run.measured() ? Cell{std::move(text), "number"} : Cell{}; };
    const auto difference = [](const workload::Comparison& comparison) {
        return comparison.compared() ? format::error(comparison.agreement.max_error) : std::string("base");
    };
    return {{run.job.label + " " + run.job.device.properties().name, ""},
            {api_label(run.job.device), ""},
            {run.job.variant, ""},
            number(std::to_string(m.samples.size())),
            number(format::milliseconds(m.h2d_ms)),
            number(format::milliseconds(m.kernel_ms, m.summary(Phase::kernel))),
            number(format::milliseconds(m.d2h_ms)),
            number(format::milliseconds(m.total_ms, m.total_summary())),
            number(format::rate(m.rate()) + " " + rate_unit(m.unit)),
            number(m.verified ? format::error(m.max_error) : "-"),
            number(m.verified ? format::ulps(m.agreement.max_scaled_ulps) : "-"),
            number(difference(run.device)),
            number(difference(run.variant)),
            status_cell(run.status, run.reason)};
}

/// Time per phase and rate, a bar per measured run, grouped by variant; empty when none was measured.
std::string phase_and_rate_charts(std::span<const Run> runs, const std::map<std::string, std::string>& colours)
{
    const auto& info = runs.front().job.info;
    chart::BarChart phases{
        info.name + ": time per phase on the device clock", "ms", "phase_ms", {"h→d", "kernel", "d→h"}, {}, 0};
    std::string unit;
    std::vector<std::string> rate_names;
    for (const auto& run : runs) {
        if (run.measured()) {
            unit = unit.empty() ? rate_unit(run.measurement.unit) : unit;
            rate_names.push_back(rate_name(run.measurement));
        }
    }
    chart::BarChart rates{info.name + ": " + common_rate_name(rate_names) + " (" + unit + ", higher is better)",
                          unit,
                          "rate",
                          {"rate"},
                          {},
                          0};
    for (const auto& run : runs) {
        if (!run.measured()) {
            continue;
        }
        const auto& m = run.measurement;
        const std::string label = run.job.label + " " + api_label(run.job.device);
        if (phases.groups.empty() || phases.groups.back().title != run.job.variant) {
            phases.groups.push_back({run.job.variant, {}});
            rates.groups.push_back({run.job.variant, {}});
        }
        phases.groups.back().bars.push_back({label, {m.h2d_ms, m.kernel_ms, m.d2h_ms}, ""});
        rates.groups.back().bars.push_back({label, {m.rate()}, colours.at(run.job.label)});
    }
    return phases.groups.empty() ? "" : chart::bars(phases) + chart::bars(rates);
}

/// The workload's own figures (Measurement::extras), a row per run that has them; empty when none does.
std::string extras_table(std::span<const Run> runs)
{
    const auto names = extra_names(runs);
    if (names.empty()) {
        return "";
    }
    std::vector<std::string> headers{"device", "variant"};
    headers.insert(headers.end(), names.begin(), names.end());
    std::vector<std::vector<Cell>> extras;
    for (const auto& run : runs) {
        if (run.measurement.extras.empty()) {
            continue;
        }
        std::vector<Cell> cells{{run.job.label, ""}, {run.job.variant, ""}};
        for (const auto& name : names) {
            const auto value = extra(run.measurement, name);
            cells.push_back({value ? format::figure(*value) : "", "number"});
        }
        extras.push_back(std::move(cells));
    }
    return "<p>" + escape(runs.front().job.info.name) + "'s own figures:</p>\n" + html_table(headers, extras);
}

/// The runs' roofline: the chart, a row of figures per measured run, and why any is unknown.
std::string roofline_section(std::span<const Run> runs, std::span<const DeviceProperties* const> devices)
{
    std::vector<Roofline> lines;
    std::vector<std::vector<Cell>> rows;
    for (const auto& run : runs) {
        lines.push_back(roofline_of(run, devices));
        if (run.measured()) {
            std::vector<Cell> row;
            for (auto& text : roofline_cells(run, lines.back())) {
                row.push_back({std::move(text), roofline_column_holds_figures(row.size()) ? "number" : ""});
            }
            rows.push_back(std::move(row));
        }
    }
    if (rows.empty()) {
        return "";
    }
    return chart::roofline(roofline_chart(runs, lines)) + html_table(roofline_headers(), rows) +
           "<p class=\"note\">Roofline: the workload's declared flops and compulsory bytes (each array once, not "
           "cache hits) over the rate's time; each rate as a share of the device's peak (memory bandwidth from its "
           "memory clock and bus, the FMA rate of the output's precision from its SMs and clock) and of a "
           "device-to-device copy measured in the same run, where the workload measures one; the bound is the roof "
           "below the kernel's intensity, left of the ridge the memory's.</p>\n";
}

std::string compare_workload_section(std::span<const Run> runs, const std::map<std::string, std::string>& colours,
                                     std::span<const DeviceProperties* const> devices)
{
    const auto& info = runs.front().job.info;
    std::string html = "<h2>" + escape(info.name) + "</h2>\n<p>" + escape(info.description) +
                       "<br><span class=\"note\">" +
                       escape(describe_settings(info, runs.front().job.settings.values())) + "</span></p>\n";
    html += phase_and_rate_charts(runs, colours);
    std::vector<std::vector<Cell>> rows;
    for (const auto& run : runs) {
        rows.push_back(run_row(run));
    }
    html += html_table({"device", "API", "variant", "runs", "h→d ms", "kernel ms", "d→h ms", "total ms", "rate",
                        "max error", "ULPs", "device Δ", "variant Δ", "result"},
                       rows);
    html += "<p class=\"note\">ms: medians of the timed passes, ± half their interquartile range. ULPs: the "
            "largest error relative to max(|reference|, 1), the scale every tolerance is relative to, in epsilons "
            "of the type, as a tolerance in ULPs counts it (the JSON keeps the raw distance in ULPs too, which "
            "near zero runs to millions).</p>\n";
    html += ulp_section(runs);
    if (std::any_of(runs.begin(), runs.end(),
                    [](const Run& run) { return run.measured() && phases_overlap(run.measurement); })) {
        html += "<p class=\"note\">" + escape(overlap_note) + "</p>\n";
    }
    return html + extras_table(runs) + roofline_section(runs, devices);
}

/// How a run came out, in the summary's words.
std::string summary_verdict(Status status)
{
    switch (status) {
    case Status::ok:
        return "agrees";
    case Status::wrong:
        return "differs";
    default:
        return to_string(status);
    }
}

/// Opens the report: a row per workload and variant, a column per device, each cell the run's verdict,
/// its OpenCL/CUDA kernel ratio where the device is one half of a pair, and its rate's share of the
/// device's peak, so that the whole comparison is seen before its sections.
std::string summary_section(const Comparison& comparison, std::span<const DeviceProperties* const> devices)
{
    std::vector<std::string> labels, headers, rows_seen;
    for (const auto& run : comparison.runs) {
        if (std::find(labels.begin(), labels.end(), run.job.label) == labels.end()) {
            labels.push_back(run.job.label);
            headers.push_back(run.job.label + " " + truncate(run.job.device.properties().name, 32));
        }
    }
    headers.insert(headers.begin(), "workload / variant");
    std::vector<std::vector<Cell>> rows;
    for (const auto& run : comparison.runs) {
        const std::string row_name = run.job.info.name + " / " + run.job.variant;
        auto row = std::find(rows_seen.begin(), rows_seen.end(), row_name);
        if (row == rows_seen.end()) {
            rows_seen.push_back(row_name);
            rows.push_back(std::vector<Cell>(labels.size() + 1));
            rows.back().front() = {row_name, ""};
            row = rows_seen.end() - 1;
        }
        std::string text = summary_verdict(run.status);
        for (const auto& pair : comparison.pairs) {
            if (pair.workload == run.job.info.name && pair.variant == run.job.variant &&
                (pair.cuda_label == run.job.label || pair.opencl_label == run.job.label) && pair.kernel.valid()) {
                text += "\nOpenCL/CUDA kernel " + format::ratio(pair.kernel);
            }
        }
        if (run.measured()) {
            const std::optional<double> fraction = roofline_of(run, devices).of_peak(run.measurement.unit);
            text += "\nof peak " + format::percent(fraction);
        }
        const auto column =
            static_cast<std::size_t>(std::find(labels.begin(), labels.end(), run.job.label) - labels.begin());
        rows[static_cast<std::size_t>(row - rows_seen.begin())][column + 1] = {text, "matrix " + to_string(run.status)};
    }
    return "<h2>Summary</h2>\n" + html_table(headers, rows) +
           "<p class=\"note\">Each cell: the run's verdict against the reference and the other runs; where the "
           "device is one half of a GPU seen through CUDA and OpenCL, the OpenCL/CUDA kernel time ratio with its "
           "interval (above 1: OpenCL is slower); the rate as a share of the device's peak (memory bandwidth, or "
           "the FMA rate of the output's precision), - where the device reports no peak figures. An empty cell: "
           "that device did not run that variant.</p>\n";
}

std::string pairs_section(const std::vector<ApiPair>& pairs)
{
    if (pairs.empty()) {
        return "";
    }
    chart::BarChart ratios{
        "OpenCL time / CUDA time on the same GPU (above 1: OpenCL is slower)", "x", "ratio", {"ratio"}, {}, 1};
    std::vector<std::vector<Cell>> rows;
    for (const auto& pair : pairs) {
        ratios.groups.push_back({pair.workload + "/" + pair.variant + " on " + pair.gpu, {}});
        if (pair.kernel.valid()) { // a copy has no kernel phase to compare
            ratios.groups.back().bars.push_back({"kernel", {pair.kernel.value}, chart::palette(0)});
        }
        ratios.groups.back().bars.push_back({"total", {pair.total.value}, chart::palette(1)});
        rows.push_back({{pair.gpu, ""},
                        {pair.pci_bus_id, ""},
                        {pair.workload, ""},
                        {pair.variant, ""},
                        {pair.cuda_label, ""},
                        {pair.opencl_label, ""},
                        {format::ratio(pair.kernel), "number"},
                        {format::ratio_verdict(pair.kernel), ""},
                        {format::ratio(pair.total), "number"},
                        {format::ratio_verdict(pair.total), ""}});
    }
    return "<h2>One GPU through CUDA and OpenCL</h2>\n" + chart::bars(ratios) +
           html_table({"GPU", "PCI bus id", "workload", "variant", "CUDA", "OpenCL", "kernel ratio [interval]",
                       "kernel", "total ratio [interval]", "total"},
                      rows) +
           "<p class=\"note\">Medians' ratio, OpenCL time over CUDA time; the interval from the two sides' quartiles; "
           "parity where it holds 1.</p>\n";
}

} // namespace

std::string compare_report(const Comparison& comparison)
{
    std::ostringstream out;
    std::string workloads;
    for (const auto& run : comparison.runs) {
        if (workloads.find(run.job.info.name) == std::string::npos) {
            workloads += (workloads.empty() ? "" : ", ") + run.job.info.name;
        }
    }
    out << page_start("duet compare: " + workloads);
    out << "<p>Every run is checked against the CPU reference, and every device's output against the base run "
           "of the same variant (the first that matched the reference). Seed "
        << comparison.seed << "; " << escape(describe_timing(comparison.timing, comparison.in_turns))
        << "; times on the device clock.</p>\n";
    out << banner(comparison.verdict);
    const auto devices = device_properties_of(comparison.runs);
    out << summary_section(comparison, devices);
    out << backends_section();
    const auto colours = colours_of(comparison.runs);
    for (std::size_t first = 0; first < comparison.runs.size();) {
        std::size_t end = first;
        while (end < comparison.runs.size() &&
               comparison.runs[end].job.info.name == comparison.runs[first].job.info.name) {
            ++end;
        }
        out << compare_workload_section(std::span(comparison.runs).subspan(first, end - first), colours, devices);
        first = end;
    }
    out << pairs_section(comparison.pairs);
    out << devices_section(devices_of(comparison.runs));
    out << page_end();
    return out.str();
}

namespace {

/// The line charts of a sweep: x is the first swept parameter; every other combination of
/// variant, device and the other swept values is a line.
/// What a sweep's charts plot besides the times: the rate's unit and names, the workload's extras.
struct SweepMetrics {
    std::string unit = "rate";
    std::vector<std::string> rate_names;
    std::vector<std::string> extras;
};

SweepMetrics sweep_metrics(const Benchmark& bench)
{
    SweepMetrics metrics;
    for (const auto& point : bench.points) {
        if (point.measured() && metrics.unit == "rate") {
            metrics.unit = rate_unit(point.unit);
        }
        if (point.measured()) {
            metrics.rate_names.push_back(point.rate_name);
        }
        for (const auto& [name, samples] : point.extras) {
            if (std::find(metrics.extras.begin(), metrics.extras.end(), name) == metrics.extras.end()) {
                metrics.extras.push_back(name);
            }
        }
    }
    return metrics;
}

/// The lines of a sweep's charts: one per combination of what stays fixed along the x axis, in
/// the order first measured, each with its points and its dash pattern.
struct SweepLines {
    std::vector<std::string> keys;
    std::map<std::string, std::vector<const Point*>> points;
    std::map<std::string, std::string> dashes;
};

/// A line's name holds only the parts that differ between lines, so that legends stay short.
std::string line_key(const Benchmark& bench, const Point& point, bool devices_differ, bool variants_differ)
{
    std::vector<std::string> parts;
    if (devices_differ) {
        parts.push_back(point.job.label + " " + api_label(point.job.device));
    }
    if (variants_differ) {
        parts.push_back(point.job.variant);
    }
    for (const auto& sweep : bench.sweeps) {
        if (&sweep != &bench.sweeps.front()) {
            parts.push_back(sweep.parameter + "=" + point.job.settings.values().at(sweep.parameter));
        }
    }
    std::string key = parts.empty() ? point.job.label + " " + api_label(point.job.device) : "";
    for (const auto& part : parts) {
        key += (key.empty() ? "" : " ") + part;
    }
    return key;
}

SweepLines sweep_lines(const Benchmark& bench)
{
    std::set<std::string> labels, variants;
    for (const auto& point : bench.points) {
        labels.insert(point.job.label);
        variants.insert(point.job.variant);
    }
    SweepLines lines;
    for (const auto& point : bench.points) {
        if (!point.measured()) {
            continue;
        }
        const std::string key = line_key(bench, point, labels.size() > 1, variants.size() > 1);
        if (!lines.points.contains(key)) {
            lines.keys.push_back(key);
        }
        lines.points[key].push_back(&point);
    }
    // Lines of one device share its colour and differ in their dash pattern, as long as there
    // are several devices to tell apart by colour.
    static const char* patterns[] = {"", "7 4", "2 3", "9 3 2 3", "4 2 4 6"};
    std::map<std::string, std::size_t> lines_of_device;
    for (const auto& key : lines.keys) {
        const std::string& label = lines.points.at(key).front()->job.label;
        lines.dashes[key] = patterns[lines_of_device[label]++ % std::size(patterns)];
    }
    return lines;
}

/// Where `point` sits on the x axis: the swept value, or its index for a choice parameter.
double x_position(const Point& point, const Sweep& x_sweep, bool categorical)
{
    const auto& value = point.job.settings.values().at(x_sweep.parameter);
    if (categorical) {
        return static_cast<double>(std::find(x_sweep.values.begin(), x_sweep.values.end(), value) -
                                   x_sweep.values.begin());
    }
    return std::stod(value);
}

/// One metric against the first swept parameter: per line, the median of each point's samples
/// with whiskers from min to max.
std::string sweep_chart(const Benchmark& bench, const SweepLines& lines,
                        const std::map<std::string, std::string>& colours, const std::string& title,
                        const std::string& y_label, const std::string& metric,
                        const std::function<std::vector<double>(const Point&)>& samples_of)
{
    const Sweep& x_sweep = bench.sweeps.front();
    const auto parameter = std::find_if(bench.info.parameters.begin(), bench.info.parameters.end(),
                                        [&](const WorkloadParameter& p) { return p.name == x_sweep.parameter; });
    const bool categorical = parameter->type == WorkloadParameter::Type::choice;
    chart::LineChart line{
        title, x_sweep.parameter, y_label, metric, categorical ? x_sweep.values : std::vector<std::string>{}, {}};
    for (std::size_t i = 0; i < lines.keys.size(); ++i) {
        const auto& points = lines.points.at(lines.keys[i]);
        chart::Series series{lines.keys[i], colours.at(points.front()->job.label), lines.dashes.at(lines.keys[i]), {}};
        if (colours.size() == 1) {
            // One device: colours tell its lines apart better than dashes.
            series.color = chart::palette(i);
            series.dash.clear();
        }
        for (const Point* point : points) {
            const auto samples = samples_of(*point);
            if (!samples.empty()) {
                const workload::Summary stats = workload::summarize(samples);
                series.points.push_back({x_position(*point, x_sweep, categorical), stats.median, stats.min, stats.max});
            }
        }
        std::sort(series.points.begin(), series.points.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
        line.series.push_back(std::move(series));
    }
    return chart::lines(line);
}

std::string sweep_charts(const Benchmark& bench, const std::map<std::string, std::string>& colours)
{
    const SweepMetrics metrics = sweep_metrics(bench);
    const SweepLines lines = sweep_lines(bench);
    const std::string& name = bench.info.name;
    const std::string against = " against " + bench.sweeps.front().parameter;
    const auto chart_of = [&](const std::string& title, const std::string& y_label, const std::string& metric,
                              const std::function<std::vector<double>(const Point&)>& samples_of) {
        return sweep_chart(bench, lines, colours, title, y_label, metric, samples_of);
    };
    std::string html =
        chart_of(name + ": " + common_rate_name(metrics.rate_names) + against + " (median, whiskers min to max)",
                 metrics.unit, "rate", [](const Point& p) { return p.rate; });
    html += chart_of(name + ": kernel time" + against, "kernel ms", "kernel_ms",
                     [](const Point& p) { return p.kernel_ms; });
    html += chart_of(name + ": total time (copies in, kernel, copies out)" + against, "total ms", "total_ms",
                     [](const Point& p) { return p.total_ms; });
    for (const auto& extra : metrics.extras) {
        html += chart_of(name + ": " + extra + against, extra, extra, [&](const Point& p) {
            const auto found =
                std::find_if(p.extras.begin(), p.extras.end(), [&](const auto& e) { return e.first == extra; });
            return found == p.extras.end() ? std::vector<double>{} : found->second;
        });
    }
    return html;
}

/// Without a sweep there is one point per device and variant: bars instead of lines.
std::string point_bars(const Benchmark& bench, const std::map<std::string, std::string>& colours)
{
    std::string unit;
    std::vector<std::string> rate_names;
    chart::BarChart rates{"", "", "rate", {"rate"}, {}, 0};
    chart::BarChart times{bench.info.name + ": kernel time (median)", "ms", "kernel_ms", {"kernel"}, {}, 0};
    for (const auto& point : bench.points) {
        if (!point.measured()) {
            continue;
        }
        unit = rate_unit(point.unit);
        rate_names.push_back(point.rate_name);
        if (rates.groups.empty() || rates.groups.back().title != point.job.variant) {
            rates.groups.push_back({point.job.variant, {}});
            times.groups.push_back({point.job.variant, {}});
        }
        const std::string label = point.job.label + " " + api_label(point.job.device);
        rates.groups.back().bars.push_back(
            {label, {workload::summarize(point.rate).median}, colours.at(point.job.label)});
        times.groups.back().bars.push_back(
            {label, {workload::summarize(point.kernel_ms).median}, colours.at(point.job.label)});
    }
    rates.title = bench.info.name + ": " + common_rate_name(rate_names) + " (median)";
    rates.unit = unit;
    return rates.groups.empty() ? "" : chart::bars(rates) + chart::bars(times);
}

std::string points_table(const Benchmark& bench)
{
    std::vector<std::string> headers{"variant", "device"};
    for (const auto& sweep : bench.sweeps) {
        headers.push_back(sweep.parameter);
    }
    for (const char* header : {"kernel ms median", "kernel ms min", "kernel ms max", "total ms median", "rate median",
                               "max error", "result"}) {
        headers.push_back(header);
    }
    std::vector<std::vector<Cell>> rows;
    for (const auto& point : bench.points) {
        std::vector<Cell> row{{point.job.variant, ""}, {point.job.label + " " + api_label(point.job.device), ""}};
        for (const auto& sweep : bench.sweeps) {
            row.push_back({point.job.settings.values().at(sweep.parameter), "number"});
        }
        const workload::Summary kernel = workload::summarize(point.kernel_ms);
        const auto number = [&](std::string text) {
            return point.measured() ? Cell{std::move(text), "number"} : Cell{};
        };
        row.push_back(number(format::milliseconds(kernel.median)));
        row.push_back(number(format::milliseconds(kernel.min)));
        row.push_back(number(format::milliseconds(kernel.max)));
        row.push_back(number(format::milliseconds(workload::summarize(point.total_ms).median)));
        row.push_back(number(format::rate(workload::summarize(point.rate).median) + " " + rate_unit(point.unit)));
        row.push_back(number(point.verified ? format::error(point.max_error) : "-"));
        row.push_back(status_cell(point.status, point.reason));
        rows.push_back(std::move(row));
    }
    return html_table(headers, rows);
}

} // namespace

std::string bench_report(const Benchmark& bench)
{
    std::ostringstream out;
    out << page_start("duet bench: " + bench.info.name);
    std::string swept;
    for (const auto& sweep : bench.sweeps) {
        swept += (swept.empty() ? "" : "; ") + sweep.parameter + " over";
        for (const auto& value : sweep.values) {
            swept += " " + value;
        }
    }
    out << "<p>" << escape(bench.info.description) << "<br>Swept: " << escape(swept.empty() ? "nothing" : swept)
        << ". Fixed: " << escape(bench.fixed.empty() ? "defaults" : describe_settings(bench.info, bench.fixed)) << ". "
        << format::count(bench.warmup, "warm-up run") << ", then " << format::count(bench.repeats, "measured repeat")
        << " per point, the first checked against the CPU reference; seed " << bench.seed
        << ". Times on the device clock; each column's median is taken on its own.</p>\n";
    out << banner(bench.verdict);
    out << backends_section();
    const auto colours = colours_of(bench.points);
    out << "<h2>Charts</h2>\n" << (bench.sweeps.empty() ? point_bars(bench, colours) : sweep_charts(bench, colours));
    out << "<h2>Points</h2>\n" << points_table(bench);
    if (std::any_of(bench.points.begin(), bench.points.end(), [](const Point& point) { return point.overlapped; })) {
        out << "<p class=\"note\">" << escape(overlap_note) << "</p>\n";
    }
    out << devices_section(devices_of(bench.points));
    out << page_end();
    return out.str();
}

} // namespace duet::cli

namespace duet::cli {

namespace {

/// One table of a scaling run: its charts against the rank count, then its points.
std::string scale_section(const Scaling& scaling)
{
    std::ostringstream out;
    const bool weak = !scaling.weak.empty();
    out << "<h2>" << (weak ? "Weak scaling" : "Strong scaling") << "</h2>\n<p>"
        << (weak ? escape(scaling.weak) + " grows with the ranks."
                 : std::string("The same problem on every rank count."))
        << " Time: the kernels and the exchanges of one pass, medians of the slowest rank's; each rank count one "
           "<code>duet compare</code> under mpirun.</p>\n";
    if (!scaling.problems.empty()) {
        out << "<div class=\"banner wrong\"><ul>";
        for (const auto& problem : scaling.problems) {
            out << "<li>" << escape(problem) << "</li>";
        }
        out << "</ul></div>\n";
    }
    // One line per API and variant, against the rank count; `ideal`, where given, the perfect
    // scaling's value at a rank count, dashed grey beside them.
    const auto chart = [&](const std::string& title, const std::string& y_label, const std::string& metric,
                           const std::function<std::optional<double>(const ScalePoint&)>& value,
                           const std::function<double(int)>& ideal = {}) {
        chart::LineChart lines{title, "ranks", y_label, metric, {}, {}};
        if (ideal) {
            chart::Series perfect{"ideal", "#9e9e9e", "6 3", {}};
            for (const int ranks : scaling.ranks) {
                perfect.points.push_back({double(ranks), ideal(ranks), ideal(ranks), ideal(ranks)});
            }
            lines.series.push_back(std::move(perfect));
        }
        std::map<std::string, std::size_t> series_of;
        for (const auto& point : scaling.points) {
            const auto y = value(point);
            if (point.status != "ok" || !y) {
                continue;
            }
            const std::string label = point.api + " " + point.variant;
            if (!series_of.contains(label)) {
                const std::size_t colour = series_of.size(); // the same in every chart, ideal or not
                series_of[label] = lines.series.size();
                lines.series.push_back({label, chart::palette(colour), "", {}});
            }
            lines.series[series_of[label]].points.push_back({double(point.ranks), *y, *y, *y});
        }
        return chart::lines(lines);
    };
    out << chart("time per pass", "ms", "time_ms", [](const ScalePoint& p) { return std::optional(p.time_ms); })
        << chart(
               weak ? "efficiency (one rank's time / this time)" : "speedup over one rank", weak ? "efficiency" : "x",
               "scaling", [&](const ScalePoint& p) { return weak ? p.efficiency : p.speedup; },
               [&](int ranks) { return weak ? 1.0 : double(ranks); })
        << chart("communication share", "% of the time", "communication",
                 [](const ScalePoint& p) { return std::optional(100 * p.communication_share()); });
    std::vector<std::vector<Cell>> rows;
    const auto optional = [](const std::optional<double>& value) {
        return Cell{value ? format::ratio(*value) : "-", "number"};
    };
    for (const auto& p : scaling.points) {
        const bool ok = p.status == "ok";
        rows.push_back({{p.api, ""},
                        {p.variant, ""},
                        {std::to_string(p.ranks), "number"},
                        {p.devices, ""},
                        {ok ? format::milliseconds(p.time_ms) : "-", "number"},
                        {ok ? format::percent(p.communication_share()) : "-", "number"},
                        optional(p.speedup),
                        {format::percent(p.efficiency), "number"},
                        optional(p.opencl_over_cuda),
                        {p.exchanges.empty() ? "-" : p.exchanges, ""},
                        {ok ? p.status : p.status + ": " + p.reason, ok ? "ok" : "wrong"}});
    }
    out << html_table({"API", "variant", "ranks", "devices", "time ms", "comm", "speedup", "efficiency", "OpenCL/CUDA",
                       "exchanges", "status"},
                      rows);
    return out.str();
}

} // namespace

std::string scale_report(const std::vector<Scaling>& tables)
{
    std::ostringstream out;
    out << page_start("duet scale: " + tables.front().workload);
    for (const auto& table : tables) {
        out << scale_section(table);
    }
    out << backends_section() << page_end();
    return out.str();
}

} // namespace duet::cli
