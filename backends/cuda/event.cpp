// Events recorded on streams: waiting, querying, and timing on the device clock.
#include "common.hpp"

namespace duet::backend::cuda {

duet_status event_release(duet_event event)
{
    return guard([&] { delete event; });
}

duet_status event_wait(duet_event event)
{
    return guard([&] { check(driver().cuEventSynchronize(event->event), "cuEventSynchronize"); });
}

duet_status event_query(duet_event event, int* complete)
{
    return guard([&] {
        const CUresult code = driver().cuEventQuery(event->event);
        if (code != CUDA_ERROR_NOT_READY)
            check(code, "cuEventQuery");
        *complete = code == CUDA_SUCCESS;
    });
}

duet_status event_elapsed_ms(duet_event start, duet_event end, double* milliseconds)
{
    return guard([&] {
        float elapsed = 0;
        ContextScope scope(*start->device);
        check(driver().cuEventElapsedTime(&elapsed, start->event, end->event), "cuEventElapsedTime");
        *milliseconds = elapsed;
    });
}

} // namespace duet::backend::cuda

duet_event_s::~duet_event_s()
{
    using duet::backend::cuda::driver;
    if (event != nullptr)
        driver().cuEventDestroy(event);
}
