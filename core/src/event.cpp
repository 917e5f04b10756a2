// Events: waiting, querying, and device-clock timing between two of them.
#include <duet/event.hpp>

#include "state.hpp"

namespace duet {

void Event::wait() const
{
    const auto& event = detail::live(state_, "Event::wait", "Event");
    event.device->check(event.device->api().event_wait(event.handle));
}

bool Event::complete() const
{
    const auto& event = detail::live(state_, "Event::complete", "Event");
    int complete = 0;
    event.device->check(event.device->api().event_query(event.handle, &complete));
    return complete != 0;
}

double elapsed_ms(const Event& start, const Event& end)
{
    const auto& from = detail::live(start.state(), "elapsed_ms", "Event");
    const auto& to = detail::live(end.state(), "elapsed_ms", "Event");
    if (from.device != to.device) {
        detail::fail<InvalidArgument>(from.device->backend->name(), "elapsed_ms",
                                      "the two events belong to different devices, whose clocks differ");
    }
    double milliseconds = 0;
    from.device->check(from.device->backend->require(from.device->api().event_elapsed_ms,
                                                     "event timing")(from.handle, to.handle, &milliseconds));
    return milliseconds;
}

namespace detail {
EventState::~EventState()
{
    if (handle != nullptr) {
        device->api().event_release(handle);
    }
}
} // namespace detail

} // namespace duet
