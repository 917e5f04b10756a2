// One run and its verdict; agreement across devices and across variants.
#include <duet/workload/check.hpp>
#include <duet/workload/communicator.hpp>

#include <duet/build_options_scope.hpp>
#include <duet/error.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
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

namespace {

/// The devices whose runs are one rank of a distributed run, with their communicators.
struct Distributed {
    std::mutex mutex;
    std::map<const void*, Communicator*> communicators;
};

Distributed& distributed()
{
    static Distributed instance;
    return instance;
}

Communicator* communicator_of(const Device& device)
{
    Distributed& all = distributed();
    const std::lock_guard lock(all.mutex);
    const auto found = all.communicators.find(device.state().get());
    return found == all.communicators.end() ? nullptr : found->second;
}

} // namespace

void set_communicator(const Device& device, Communicator* communicator)
{
    Distributed& all = distributed();
    const std::lock_guard lock(all.mutex);
    if (communicator == nullptr) {
        all.communicators.erase(device.state().get());
    } else {
        all.communicators[device.state().get()] = communicator;
    }
}

Run execute(const Job& job, bool verify)
{
    Run run{job, Status::ok, {}, {}, {}, {}};
    // A rule of this variant's own: the settings are not for it, as a limit it lacks would be.
    // (Settings that break a rule of every variant are an error, found when they are made.)
    if (const auto broken = job.settings.broken_own_rule(job.info, job.variant)) {
        run.status = Status::unsupported;
        run.reason = "skipped: " + *broken;
        return run;
    }
    try {
        std::optional<BuildOptionsScope> scope;
        if (!job.build_flags.empty()) {
            scope.emplace(job.device, job.build_flags);
        }
        run.measurement = run_within_limits(*job.workload, {job.device, job.variant, job.settings, verify, job.seed,
                                                            job.timing, communicator_of(job.device)});
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

/// `run`'s output against `base`'s, into `slot`: why the two differ beyond both tolerances, or
/// empty where they agree. A NaN in both is a difference: neither is a reference that expects it.
std::string difference(const Run& run, const Run& base, Comparison& slot, const std::string& with)
{
    const auto& [mine, theirs] = std::tie(run.measurement.output, base.measurement.output);
    slot.with = with;
    slot.allowed = base.measurement.tolerance + run.measurement.tolerance;
    std::vector<bool> skip = unwritten_in_either(run.measurement, base.measurement);
    if (skip.size() != mine.size()) {
        skip.clear(); // outputs of other sizes: compare reports the mismatch before it reads the mask
    }
    slot.agreement = compare(mine, theirs, slot.allowed, run.measurement.output_shape, skip, false);
    if (slot.agreement.size_mismatch || slot.agreement.type_mismatch) {
        return "its output has " + std::to_string(mine.size()) + " " + std::string(to_string(mine.type())) +
               " values, " + with + "'s has " + std::to_string(theirs.size()) + " " +
               std::string(to_string(theirs.type()));
    }
    if (!(slot.agreement.max_error <= slot.allowed)) {
        return "differs from " + with + " by " + error_text(slot.agreement.max_error) + " (allowed " +
               error_text(slot.allowed) + "): " + slot.agreement.describe();
    }
    return "";
}

/// Two ok runs of a workload without a reference, compared over at least one element (or found
/// to differ in length or type), each named as its group names it.
struct Pairing {
    Run* first;
    Run* second;
    std::string first_name, second_name;
    bool agree;
    double error;
};

/// One group of runs against its baseline, into each run's `slot`, named by `name_of` the base.
/// Where `same_length_only`, runs whose output length or element type differs from the base's are
/// left alone. The base's own slot names the ok runs that agreed with it over at least one
/// element (the widest difference among them): they are what checked it where nothing else does.
/// With a reference, a run that differs from the base is wrong; without one, every two ok runs
/// of the group are compared into `pairings`, and cross_check decides from all of them.
void cross_check_group(const std::vector<Run*>& runs, Comparison Run::*slot, const std::string& (*name_of)(const Run&),
                       bool same_length_only, std::vector<Pairing>& pairings)
{
    Run* base = baseline_of(runs);
    if (base == nullptr) {
        return;
    }
    const auto comparable = [&](const Run& a, const Run& b) {
        return !same_length_only || (a.measurement.output.size() == b.measurement.output.size() &&
                                     a.measurement.output.type() == b.measurement.output.type());
    };
    const bool has_reference = base->job.info.has_reference;
    Comparison& own = base->*slot;
    for (Run* run : runs) {
        if (run == base || !run->measured() || !comparable(*run, *base)) {
            continue;
        }
        own.base = true;
        const Comparison& theirs = run->*slot;
        const std::string why = difference(*run, *base, run->*slot, name_of(*base));
        if (!has_reference && base->status == Status::ok && run->status == Status::ok &&
            !(why.empty() && theirs.agreement.count == 0)) {
            // One of the pairs decide_by_majority weighs, compared here once.
            pairings.push_back({base, run, name_of(*base), name_of(*run), why.empty(), theirs.agreement.max_error});
        }
        if (!why.empty()) {
            if (has_reference) {
                run->status = Status::wrong;
                add_reason(*run, why);
            }
        } else if (run->status == Status::ok && theirs.agreement.count > 0) {
            if (!own.confirmed() || theirs.agreement.max_error > own.agreement.max_error) {
                own.agreement = theirs.agreement;
                own.allowed = theirs.allowed;
            }
            own.confirmed_by += (own.confirmed_by.empty() ? "" : ", ") + name_of(*run);
        }
    }
    if (has_reference) {
        return;
    }
    // The other pairs: the base's were compared above, and no ok run comes before it.
    for (auto first = runs.begin(); first != runs.end(); ++first) {
        for (auto second = std::next(first); second != runs.end(); ++second) {
            Run& a = **first;
            Run& b = **second;
            if (&a == base || a.status != Status::ok || b.status != Status::ok || !comparable(a, b)) {
                continue;
            }
            Comparison scratch;
            const bool agree = difference(b, a, scratch, name_of(a)).empty();
            if (agree && scratch.agreement.count == 0) {
                continue; // no element compared: neither checked the other
            }
            pairings.push_back({&a, &b, name_of(a), name_of(b), agree, scratch.agreement.max_error});
        }
    }
}

/// Verdicts without a reference, whatever the order of the runs: runs that agree (directly or
/// through others) form a group; among the runs compared with each other, the one largest group
/// is ok and the rest are wrong; where no group is the largest alone, all of them are wrong.
void decide_by_majority(const std::vector<Pairing>& pairings)
{
    std::map<Run*, Run*> compared_with, agreed_with; // union-find parents: clusters compared, groups that agree
    const auto root = [](std::map<Run*, Run*>& parent, Run* run) {
        while (parent.try_emplace(run, run).first->second != run) {
            run = parent[run] = parent[parent[run]];
        }
        return run;
    };
    for (const Pairing& pairing : pairings) {
        compared_with[root(compared_with, pairing.first)] = root(compared_with, pairing.second);
        root(agreed_with, pairing.first);
        root(agreed_with, pairing.second);
        if (pairing.agree) {
            agreed_with[root(agreed_with, pairing.first)] = root(agreed_with, pairing.second);
        }
    }
    std::map<Run*, std::map<Run*, std::size_t>> sizes; // per cluster, each group's size
    for (const auto& [run, parent] : std::map<Run*, Run*>(compared_with)) {
        ++sizes[root(compared_with, run)][root(agreed_with, run)];
    }
    std::map<Run*, Run*> majority; // per cluster, its largest group, or none where that is tied
    std::map<Run*, std::size_t> cluster_size;
    for (const auto& [cluster, groups] : sizes) {
        std::size_t largest = 0;
        for (const auto& [group, size] : groups) {
            cluster_size[cluster] += size;
            if (size > largest) {
                largest = size;
                majority[cluster] = group;
            } else if (size == largest) {
                majority[cluster] = nullptr;
            }
        }
    }
    std::map<Run*, std::pair<std::string, double>> differs; // each run: whom it differs from, and the widest
    for (const Pairing& pairing : pairings) {
        if (!pairing.agree) {
            for (const auto& [run, other] :
                 {std::pair{pairing.first, &pairing.second_name}, std::pair{pairing.second, &pairing.first_name}}) {
                auto& [names, widest] = differs[run];
                names += (names.empty() ? "" : ", ") + *other;
                widest = std::max(widest, pairing.error);
            }
        }
    }
    for (const auto& [run, parent] : std::map<Run*, Run*>(compared_with)) {
        Run* cluster = root(compared_with, run);
        Run* group = majority[cluster];
        if (group != nullptr && group == root(agreed_with, run)) {
            continue;
        }
        const auto& [names, widest] = differs[run];
        const std::string differing =
            "differs from " + (names.empty() ? "the runs compared with it" : names) + " by " + error_text(widest);
        run->status = Status::wrong;
        add_reason(*run, group != nullptr ? differing + ", and " + std::to_string(sizes[cluster][group]) + " of the " +
                                                std::to_string(cluster_size[cluster]) +
                                                " runs compared agree with each other, not with it (no reference)"
                                          : differing + ", and no reference can tell which is right (no group of "
                                                        "runs that agree outnumbers the others)");
    }
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
    std::vector<Pairing> pairings;
    for (const auto& [variant, runs] : groups(variant_of)) {
        cross_check_group(runs, &Run::device, label_of, false, pairings);
    }
    for (const auto& [device, runs] : groups(label_of)) {
        cross_check_group(runs, &Run::variant, variant_of, true, pairings);
    }
    decide_by_majority(pairings);
    const auto paired = [&](const Run& run) {
        return std::any_of(pairings.begin(), pairings.end(),
                           [&](const Pairing& p) { return p.first == &run || p.second == &run; });
    };
    for (auto run = begin; run != end; ++run) {
        if (run->status == Status::ok && !run->job.info.has_reference && !paired(*run)) {
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
                               const std::vector<std::pair<Device, std::string>>& devices, std::uint64_t seed,
                               const std::map<std::string, std::string>& build_flags)
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
            const auto flags = build_flags.find(device.backend());
            Job job{workload, info, variant,        settings ? *settings : Settings(info, {}),      device,
                    label,    seed, Timing::once(), flags == build_flags.end() ? "" : flags->second};
            if (!settings) {
                runs.push_back({std::move(job), Status::failed, invalid, {}, {}, {}});
                continue;
            }
            runs.push_back(execute(job, true));
        }
    }
    cross_check(runs.begin(), runs.end());
    return runs;
}

} // namespace duet::workload
