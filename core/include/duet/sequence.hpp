// A queue's copies, fills and launches recorded once and replayed as often as needed (a CUDA
// graph, an OpenCL command buffer, or the core issuing them again), for iterative loops whose
// kernels are short enough that launching them one by one costs more than running them.
#pragma once

#include <cstddef>
#include <memory>
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

/// What Queue::record_sequence asks for: the backend's own way to replay where the device has
/// one, or the core's plain replay (to measure what the backend's own way gains).
enum class Recording { native, plain };

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

} // namespace duet
