// One run and its verdict; cross-device agreement; CUDA/OpenCL pairs on one GPU.
#include "runs.hpp"

#include "commands.hpp"

#include "environment.hpp"
#include "format.hpp"
#include "options.hpp"
#include "workloads.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <new>

namespace duet::cli {

std::string to_string(Status status)
{
    switch (status) {
    case Status::ok:
        return "ok";
    case Status::wrong:
        return "wrong";
    case Status::unsupported:
        return "unsupported";
    case Status::failed:
        break;
    }
    return "failed";
}

std::vector<std::string> extra_names(std::span<const Run> runs)
{
    std::vector<std::string> names;
    for (const auto& run : runs) {
        for (const auto& [name, value] : run.measurement.extras) {
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                names.push_back(name);
            }
        }
    }
    return names;
}

std::optional<double> extra(const Measurement& measurement, const std::string& name)
{
    for (const auto& [key, value] : measurement.extras) {
        if (key == name) {
            return value;
        }
    }
    return std::nullopt;
}

std::string rate_unit(Measurement::Unit unit)
{
    return unit == Measurement::Unit::flops ? "GFLOP/s" : "GB/s";
}

std::string rate_name(const Measurement& measurement)
{
    return measurement.rate_ms > 0 ? "copy rate" : "kernel rate";
}

std::string common_rate_name(const std::vector<std::string>& names)
{
    const bool shared = !names.empty() && std::all_of(names.begin(), names.end(),
                                                      [&](const std::string& name) { return name == names.front(); });
    return shared ? names.front() : "rate";
}

bool phases_overlap(const Measurement& measurement)
{
    // Phases timed one after another add up to the whole run, up to rounding.
    const double phases = measurement.h2d_ms + measurement.kernel_ms + measurement.d2h_ms;
    return phases > measurement.total_ms * (1 + 1e-9);
}

const std::string overlap_note =
    "Where phases overlap (matmul's schedule=overlapped: one queue per product; bandwidth's direction=both), each "
    "phase's time is summed over the queues it ran on, while total is the wall time of the whole run, first copy in "
    "to last copy out: so a phase, the kernel time included, can exceed the total.";

std::string job_name(const Job& job)
{
    return job.info.name + "/" + job.variant + " on " + job.label;
}

std::string outcome(const std::string& name, Status status, const std::string& reason)
{
    const bool named = status == Status::failed || status == Status::unsupported;
    return name + ": " + (named ? to_string(status) + ": " : "") + reason;
}

Run execute(const Job& job, bool verify)
{
    Run run{job, Status::ok, {}, {}, {}, 0, 0};
    try {
        run.measurement = run_within_limits(*job.workload, {job.device, job.variant, job.settings, verify, job.seed});
    } catch (const Unsupported& error) {
        run.status = Status::unsupported;
        run.reason = error.message();
        return run;
    } catch (const OutOfMemory& error) {
        // Too large for this device or this host, as asked: refused, like a feature it lacks.
        run.status = Status::unsupported;
        run.reason = error.message();
        return run;
    } catch (const std::bad_alloc&) {
        run.status = Status::failed;
        run.reason = "the host ran out of memory (std::bad_alloc) although the run's footprint fitted";
        return run;
    } catch (const std::exception& error) {
        run.status = Status::failed;
        run.reason = error.what();
        return run;
    }
    const auto& m = run.measurement;
    if (verify && !m.verified) {
        run.status = Status::wrong;
        run.reason = "the workload did not check its result against the CPU reference";
    } else if (verify && !m.matches_reference()) {
        run.status = Status::wrong;
        run.reason = "differs from the CPU reference by " + format::error(m.max_error) + " (tolerance " +
                     format::error(m.tolerance) + (m.tolerance_reason.empty() ? "" : ": " + m.tolerance_reason) + ")";
    }
    return run;
}

Run measure(const Job& job, unsigned warmup)
{
    for (unsigned i = 0; i < warmup; ++i) {
        if (auto run = execute(job, false); run.status != Status::ok) {
            return run;
        }
    }
    return execute(job, true);
}

namespace {

void add_reason(Run& run, const std::string& reason)
{
    run.reason += (run.reason.empty() ? "" : "; ") + reason;
}

} // namespace

