// CSV: quoting of fields, and compare's and bench's rows.
#include "render/csv.hpp"

#include "model/environment.hpp"
#include "model/workloads.hpp"
#include "render/format.hpp"

#include <algorithm>
#include <sstream>

namespace duet::cli::csv {

namespace {
std::string field(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos) {
        return text;
    }
    std::string out = "\"";
    for (const char c : text) {
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
}
} // namespace

void write_row(std::ostream& out, const std::vector<std::string>& fields)
{
    for (std::size_t i = 0; i < fields.size(); ++i) {
        out << (i == 0 ? "" : ",") << field(fields[i]);
    }
    out << "\n";
}

} // namespace duet::cli::csv

namespace duet::cli {

std::string comparison_csv(const Comparison& comparison)
{
    std::ostringstream out;
    const auto& build = build_info();
    csv::write_row(out, {"workload",
                         "variant",
                         "settings",
                         "device",
                         "device_name",
                         "api",
                         "driver_version",
                         "api_version",
                         "backend_version",
                         "status",
                         "reason",
                         "samples",
                         "h2d_ms",
                         "kernel_ms",
                         "kernel_ms_low",
                         "kernel_ms_high",
                         "d2h_ms",
                         "total_ms",
                         "total_ms_low",
                         "total_ms_high",
                         "reference_ms",
                         "rate",
                         "rate_unit",
                         "max_error",
                         "max_ulps",
                         "max_scaled_ulps",
                         "differing",
                         "tolerance",
                         "baseline",
                         "difference",
                         "allowed_difference",
                         "seed",
                         "duet_version",
                         "duet_commit",
                         "compiler",
                         "cuda_compiler"});
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
                             checked ? number(m.max_error) : "",
                             checked ? format::ulps(m.agreement.max_ulps) : "",
                             checked ? format::ulps(m.agreement.max_scaled_ulps) : "",
                             checked ? std::to_string(m.agreement.differing) : "",
                             number(m.tolerance),
                             run.device.with, // empty where not compared
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

namespace {

/// The names of the workload's own figures, in the order the points first give them.
std::vector<std::string> bench_extra_names(const Benchmark& bench)
{
    std::vector<std::string> names;
    for (const auto& point : bench.points) {
        for (const auto& [name, samples] : point.extras) {
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                names.push_back(name);
            }
        }
    }
    return names;
}

std::vector<std::string> bench_header(const Benchmark& bench, const std::vector<std::string>& extra_names)
{
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
    return header;
}

/// One point's row, in bench_header's columns.
std::vector<std::string> bench_row(const Benchmark& bench, const Point& point,
                                   const std::vector<std::string>& extra_names)
{
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
    const workload::Summary kernel = workload::summarize(point.kernel_ms), total = workload::summarize(point.total_ms),
                            rate = workload::summarize(point.rate);
    for (std::string field :
         {to_string(point.status), point.reason, std::to_string(point.kernel_ms.size()), number(kernel.median),
          number(kernel.min), number(kernel.max), number(kernel.q1), number(kernel.q3), number(total.median),
          number(total.min), number(total.max), number(workload::summarize(point.h2d_ms).median),
          number(workload::summarize(point.d2h_ms).median), number(rate.median), number(rate.min), number(rate.max),
          rate_unit(point.unit), point.verified ? number(point.max_error) : "", number(point.tolerance)}) {
        row.push_back(std::move(field));
    }
    for (const auto& name : extra_names) {
        const auto extra = std::find_if(point.extras.begin(), point.extras.end(),
                                        [&](const auto& existing) { return existing.first == name; });
        row.push_back(extra == point.extras.end() ? "" : format::exact(workload::summarize(extra->second).median));
    }
    const auto& build = build_info();
    for (std::string field : {std::to_string(bench.warmup), std::to_string(bench.seed), build.version, build.commit,
                              build.compiler, build.cuda_compiler}) {
        row.push_back(std::move(field));
    }
    return row;
}

} // namespace

std::string bench_csv(const Benchmark& bench)
{
    std::ostringstream out;
    const auto extra_names = bench_extra_names(bench);
    csv::write_row(out, bench_header(bench, extra_names));
    for (const auto& point : bench.points) {
        csv::write_row(out, bench_row(bench, point, extra_names));
    }
    return out.str();
}

} // namespace duet::cli
