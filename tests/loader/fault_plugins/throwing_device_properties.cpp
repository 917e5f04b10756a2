// Fault plugin: initializes and counts its device, then throws a C++ exception across the C ABI
// when asked for the device's properties; the core must list it as failed, with no devices.
#include "fake_backend.hpp"

#include <stdexcept>

namespace {
const duet_backend_v1 table = [] {
    duet_backend_v1 t = fake::table("fault_throwing_device_properties");
    t.device_properties = [](duet_device, duet_device_properties*) -> duet_status {
        throw std::runtime_error("simulated: device_properties threw");
    };
    return t;
}();
} // namespace

FAKE_EXPORT_TABLE(table)
