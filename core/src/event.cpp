// Events: waiting, querying, and device-clock timing between two of them.
#include <duet/event.hpp>

#include "state.hpp"

namespace duet {

namespace {
const detail::EventState& checked(const Event& event, const char* call)
{
    if (!event.state()) {
        detail::fail<InvalidArgument>("duet", call, "an empty Event");
    }
    return *event.state();
}
} // namespace

void Event::wait() const
{
    const auto& event = checked(*this, "Event::wait");
    event.device->check(event.device->api().event_wait(event.handle));
}

bool Event::complete() const
{
    const auto& event = checked(*this, "Event::complete");
    int complete = 0;
    event.device->check(event.device->api().event_query(event.handle, &complete));
    return complete != 0;
}

double elapsed_ms(const Event& start, const Event& end)
{
    const auto& from = checked(start, "elapsed_ms");
    const auto& to = checked(end, "elapsed_ms");
    if (from.device != to.device) {
        detail::fail<InvalidArgument>(from.device->backend->name(), "elapsed_ms",
                                      "the two events belong to different devices, whose clocks differ");
    }
    double milliseconds = 0;
    from.device->check(from.device->backend->require(from.device->api().event_elapsed_ms, "event timing")(
        from.handle, to.handle, &milliseconds));
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
