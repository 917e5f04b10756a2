// Running a workload and judging it: one variant on one device against the CPU reference, the
// devices of one variant against each other, the variants on one device against each other, and
// a workload's declared test cases on every device and variant. What `duet compare`, `duet test`
// and the agreement test suite share.
#pragma once

#include <duet/workload.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace duet::workload {

enum class Status {
    ok,          ///< matches the reference (and, in a comparison, the other devices and variants)
    wrong,       ///< differs from the reference, from another device or from another variant
    unsupported, ///< the device cannot run this variant (duet::Unsupported, or too large): not a disagreement
    failed,      ///< the run threw an error
};
std::string to_string(Status status);

/// What to run: one variant of one workload, with its settings, on one device.
struct Job {
    std::shared_ptr<const Workload> workload;
    WorkloadInfo info;
    std::string variant;
    Settings settings;
    Device device;
    std::string label; ///< the device's selector, "opencl:0"
    std::uint64_t seed = 1;
    Timing timing;
    /// Flags every program the run builds gets after its own, through a BuildOptionsScope on the
    /// device for the run (the command line's --options); none when empty.
    std::string build_flags{};
};

/// "vector_add/default on opencl:0", as problems and progress name a job.
std::string job_name(const Job& job);

/// One output compared with another run's: which, by how much, and what was allowed.
struct Comparison {
    /// The run it was compared against: a device label, or a variant; empty when not compared
    /// (the base of a group is not)
    std::string with;
    /// For the base of a group, the runs that agreed with it, comma-separated: ok, and with at
    /// least one element compared. They are what checked it where no reference does.
    std::string confirmed_by;
    Agreement agreement; ///< against `with`; for a base, the widest of the agreements with those confirming it
    double allowed = 0;  ///< the two runs' tolerances summed (each is within its own of the reference)
    bool base = false;   ///< the base of its group, which the others were compared with

    bool compared() const { return !with.empty(); }
    bool confirmed() const { return !confirmed_by.empty(); }
    /// Another run's output was compared with this one's: it was compared with its base over at
    /// least one element, or, as a base, runs agreed with it.
    bool cross_checked() const { return confirmed() || (compared() && agreement.count > 0); }
};

/// One measured run of a job and its verdict.
struct Run {
    Job job;
    Status status = Status::ok;
    std::string reason; ///< why the status is not ok
    Measurement measurement;
    Comparison device;  ///< against the base device of the same variant
    Comparison variant; ///< against the base variant on the same device

    /// Its output was compared with another run's, across devices or variants.
    bool cross_checked() const { return device.cross_checked() || variant.cross_checked(); }
    /// It ran and was timed: ok or wrong, or failed only because nothing checked its output.
    bool measured() const { return status == Status::ok || status == Status::wrong || !measurement.samples.empty(); }
};

class Communicator;

/// Makes the runs on `device` this process's rank of a distributed run: execute() hands them
/// `communicator` (RunRequest::communicator), or, where it is null, none again. The CLI sets it
/// under mpirun for the device each rank took in the place of the one asked for.
void set_communicator(const Device& device, Communicator* communicator);

/// Runs `job` (its timing says how often); with `verify`, a result outside the workload's
/// tolerance of the CPU reference makes the run wrong. duet::Unsupported, OutOfMemory (a run
/// too large for the device or host) and any other error become the status, with the error's
/// text as the reason.
Run execute(const Job& job, bool verify);

/// Every cross check of a workload's runs; then the outputs are released. The devices of one
/// variant are compared with the first that matches the reference (a run that differs by more
/// than both tolerances becomes wrong), and so are the variants on one device: two variants that
/// disagree on one device are a disagreement. Variants whose outputs differ in length or element type (computed
/// over other dimensions) are not compared. Elements either run never wrote are left out (each
/// such run is wrong already). Without a reference, every two ok runs of a group are compared
/// instead, and after both kinds of group the largest group of runs that agree is ok and the rest
/// wrong, naming whom they differ from; where no group is the largest alone, all are wrong: no
/// reference tells which is right. Either way the order of the runs does not matter. A run of a
/// workload without a reference that nothing else checked (alone, or compared over no element)
/// failed.
void cross_check(std::vector<Run>::iterator begin, std::vector<Run>::iterator end);

/// Runs one of a workload's declared test cases (index `test_case` of info.test_cases) with every
/// variant in `variants` on every device in `devices` (device and label), one timed pass each,
/// each checked against the CPU reference, then every cross check. What `duet test` and the
/// agreement test suite run. Values that break the workload's own ranges or rules make every
/// run failed, naming them. `build_flags`: by backend name, the Job::build_flags of its devices' runs.
std::vector<Run> run_test_case(const std::shared_ptr<const Workload>& workload, std::size_t test_case,
                               const std::vector<std::string>& variants,
                               const std::vector<std::pair<Device, std::string>>& devices, std::uint64_t seed,
                               const std::map<std::string, std::string>& build_flags = {});

} // namespace duet::workload
