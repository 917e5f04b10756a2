// A point in a queue's stream of work (cl_event of a marker / CUevent), for waiting, ordering
// queues and timing on the device clock.
#pragma once

#include <memory>
#include <utility>

namespace duet {

namespace detail {
struct EventState;
}

/// Threads: an event may be waited for, queried and timed from several threads at once.
class Event {
public:
    Event() = default;
    explicit Event(std::shared_ptr<const detail::EventState> state) : state_(std::move(state)) {}

    /// Blocks until the device has reached this point (clWaitForEvents / cuEventSynchronize).
    void wait() const;
    /// Whether the device has reached this point (CL_EVENT_COMMAND_EXECUTION_STATUS / cuEventQuery).
    bool complete() const;

    const std::shared_ptr<const detail::EventState>& state() const { return state_; }

private:
    std::shared_ptr<const detail::EventState> state_;
};

/// Device time between two events of one device, in milliseconds
/// (CL_PROFILING_COMMAND_END of each / cuEventElapsedTime). Both must be complete.
double elapsed_ms(const Event& start, const Event& end);

} // namespace duet
