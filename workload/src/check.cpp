// One run and its verdict; agreement across devices and across variants.
#include <duet/workload/check.hpp>

#include <duet/error.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <new>
#include <optional>

namespace duet::workload {

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

std::string job_name(const Job& job)
{
    return job.info.name + "/" + job.variant + " on " + job.label;
}

Run execute(const Job& job, bool verify)
{
    Run run{job, Status::ok, {}, {}, {}, {}};
    try {
        run.measurement =
            run_within_limits(*job.workload, {job.device, job.variant, job.settings, verify, job.seed, job.timing});
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
        run.reason = "differs from the CPU reference by " + error_text(m.max_error) + " (tolerance " +
                     error_text(m.tolerance) + (m.tolerance_reason.empty() ? "" : ": " + m.tolerance_reason) +
                     "): " + m.agreement.describe();
    }
    return run;
}

namespace {

void add_reason(Run& run, const std::string& reason)
{
    run.reason += (run.reason.empty() ? "" : "; ") + reason;
}

/// The run the others are compared with: the first that matches the reference; if none does,
/// the first measured, since the runs may still agree with each other, which says the reference
/// is what is off.
Run* baseline_of(const std::vector<Run*>& runs)
{
    const auto ok = std::find_if(runs.begin(), runs.end(), [](const Run* run) { return run->status == Status::ok; });
    if (ok != runs.end()) {
        return *ok;
    }
    const auto measured = std::find_if(runs.begin(), runs.end(), [](const Run* run) { return run->measured(); });
    return measured != runs.end() ? *measured : nullptr;
}

/// `run`'s output against `base`'s, into `slot`; a difference beyond both tolerances makes it wrong.
void judge(Run& run, const Run& base, Comparison& slot, const std::string& with)
{
    slot.with = with;
    slot.allowed = base.measurement.tolerance + run.measurement.tolerance;
    slot.agreement = compare(run.measurement.output, base.measurement.output, slot.allowed, run.measurement.output_shape);
    if (slot.agreement.size_mismatch) {
        run.status = Status::wrong;
        add_reason(run, "its output has " + std::to_string(run.measurement.output.size()) + " values, " + with +
                            "'s has " + std::to_string(base.measurement.output.size()));
    } else if (!(slot.agreement.max_error <= slot.allowed)) {
        run.status = Status::wrong;
        add_reason(run, "differs from " + with + " by " + error_text(slot.agreement.max_error) + " (allowed " +
                            error_text(slot.allowed) + "): " + slot.agreement.describe());
    }
}

} // namespace

void cross_check_devices(std::vector<Run*> runs)
{
    Run* base = baseline_of(runs);
    for (Run* run : runs) {
        if (base != nullptr && run != base && run->measured()) {
            judge(*run, *base, run->device, base->job.label);
        }
    }
}

void cross_check_variants(std::vector<Run*> runs)
{
    Run* base = baseline_of(runs);
    for (Run* run : runs) {
        if (base != nullptr && run != base && run->measured() &&
            run->measurement.output.size() == base->measurement.output.size()) {
            judge(*run, *base, run->variant, base->job.variant);
        }
    }
}

void cross_check(std::vector<Run>::iterator begin, std::vector<Run>::iterator end)
{
    std::vector<std::string> variants, devices;
    for (auto run = begin; run != end; ++run) {
        if (std::find(variants.begin(), variants.end(), run->job.variant) == variants.end()) {
            variants.push_back(run->job.variant);
        }
        if (std::find(devices.begin(), devices.end(), run->job.label) == devices.end()) {
            devices.push_back(run->job.label);
        }
    }
    const auto group = [&](auto&& member) {
        std::vector<Run*> runs;
        for (auto run = begin; run != end; ++run) {
            if (member(*run)) {
                runs.push_back(&*run);
            }
        }
        return runs;
    };
    for (const auto& variant : variants) {
        cross_check_devices(group([&](const Run& run) { return run.job.variant == variant; }));
    }
    for (const auto& device : devices) {
        cross_check_variants(group([&](const Run& run) { return run.job.label == device; }));
    }
    for (auto run = begin; run != end; ++run) {
        std::vector<float>().swap(run->measurement.output);
    }
}

std::vector<Run> run_test_case(const std::shared_ptr<const Workload>& workload, std::size_t test_case,
                               const std::vector<std::string>& variants,
                               const std::vector<std::pair<Device, std::string>>& devices, std::uint64_t seed)
{
    const WorkloadInfo info = workload->info();
    const auto& values = info.test_cases.at(test_case);
    std::vector<Run> runs;
    std::string invalid;
    std::optional<Settings> settings;
    try {
        settings.emplace(info, values);
    } catch (const InvalidArgument& error) {
        invalid = "test case " + std::to_string(test_case) + " is not valid: " + error.message();
    }
    for (const auto& variant : variants) {
        for (const auto& [device, label] : devices) {
            if (!settings) {
                Job job{workload, info, variant, Settings(info, {}), device, label, seed, Timing::once()};
                runs.push_back({std::move(job), Status::failed, invalid, {}, {}, {}});
                continue;
            }
            runs.push_back(execute({workload, info, variant, *settings, device, label, seed, Timing::once()}, true));
        }
    }
    cross_check(runs.begin(), runs.end());
    return runs;
}

} // namespace duet::workload