void cross_check(std::vector<Run>::iterator begin, std::vector<Run>::iterator end)
{
    // Prefer a baseline that matches the reference; if none does, the devices may still agree
    // with each other, which says the reference is what is off.
    auto baseline = std::find_if(begin, end, [](const Run& run) { return run.status == Status::ok; });
    if (baseline == end) {
        baseline = std::find_if(begin, end, [](const Run& run) { return run.measured(); });
    }
    if (baseline != end) {
        const auto& expected = baseline->measurement.output;
        for (auto run = begin; run != end; ++run) {
            if (run == baseline || !run->measured()) {
                continue;
            }
            const auto& got = run->measurement.output;
            run->baseline = baseline->job.label;
            run->allowed = baseline->measurement.tolerance + run->measurement.tolerance;
            if (got.size() != expected.size()) {
                run->difference = std::numeric_limits<double>::infinity();
                run->status = Status::wrong;
                add_reason(*run, "its output has " + std::to_string(got.size()) + " values, " + baseline->job.label +
                                     "'s has " + std::to_string(expected.size()));
                continue;
            }
            run->difference = workload::compare(got, expected, run->allowed).max_error;
            if (!(run->difference <= run->allowed)) {
                run->status = Status::wrong;
                add_reason(*run, "differs from " + baseline->job.label + " by " + format::error(run->difference) +
                                     " (allowed " + format::error(run->allowed) + ")");
            }
        }
    }
    for (auto run = begin; run != end; ++run) {
        std::vector<float>().swap(run->measurement.output);
    }
}

std::vector<ApiPair> api_pairs(const std::vector<Run>& runs)
{
    std::vector<ApiPair> pairs;
    for (const auto& cuda : runs) {
        const auto& gpu = cuda.job.device.properties();
        if (!cuda.measured() || cuda.job.device.backend() != "cuda" || gpu.pci_bus_id.empty()) {
            continue;
        }
        for (const auto& opencl : runs) {
            if (opencl.measured() && opencl.job.device.backend() == "opencl" &&
                opencl.job.device.properties().pci_bus_id == gpu.pci_bus_id &&
                opencl.job.info.name == cuda.job.info.name && opencl.job.variant == cuda.job.variant) {
                // No ratio where a phase does not exist (a copy has no kernel phase).
                const auto ratio = [](double opencl_ms, double cuda_ms) {
                    return cuda_ms > 0 && opencl_ms > 0 ? opencl_ms / cuda_ms
                                                        : std::numeric_limits<double>::quiet_NaN();
                };
                pairs.push_back({cuda.job.info.name, cuda.job.variant, gpu.name, gpu.pci_bus_id, cuda.job.label,
                                 opencl.job.label, ratio(opencl.measurement.kernel_ms, cuda.measurement.kernel_ms),
                                 ratio(opencl.measurement.total_ms, cuda.measurement.total_ms)});
            }
        }
    }
    return pairs;
}

Verdict::Verdict(std::string noun, std::string agreement) : noun_(std::move(noun)), agreement_(std::move(agreement)) {}

void Verdict::add(const std::string& name, Status status, const std::string& reason)
{
    ++total_;
    switch (status) {
    case Status::ok:
        ++ok_;
        return;
    case Status::wrong:
        ++wrong_;
        run_problems_.push_back(outcome(name, status, reason));
        return;
    case Status::unsupported:
        ++unsupported_;
        unsupported_runs_.push_back(outcome(name, status, reason));
        return;
    case Status::failed:
        ++failed_;
        run_problems_.push_back(outcome(name, status, reason));
        return;
    }
}

void Verdict::add_problem(std::string problem)
{
    other_problems_.push_back(std::move(problem));
}

std::vector<std::string> Verdict::problems() const
{
    std::vector<std::string> all = other_problems_;
    if (checked() == 0) {
        // No result was judged, so nothing can be said to agree; the reasons are the answer.
        all.push_back("nothing was checked: " +
                      (total_ == 0 ? "there was no " + noun_ + " to run" : "no " + noun_ + " produced a result"));
        all.insert(all.end(), unsupported_runs_.begin(), unsupported_runs_.end());
    }
    all.insert(all.end(), run_problems_.begin(), run_problems_.end());
    return all;
}

std::string Verdict::summary() const
{
    std::string text = format::count(total_, noun_) + ": " + std::to_string(checked()) + " checked";
    if (wrong_ > 0) {
        text += " (" + std::to_string(wrong_) + " wrong)";
    }
    if (unsupported_ > 0) {
        text += ", " + std::to_string(unsupported_) + " unsupported";
    }
    if (failed_ > 0) {
        text += ", " + std::to_string(failed_) + " failed";
    }
    const auto found = problems();
    if (checked() == 0) {
        return text + ". Nothing was checked.";
    }
    if (found.empty()) {
        return text + ". All " + agreement_ + ".";
    }
    return text + ". " + format::count(found.size(), "problem") + ".";
}

