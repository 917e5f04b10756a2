// A queue's copies, fills and launches recorded once and replayed as often as needed (a CUDA
// graph, an OpenCL command buffer, or the core issuing them again), for iterative loops whose
// kernels are short enough that launching them one by one costs more than running them.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace duet {

namespace detail {
struct SequenceState;
}

/// How a sequence replays.
enum class ReplayMethod {
    graph,          ///< CUDA: stream capture into a graph, instantiated once, cuGraphLaunch
    command_buffer, ///< OpenCL: cl_khr_command_buffer, finalised once, clEnqueueCommandBufferKHR
    plain           ///< the core issues the recorded commands again, one by one
};

/// What Queue::record_sequence asks for.
enum class Recording {
    /// The device's own replay or the core's plain one, whichever replay_choice() found faster on
    /// the device: a command buffer can cost more a kernel than issuing the kernels again.
    fastest,
    native, ///< the device's own replay (graph, command buffer) where it has one
    plain   ///< the core's plain replay (to measure what the device's own way gains)
};

/// Made by Queue::record_sequence and run by Queue::replay. A sequence keeps every buffer and
/// kernel its commands use alive, so a replay never touches freed memory, whatever became of the
/// handles the caller recorded with.
///
/// Threads: a sequence may be replayed from several threads at once, onto one queue or several.
class Sequence {
public:
    Sequence() = default;
    explicit Sequence(std::shared_ptr<const detail::SequenceState> state) : state_(std::move(state)) {}

    ReplayMethod method() const;
    /// Why the replay is plain ("this OpenCL platform has no cl_khr_command_buffer"); empty otherwise.
    const std::string& reason() const;
    /// How many copies, fills and launches the sequence holds.
    std::size_t commands() const;

    const std::shared_ptr<const detail::SequenceState>& state() const { return state_; }

private:
    std::shared_ptr<const detail::SequenceState> state_;
};

/// "graph", "command_buffer", "plain".
std::string_view to_string(ReplayMethod method);

class Device;

/// How fast a device replays a chain of empty kernels its own way and the core's plain way, host
/// microseconds a kernel: what Recording::fastest goes by.
struct ReplayChoice {
    ReplayMethod own = ReplayMethod::graph; ///< the device's own way: graph or command_buffer
    double own_us = 0;                      ///< a kernel, replayed the device's own way
    double plain_us = 0;                    ///< a kernel, replayed by the core one by one
    bool from_cache = false;                ///< read from the kernel cache, not measured by this process

    bool plain_is_faster() const { return plain_us < own_us; }
    /// "plain: 42.1 us a kernel against 88.3 us for its command_buffer (measured)".
    std::string text() const;
};

/// Once per device in a process: read from the kernel cache (beside the tuners' choices, keyed
/// by the device and its driver), or else measured (a chain of 32 empty kernels recorded both
/// ways, replayed alternately in 7 rounds after a warm-up, the medians) and kept there. nullopt
/// where the device has no replay of its own, or where the probe could not be built or run
/// (Recording::fastest then takes the device's own way, as Recording::native does).
std::optional<ReplayChoice> replay_choice(const Device& device);

} // namespace duet
