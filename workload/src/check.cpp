// One run and its verdict; agreement across devices and across variants.
#include <duet/workload/check.hpp>

#include <duet/error.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <new>
#include <optional>
#include <tuple>

namespace duet::workload {

namespace {

void add_reason(Run& run, const std::string& reason)
{
    run.reason += (run.reason.empty() ? "" : "; ") + reason;
}

} // namespace

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
    } catch (...) {
        // A workload not from the registry, whose guard would have named the call, threw it.
        run.status = Status::failed;
        run.reason = foreign_exception_text(job.info.name, "");
        return run;
    }
    const auto& m = run.measurement;
    if (verify && m.writes.unwritten > 0) {
        // Whatever else agrees: an element no pass wrote holds no result.
        run.status = Status::wrong;
        run.reason = m.writes.describe(m.output_shape);
    }
    if (verify && !m.verified && job.info.has_reference) {
        run.status = Status::wrong;
        add_reason(run, "the workload did not check its result against " + job.info.reference);
    } else if (verify && m.verified && !(m.max_error <= m.tolerance)) {
        run.status = Status::wrong;
        add_reason(run, "differs from " + job.info.reference + " by " + error_text(m.max_error) + " (tolerance " +
                            error_text(m.tolerance) + (m.tolerance_reason.empty() ? "" : ": " + m.tolerance_reason) +
                            "): " + m.agreement.describe());
    }
    return run;
}

namespace {

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

/// Where either of two runs left an element unwritten: already its run's failure, and no value
/// to compare.
std::vector<bool> unwritten_in_either(const Measurement& a, const Measurement& b)
{
    if (a.writes.mask.empty() || b.writes.mask.empty() || a.writes.mask.size() != b.writes.mask.size()) {
        return a.writes.mask.empty() ? b.writes.mask : a.writes.mask;
    }
    std::vector<bool> either = a.writes.mask;
    for (std::size_t i = 0; i < either.size(); ++i) {
        either[i] = either[i] || b.writes.mask[i];
    }
    return either;
}

/// `run`'s output against `base`'s, into `slot`; a difference beyond both tolerances makes it
/// wrong. Whether the two agree.
bool judge(Run& run, const Run& base, Comparison& slot, const std::string& with)
{
    const auto& [mine, theirs] = std::tie(run.measurement.output, base.measurement.output);
    slot.with = with;
    slot.allowed = base.measurement.tolerance + run.measurement.tolerance;
    std::vector<bool> skip;
    if (mine.size() == theirs.size()) {
        skip = unwritten_in_either(run.measurement, base.measurement);
    }
    slot.agreement = compare(mine, theirs, slot.allowed, run.measurement.output_shape,
                             skip.size() == mine.size() ? skip : std::vector<bool>{});
    if (slot.agreement.size_mismatch || slot.agreement.type_mismatch) {
        run.status = Status::wrong;
        add_reason(run, "its output has " + std::to_string(mine.size()) + " " + std::string(to_string(mine.type())) +
                            " values, " + with + "'s has " + std::to_string(theirs.size()) + " " +
                            std::string(to_string(theirs.type())));
        return false;
    }
    if (!(slot.agreement.max_error <= slot.allowed)) {
        run.status = Status::wrong;
        add_reason(run, "differs from " + with + " by " + error_text(slot.agreement.max_error) + " (allowed " +
                            error_text(slot.allowed) + "): " + slot.agreement.describe());
        return false;
    }
    return true;
}

/// One group of runs against its baseline, into each run's `slot`, named by `name_of` the base.
/// Where `same_length_only`, runs whose output length or element type differs from the base's are
/// left alone. The base's own slot names the ok runs that agreed with it over at least one
/// element (the widest difference among them): they are what checked it where nothing else does.
/// Without a reference, a base none of them confirmed and the runs that differ from it are all
/// wrong: which is right depends on nothing but the order of the devices.
void cross_check_group(const std::vector<Run*>& runs, Comparison Run::*slot, const std::string& (*name_of)(const Run&),
                       bool same_length_only)
{
    Run* base = baseline_of(runs);
    if (base == nullptr) {
        return;
    }
    Comparison& own = base->*slot;
    std::vector<Run*> differing;
    for (Run* run : runs) {
        if (run != base && run->measured() &&
            (!same_length_only || (run->measurement.output.size() == base->measurement.output.size() &&
                                   run->measurement.output.type() == base->measurement.output.type()))) {
            own.base = true;
            const Comparison& theirs = run->*slot;
            if (!judge(*run, *base, run->*slot, name_of(*base))) {
                differing.push_back(run);
            } else if (run->status == Status::ok && theirs.agreement.count > 0) {
                if (!own.confirmed() || theirs.agreement.max_error > own.agreement.max_error) {
                    own.agreement = theirs.agreement;
                    own.allowed = theirs.allowed;
                }
                own.confirmed_by += (own.confirmed_by.empty() ? "" : ", ") + name_of(*run);
            }
        }
    }
    if (base->job.info.has_reference || base->status != Status::ok || own.confirmed() || differing.empty()) {
        return;
    }
    std::string others;
    double widest = 0;
    for (Run* run : differing) {
        others += (others.empty() ? "" : ", ") + name_of(*run);
        widest = std::max(widest, (run->*slot).agreement.max_error);
        add_reason(*run, "the workload has no reference to tell whether it or " + name_of(*base) + " is right");
    }
    base->status = Status::wrong;
    add_reason(*base, "differs from " + others + " by " + error_text(widest) +
                          ", and the workload has no reference to tell which is right");
}

const std::string& label_of(const Run& run)
{
    return run.job.label;
}
const std::string& variant_of(const Run& run)
{
    return run.job.variant;
}

} // namespace

void cross_check(std::vector<Run>::iterator begin, std::vector<Run>::iterator end)
{
    // Each group: the runs that share a key (a variant, or a device), in order.
    const auto groups = [&](const std::string& (*key_of)(const Run&)) {
        std::vector<std::pair<std::string, std::vector<Run*>>> found;
        for (auto run = begin; run != end; ++run) {
            auto group =
                std::find_if(found.begin(), found.end(), [&](const auto& g) { return g.first == key_of(*run); });
            if (group == found.end()) {
                group = found.insert(found.end(), {key_of(*run), {}});
            }
            group->second.push_back(&*run);
        }
        return found;
    };
    for (const auto& [variant, runs] : groups(variant_of)) {
        cross_check_group(runs, &Run::device, label_of, false);
    }
    for (const auto& [device, runs] : groups(label_of)) {
        cross_check_group(runs, &Run::variant, variant_of, true);
    }
    for (auto run = begin; run != end; ++run) {
        if (run->status == Status::ok && !run->job.info.has_reference && !run->cross_checked()) {
            run->status = Status::failed;
            run->reason = run->device.base || run->variant.base || run->device.compared() || run->variant.compared()
                              ? "nothing checked its output: the workload has no reference, and no other device or "
                                "variant that ran it was checked against it (each is wrong, or had no element "
                                "written to compare)"
                              : "nothing checked its output: the workload has no reference, and no other device or "
                                "variant ran it";
        }
        run->measurement.output.release();
        std::vector<bool>().swap(run->measurement.writes.mask);
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
