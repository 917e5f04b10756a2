// Runs that take turns: the runs of one comparison, each on a thread of its own, of which exactly
// one does anything at any moment; the turn goes round at each pass boundary (workload::repeat),
// so their passes alternate and host-side drift (pageable copies, clocks) falls on every device
// of the comparison rather than on whichever ran last.
#pragma once

#include <duet/workload/check.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace duet::workload {

struct Rotation;

/// One run's place in a rotation of runs (what Timing::turn carries). The run holds the turn from
/// its start to its end, except while it waits in hand_on().
class Turn {
public:
    Turn(std::shared_ptr<Rotation> rotation, std::size_t seat);
    /// Hands the turn to the next run still in the rotation and waits until it comes back; returns
    /// at once where no other run is left.
    void hand_on() const;
    /// Whether this run's timing rule is met (it would stop); a run that leaves counts as met.
    void set_settled(bool settled) const;
    /// Whether another run in the rotation still takes passes for its own rule: while one does,
    /// the others go on too (within their own limits), so that every run's passes span the same
    /// stretch of time and none runs its last passes alone.
    bool others_unsettled() const;

private:
    std::shared_ptr<Rotation> rotation_;
    std::size_t seat_;
};

/// Why the jobs' runs cannot be held at once, as runs taking turns are (each keeps its buffers
/// until it ends): the device memory they need together on one physical device (one PCI bus id,
/// so one GPU seen through CUDA and through OpenCL counts once; without one, one name and memory
/// size), or the host memory they need
/// together (a CPU device's buffers counted there), past what it has. nullopt where they fit. A
/// job whose footprint throws counts for nothing: its run fails at once and holds nothing.
std::optional<std::string> why_apart(const std::vector<Job>& jobs);

/// Runs every job as execute() does, each on a thread of its own, taking turns in the jobs' order:
/// the first runs until its first pass boundary (its setup), then the second does, and so on;
/// then the first's first pass, the second's, ..., one pass each, warm-ups included. A run whose
/// rule is met goes on taking passes while another's is not (up to its own max_runs and budget),
/// so that the passes of each run span the same time. A run that ends, or throws, leaves the
/// rotation and the others go on. Nothing runs at once, so no run competes with another for the
/// host or a device. `on_start` is called as each job first has the turn. The runs come back in
/// the jobs' order; an exception that execute() lets through is rethrown once every job is done.
/// A lone job runs on the caller's thread, and so do jobs that do not fit in memory together
/// (why_apart), one after another: then `apart`, where given, is set to why.
std::vector<Run> execute_in_turns(const std::vector<Job>& jobs, bool verify,
                                  const std::function<void(const Job&)>& on_start = {},
                                  std::optional<std::string>* apart = nullptr);

} // namespace duet::workload
