// `duet run <workload>`: one variant on one device, checked against the CPU reference, with
// every phase's device time.
#include "commands.hpp"
#include "environment.hpp"
#include "format.hpp"
#include "output.hpp"
#include "runs.hpp"
#include "table.hpp"
#include "workloads.hpp"

#include <cstdint>
#include <iostream>

namespace duet::cli {

namespace {

void print_run(const Run& run, unsigned warmup)
{
    const auto& job = run.job;
    const auto& m = run.measurement;
    std::cout << job.info.name << "/" << job.variant << " on " << device_title(job.device) << " ["
              << api_label(job.device) << ", driver " << job.device.properties().driver_version << "]\n"
              << "settings: " << describe_settings(job.info, job.settings.values()) << "; seed " << job.seed << "; "
              << format::count(warmup, "warm-up run") << "\n\n";
    if (!run.measured()) {
        std::cout << to_string(run.status) << ": " << run.reason << "\n";
        return;
    }
    const std::string rate = format::rate(m.rate()) + " " + rate_unit(m.unit);
    const bool copy_rate = m.rate_ms > 0;
    Table table({{"phase"}, {"ms", Table::Align::right}, {"rate, clock"}});
    table.add_row({"host→device", format::milliseconds(m.h2d_ms), ""});
    // A workload that times copies instead of a kernel has no kernel row to put its rate on.
    if (!copy_rate || m.kernel_ms > 0) {
        table.add_row({"kernel", format::milliseconds(m.kernel_ms), copy_rate ? "" : rate_name(m) + " " + rate});
    }
    table.add_row({"device→host", format::milliseconds(m.d2h_ms), ""});
    table.add_row({"total", format::milliseconds(m.total_ms), "first copy in to last copy out, device clock"});
    if (copy_rate) {
        table.add_row({rate_name(m), format::milliseconds(m.rate_ms), rate});
    }
    table.add_row({"CPU reference", format::milliseconds(m.reference_ms), "host clock"});
    for (const auto& [name, value] : m.extras) {
        table.add_row({name, format::figure(value), ""});
    }
    table.print(std::cout);
    if (phases_overlap(m)) {
        std::cout << "\n" << overlap_note << "\n";
    }
    std::cout << "\nmax error " << format::error(m.max_error) << ", tolerance " << format::error(m.tolerance)
              << (m.tolerance_reason.empty() ? "" : ": " + m.tolerance_reason) << "\n"
              << (run.status == Status::ok ? "result: matches the CPU reference" : "result: WRONG: " + run.reason)
              << "\n";
}

} // namespace

int run_command(const Arguments& arguments)
{
    const auto workload = find_workload(arguments.positional().at(0));
    const auto info = workload->info();
    if (arguments.list("variant").size() > 1) {
        throw UsageError("duet run takes one --variant; `duet compare` runs several");
    }
    const auto variant = pick_variants(info, arguments.list("variant")).front();
    const auto seed = arguments.number("seed", 1, 0, UINT64_MAX);
    const auto warmup = static_cast<unsigned>(arguments.number("warmup", 1, 0, 1000));
    const Device device = select_device(arguments.value("device").value_or(""));
    const Job job{workload,          info, variant, make_settings(info, arguments.assignments("set")), device,
                  device.selector(), seed};
    auto outputs = Outputs::open(arguments);

    const Run run = measure(job, warmup);
    if (outputs.table) {
        print_run(run, warmup);
    }
    int code = exit_wrong;
    switch (run.status) {
    case Status::ok:
        code = exit_ok;
        break;
    case Status::unsupported:
        std::cerr << "duet: " << job_name(job) << " cannot run: " << run.reason << "\n";
        code = exit_usage;
        break;
    case Status::wrong:
    case Status::failed:
        std::cerr << "duet: " << outcome(job_name(job), run.status, run.reason) << "\n";
        break;
    }
    outputs.write(
        [&] {
            return json::Value(json::Object{{"schema", "duet.run/1"},
                                            {"environment", environment_json(Registry::global())},
                                            {"warmup", warmup},
                                            {"run", run_json(run)}})
                .document();
        },
        {}, {});
    return code;
}

} // namespace duet::cli
