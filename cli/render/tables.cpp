// compare's and bench's tables on standard output.
#include "render/tables.hpp"

#include "model/environment.hpp"
#include "model/roofline.hpp"
#include "model/statistics.hpp"
#include "model/workloads.hpp"
#include "render/format.hpp"
#include "render/roofline.hpp"
#include "render/table.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <span>

namespace duet::cli {

namespace {

std::string spread(const std::vector<double>& samples)
{
    const auto range = relative_range(samples);
    return format::percent(range);
}

/// The unit of the first measured run's rate: the column's heading; others name theirs per cell.
std::string rate_unit_of(std::span<const Run> runs)
{
    for (const auto& run : runs) {
        if (run.measured()) {
            return rate_unit(run.measurement.unit);
        }
    }
    return "";
}

/// One row per run: its phases, rate and its share of the device's peak, agreement with the reference
/// and with the other runs. `devices`: every device run so far, for the peaks of a CUDA twin.
void print_runs_table(std::span<const Run> runs, std::span<const DeviceProperties* const> devices)
{
    const std::string unit = rate_unit_of(runs);
    // A distributed run's exchanges between ranks, timed apart from the kernel phase: a column of
    // their own where any run has them.
    const bool exchanges =
        std::any_of(runs.begin(), runs.end(), [](const Run& run) { return !run.measurement.exchanges.empty(); });
    using Align = Table::Align;
    std::vector<Table::Column> columns{{"device"},
                                       {"API"},
                                       {"variant"},
                                       {"runs", Align::right},
                                       {"h→d ms", Align::right},
                                       {"kernel ms", Align::right}};
    if (exchanges) {
        columns.push_back({"comm ms", Align::right});
    }
    columns.insert(columns.end(), {{"d→h ms", Align::right},
                                   {"total ms", Align::right},
                                   {unit.empty() ? "rate" : unit, Align::right},
                                   {"of peak", Align::right},
                                   {"max error", Align::right},
                                   {"ULPs", Align::right},
                                   {"device Δ", Align::right},
                                   {"variant Δ", Align::right},
                                   {"agrees"}});
    Table table(std::move(columns));
    const auto difference = [](const workload::Comparison& comparison, const char* base) {
        return comparison.compared() ? format::error(comparison.agreement.max_error) : std::string(base);
    };
    for (const auto& run : runs) {
        const auto& m = run.measurement;
        std::vector<std::string> cells{truncate(run.job.label + " " + run.job.device.properties().name, 40),
                                       api_label(run.job.device), run.job.variant};
        if (!run.measured()) {
            table.add_row_with_text(std::move(cells), to_string(run.status) + ": " + headline(run.reason, 120));
            continue;
        }
        const std::string rate = format::rate(m.rate()) + (rate_unit(m.unit) == unit ? "" : " " + rate_unit(m.unit));
        const std::optional<double> of_peak = roofline_of(run, devices).of_peak(m.unit);
        cells.insert(cells.end(), {std::to_string(m.samples.size()), format::milliseconds(m.h2d_ms),
                                   format::milliseconds(m.kernel_ms, m.summary(Phase::kernel))});
        if (exchanges) {
            const workload::Summary communication = m.summary("communication");
            cells.push_back(m.exchanges.empty() ? "-" : format::milliseconds(communication.median, communication));
        }
        cells.insert(cells.end(),
                     {format::milliseconds(m.d2h_ms), format::milliseconds(m.total_ms, m.total_summary()), rate,
                      format::percent(of_peak), m.verified ? format::error(m.max_error) : "-",
                      m.verified ? format::ulps(m.agreement.max_scaled_ulps) : "-", difference(run.device, "base"),
                      difference(run.variant, "base"), run.status == Status::ok ? "yes" : "NO"});
        table.add_row(std::move(cells));
    }
    table.print(std::cout);
}

/// The workload's own figures (Measurement::extras), one column each, where any run has them.
void print_extras_table(const std::string& workload, std::span<const Run> runs)
{
    const auto names = extra_names(runs);
    if (names.empty()) {
        return;
    }
    std::cout << "\n  " << workload << "'s own figures\n";
    std::vector<Table::Column> columns{{"device"}, {"variant"}};
    for (const auto& name : names) {
        columns.push_back({name, Table::Align::right});
    }
    Table extras(std::move(columns));
    for (const auto& run : runs) {
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

/// Each run's place on the roofline, below its table, and why any figure is unknown.
void print_roofline_table(const std::string& workload, std::span<const Run> runs,
                          std::span<const DeviceProperties* const> devices)
{
    if (std::none_of(runs.begin(), runs.end(), [](const Run& run) { return run.measured(); })) {
        return;
    }
    std::vector<Roofline> lines;
    for (const auto& run : runs) {
        lines.push_back(roofline_of(run, devices));
    }
    std::cout << "\n  " << workload << "'s roofline\n";
    std::vector<Table::Column> columns;
    for (const auto& heading : roofline_headers()) {
        columns.push_back(
            {heading, roofline_column_holds_figures(columns.size()) ? Table::Align::right : Table::Align::left});
    }
    Table table(std::move(columns));
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].measured()) {
            table.add_row(roofline_cells(runs[i], lines[i]));
        }
    }
    table.print(std::cout);
    for (const auto& note : roofline_notes(runs, lines)) {
        std::cout << "  " << note << "\n";
    }
}

} // namespace

void print_workload_table(const std::vector<Run>& runs, std::size_t first)
{
    const auto& info = runs[first].job.info;
    const std::span<const Run> workload_runs = std::span(runs).subspan(first);
    std::cout << "\n" << info.name << "  " << describe_settings(info, runs[first].job.settings.values()) << "\n";
    const auto devices = device_properties_of(runs);
    print_runs_table(workload_runs, devices);
    print_extras_table(info.name, workload_runs);
    print_roofline_table(info.name, workload_runs, devices);
    // A distributed run's exchanges between its ranks, and the path each took.
    for (const auto& run : workload_runs) {
        if (!run.measurement.exchanges.empty()) {
            std::cout << "  exchanges on " << run.job.label << " (" << run.job.variant
                      << "): " << run.measurement.exchanges << "\n";
        }
    }
}

void print_pairs_table(const std::vector<ApiPair>& pairs)
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

void print_bench_table(const Benchmark& bench)
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
        if (!point.measured()) {
            table.add_row_with_text(std::move(cells), to_string(point.status) + ": " + headline(point.reason, 120));
            continue;
        }
        cells.insert(cells.end(),
                     {format::milliseconds(workload::summarize(point.kernel_ms).median), spread(point.kernel_ms),
                      format::milliseconds(workload::summarize(point.total_ms).median),
                      format::rate(workload::summarize(point.rate).median),
                      point.verified ? format::error(point.max_error) : "-",
                      point.status == Status::ok      ? "ok"
                      : point.status == Status::wrong ? "WRONG"
                                                      : "FAILED"});
        table.add_row(std::move(cells));
    }
    table.print(std::cout);
    if (std::any_of(bench.points.begin(), bench.points.end(), [](const Point& point) { return point.overlapped; })) {
        std::cout << "\n" << overlap_note << "\n";
    }
}

} // namespace duet::cli