json::Value Verdict::counts_json() const
{
    return json::Object{{"total", total_}, {"checked", checked()},        {"ok", ok_},
                        {"wrong", wrong_}, {"unsupported", unsupported_}, {"failed", failed_}};
}

int exit_code(const Verdict& verdict)
{
    const auto problems = verdict.problems();
    if (problems.empty()) {
        return exit_ok;
    }
    std::cerr << "duet: " << verdict.summary() << "\n";
    for (const auto& problem : problems) {
        std::cerr << "  " << problem << "\n";
    }
    return exit_wrong;
}

Device select_device(const std::string& selector)
{
    const auto& registry = Registry::global();
    try {
        return selector.empty() ? registry.default_device() : registry.select(selector);
    } catch (const NotFound& error) {
        throw UsageError(error.message());
    } catch (const Unavailable& error) {
        throw UsageError(error.message());
    }
}

std::vector<std::pair<Device, std::string>> pick_devices(const std::vector<std::string>& selectors)
{
    const auto& registry = Registry::global();
    std::vector<Device> devices;
    if (selectors.empty()) {
        devices = registry.devices();
        if (devices.empty()) {
            std::string reasons;
            for (const auto& backend : registry.backends()) {
                reasons += "\n  " + backend.name + ": " + (backend.loaded ? "no devices" : backend.reason);
            }
            throw UsageError("no device to run on:" + reasons);
        }
    }
    for (const auto& selector : selectors) {
        devices.push_back(select_device(selector));
    }
    std::vector<std::pair<Device, std::string>> picked;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const auto first = std::find(devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(i), devices[i]);
        if (first != devices.begin() + static_cast<std::ptrdiff_t>(i)) {
            const auto earlier = static_cast<std::size_t>(first - devices.begin());
            throw UsageError("--devices names " + device_title(devices[i]) + " twice ('" + selectors[earlier] +
                             "' and '" + selectors[i] + "'); a device compared with itself proves nothing");
        }
        picked.emplace_back(devices[i], devices[i].selector());
    }
    return picked;
}

json::Value run_json(const Run& run)
{
    const auto& m = run.measurement;
    const auto measured = [&](double value) { return run.measured() ? json::Value(value) : json::Value(); };
    json::Object extras;
    for (const auto& [name, value] : m.extras) {
        extras.emplace_back(name, value);
    }
    const bool compared = !run.baseline.empty();
    return json::Object{{"workload", run.job.info.name},
                        {"variant", run.job.variant},
                        {"settings", settings_json(run.job.info, run.job.settings.values())},
                        {"device", run.job.label},
                        {"selector", run.job.device.selector()},
                        {"device_name", run.job.device.properties().name},
                        {"api", api_label(run.job.device)},
                        {"status", to_string(run.status)},
                        {"reason", run.reason},
                        {"h2d_ms", measured(m.h2d_ms)},
                        {"kernel_ms", measured(m.kernel_ms)},
                        {"d2h_ms", measured(m.d2h_ms)},
                        {"total_ms", measured(m.total_ms)},
                        {"reference_ms", measured(m.reference_ms)},
                        {"rate", measured(m.rate())},
                        {"rate_unit", rate_unit(m.unit)},
                        {"work", measured(m.work)},
                        {"max_error", measured(m.max_error)},
                        {"tolerance", measured(m.tolerance)},
                        {"tolerance_reason", m.tolerance_reason},
                        {"baseline", run.baseline},
                        {"difference", compared ? json::Value(run.difference) : json::Value()},
                        {"allowed_difference", compared ? json::Value(run.allowed) : json::Value()},
                        {"extras", std::move(extras)}};
}

json::Value pair_json(const ApiPair& pair)
{
    return json::Object{
        {"workload", pair.workload},         {"variant", pair.variant},        {"gpu", pair.gpu},
        {"pci_bus_id", pair.pci_bus_id},     {"cuda", pair.cuda_label},        {"opencl", pair.opencl_label},
        {"kernel_ratio", pair.kernel_ratio}, {"total_ratio", pair.total_ratio}};
}

} // namespace duet::cli
