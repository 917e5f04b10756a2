// Fault plugin: its entry point throws a C++ exception across the C ABI, as a backend not built
// on duet's edge may; the core must list it as failed with the exception's text, and go on.
#include <duet/abi/backend.h>

#include <stdexcept>

extern "C" DUET_BACKEND_EXPORT duet_status duet_backend_entry(uint32_t, uint32_t, const duet_backend_v1**)
{
    throw std::runtime_error("simulated: the entry point threw");
}
