// Fault plugin: a valid table whose initialize throws inside guard(), as a backend does when its
// driver is missing; the core must list it as not loaded with the message, and go on.
#include <edge.hpp>

namespace {

duet_status never_reached()
{
    return duet::backend::guard(
        [] { duet::backend::fail(DUET_ERROR_UNAVAILABLE, "called after a failed initialize"); });
}

duet_status initialize()
{
    return duet::backend::guard([] {
        duet::backend::fail(DUET_ERROR_UNAVAILABLE, "simulated initialisation failure: no such driver",
                            "fault_initialize", -1001, "FAULT_SIMULATED");
    });
}

const duet_backend_v1 table = [] {
    duet_backend_v1 t{};
    t.abi_major = DUET_ABI_MAJOR;
    t.abi_minor = DUET_ABI_MINOR;
    t.table_size = sizeof(duet_backend_v1);
    t.name = "fault_failing_init";
    t.last_error = duet::backend::last_error;
    t.initialize = initialize;
    // The slots the core requires of every backend; a failed initialize means none is called.
    t.device_count = [](uint32_t*) { return never_reached(); };
    t.device_get = [](uint32_t, duet_device*) { return never_reached(); };
    t.device_properties = [](duet_device, duet_device_properties*) { return never_reached(); };
    t.device_program_format = [](duet_device, uint32_t, duet_program_format*) { return never_reached(); };
    return t;
}();

} // namespace

extern "C" DUET_BACKEND_EXPORT duet_status duet_backend_entry(uint32_t abi_major, uint32_t, const duet_backend_v1** out)
{
    *out = &table;
    return abi_major == DUET_ABI_MAJOR ? DUET_SUCCESS : DUET_ERROR_ABI_MISMATCH;
}
