// Events: markers recorded on a queue, for waiting, polling and device-clock timing.
#include "common.hpp"

namespace duet::backend::opencl {
namespace {

cl_ulong end_time(const duet_event_s& event)
{
    cl_ulong nanoseconds = 0;
    const auto query = [&] {
        return clGetEventProfilingInfo(event.event, CL_PROFILING_COMMAND_END, sizeof nanoseconds, &nanoseconds,
                                       nullptr);
    };
    cl_int code = query();
    if (code == CL_PROFILING_INFO_NOT_AVAILABLE) {
        // NVIDIA's OpenCL (driver 580) answered this for a marker after clFinish of its queue, where
        // a staged copy's own events came before the marker: the event's state lagged its queue's.
        // Waiting on the event brings it up to date; one the caller had not finished is waited for.
        check(clWaitForEvents(1, &event.event), "clWaitForEvents");
        code = query();
    }
    if (code == CL_PROFILING_INFO_NOT_AVAILABLE)
        fail_native(code, "clGetEventProfilingInfo",
                    "no device time for this event, complete as it is (CL_PROFILING_INFO_NOT_AVAILABLE)");
    check(code, "clGetEventProfilingInfo");
    return nanoseconds;
}

} // namespace

duet_status event_release(duet_event event)
{
    return guard([&] { delete event; });
}

duet_status event_wait(duet_event event)
{
    return guard([&] { check(clWaitForEvents(1, &event->event), "clWaitForEvents"); });
}

duet_status event_query(duet_event event, int* complete)
{
    return guard([&] {
        cl_int status = CL_QUEUED;
        check(clGetEventInfo(event->event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
              "clGetEventInfo");
        // A negative execution status is the error code of a command before the marker.
        if (status < 0)
            fail_native(status, "clGetEventInfo",
                        std::string("the queue failed before this event: ") + error_name(status) + " (" +
                            std::to_string(status) + ")");
        *complete = status == CL_COMPLETE ? 1 : 0;
    });
}

duet_status event_elapsed_ms(duet_event start, duet_event end, double* milliseconds)
{
    return guard([&] {
        const auto nanoseconds = static_cast<std::int64_t>(end_time(*end) - end_time(*start));
        *milliseconds = static_cast<double>(nanoseconds) / 1e6;
    });
}

} // namespace duet::backend::opencl

duet_event_s::~duet_event_s()
{
    if (event)
        clReleaseEvent(event);
}
