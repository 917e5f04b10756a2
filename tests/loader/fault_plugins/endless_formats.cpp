// Fault plugin: its device's list of program formats never ends (no DUET_FORMAT_NONE); the core
// must refuse it, saying so, rather than ask for ever.
#include "fake_backend.hpp"

namespace {
const duet_backend_v1 table = [] {
    duet_backend_v1 t = fake::table("fault_endless_formats");
    t.device_program_format = [](duet_device, uint32_t, duet_program_format* format) {
        *format = DUET_FORMAT_OPENCL_C;
        return DUET_SUCCESS;
    };
    return t;
}();
} // namespace

FAKE_EXPORT_TABLE(table)
