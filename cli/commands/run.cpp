// `duet run <workload>`: one variant on one device, checked against the CPU reference, with
// every phase's device time.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/devices.hpp"
#include "model/environment.hpp"
#include "model/ranks.hpp"
#include "model/runs.hpp"
#include "model/workloads.hpp"
#include "render/describe.hpp"
#include "render/environment.hpp"
#include "render/format.hpp"
#include "render/records.hpp"
#include "render/table.hpp"

#include <cstdint>
#include <iostream>
#include <vector>

namespace duet::cli {

namespace {

void print_run(const Run& run)
{
    const auto& job = run.job;
    const auto& m = run.measurement;
    std::cout << job.info.name << "/" << job.variant << " on " << device_title(job.device) << " ["
              << api_label(job.device) << ", driver " << job.device.properties().driver_version << "]\n"
              << "settings: " << describe_settings(job.info, job.settings.values()) << "; seed " << job.seed << "\n"
              << "timing: " << describe_timing(job.timing) << "\n\n";
    if (!run.measured()) {
        std::cout << to_string(run.status) << ": " << run.reason << "\n";
        return;
    }
    const std::string rate = format::rate(m.rate()) + " " + rate_unit(m.unit);
    const bool copy_rate = m.rate_ms > 0;
    Table table({{"phase"},
                 {"median ms", Table::Align::right},
                 {"median's 95% interval", Table::Align::right},
                 {"quartiles", Table::Align::right},
                 {"min", Table::Align::right},
                 {"max", Table::Align::right},
                 {"rate, clock"}});
    const auto row = [&](const std::string& phase, const workload::Summary& summary, const std::string& note) {
        table.add_row({phase, format::milliseconds(summary.median),
                       format::milliseconds(summary.low) + " - " + format::milliseconds(summary.high),
                       format::milliseconds(summary.q1) + " - " + format::milliseconds(summary.q3),
                       format::milliseconds(summary.min), format::milliseconds(summary.max), note});
    };
    row("host→device", m.summary(Phase::h2d), "");
    // A workload that times copies instead of a kernel has no kernel row to put its rate on.
    if (!copy_rate || m.kernel_ms > 0) {
        row("kernel", m.summary(Phase::kernel), copy_rate ? "" : rate_name(m) + " " + rate);
    }
    row("device→host", m.summary(Phase::d2h), "");
    row("total", m.total_summary(), "first copy in to last copy out, device clock (less a spacer)");
    if (copy_rate) {
        row(rate_name(m), m.rate_summary(), rate);
    }
    for (const auto& [name, ms] :
         m.samples.empty() ? std::vector<std::pair<std::string, double>>{} : m.samples.front().extra_phases) {
        row(name, m.summary(name),
            name == "spacer" ? "duet's, queued before the launch; not in the total (README: Timing)"
                             : "an extra phase of this workload");
    }
    if (m.verified) {
        // "CPU reference", "reference kernels": what checked the run, as a row.
        const std::string& reference = job.info.reference;
        table.add_row({reference.starts_with("the ") ? reference.substr(4) : reference,
                       format::milliseconds(m.reference_ms), "", "", "", "", "host clock"});
    }
    for (const auto& [name, value] : m.extras) {
        table.add_row({name, format::figure(value), "", "", "", "", ""});
    }
    table.print(std::cout);
    if (phases_overlap(m)) {
        std::cout << "\n" << overlap_note << "\n";
    }
    std::cout << "\n"
              << m.samples.size() << (m.samples.size() == 1 ? " timed pass" : " timed passes")
              << (m.writes.checked ? ", then an untimed check pass" : "") << "\n";
    if (m.writes.checked) {
        std::cout << "written: the sentinels past each output held both passes' poison; "
                  << (m.writes.judged == 0 && m.writes.unwritten == 0
                          ? "the outputs start with values (in place), so only the sentinels say what was written"
                          : m.writes.describe(m.output_shape))
                  << "\n";
    }
    if (m.verified) {
        std::cout << "against " << job.info.reference << ": " << m.agreement.describe() << "\nmax error "
                  << format::error(m.max_error) << ", tolerance " << format::error(m.tolerance)
                  << (m.tolerance_reason.empty() ? "" : ": " + m.tolerance_reason) << "\n";
    } else if (job.info.has_reference) {
        std::cout << "against " << job.info.reference << ": not compared; " << job.info.name
                  << " has a reference, but the run did not check its values against it\n";
    } else {
        std::cout << "against the CPU reference: none; " << job.info.name
                  << " has no reference, so nothing compared the values\n";
    }
    std::cout << (run.status == Status::ok      ? "result: matches " + job.info.reference
                  : run.status == Status::wrong ? "result: WRONG: " + run.reason
                                                : "result: " + to_string(run.status) + ": " + run.reason)
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
    Device device = select_device(arguments.value("device").value_or(""));
    if (Ranks* distributed = ranks()) {
        device = distributed->take(device).first; // under mpirun: this rank's device in its place
    }
    const auto build_flags = build_flags_from(arguments);
    const Job job{workload,
                  info,
                  variant,
                  make_settings(info, arguments.assignments("set")),
                  device,
                  device.selector(),
                  seed,
                  timing_from(arguments),
                  build_flags_for(build_flags, device)};
    auto outputs = Outputs::open(arguments);
    if (outputs.table && !job.build_flags.empty()) {
        std::cout << describe_build_flags({{device.backend(), job.build_flags}}) << "\n";
    }

    // One run has no other device or variant to check it: without a reference, nothing does.
    std::vector<Run> runs{execute(job, true)};
    cross_check(runs.begin(), runs.end());
    const Run& run = runs.front();
    if (outputs.table) {
        print_run(run);
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
            return json::document(json::Object{{"schema", "duet.run/2"},
                                               {"environment", environment_json(Registry::global())},
                                               {"warmup", job.timing.warmup},
                                               {"timing", timing_json(job.timing)},
                                               {"run", run_json(run)}});
        },
        {}, {});
    return code;
}

} // namespace duet::cli
