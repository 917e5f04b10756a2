// Fault plugin: a valid table whose initialize fails inside guard(), as a backend does when its
// driver is missing; the core must list it as not loaded with the message, and go on.
#include "fake_backend.hpp"

namespace {

duet_status initialize()
{
    return duet::backend::guard([] {
        duet::backend::fail(DUET_ERROR_UNAVAILABLE, "simulated initialisation failure: no such driver",
                            "fault_initialize", -1001, "FAULT_SIMULATED");
    });
}

const duet_backend_v1 table = [] {
    duet_backend_v1 t = fake::table("fault_failing_init");
    t.initialize = initialize;
    return t;
}();

} // namespace

FAKE_EXPORT_TABLE(table)
