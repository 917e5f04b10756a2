// Loads: a backend of a newer minor version, whose duet_device_properties has fields this core
// does not know appended. It writes no more than the size the core gives, so the core's struct is
// never overrun and the fields both know come through.
#include "fake_backend.hpp"

#include <cstdint>

namespace {
/// duet_device_properties as the newer minor declares it.
struct NewerProperties : duet_device_properties {
    std::uint64_t appended[8];
};

const duet_backend_v1 table = [] {
    duet_backend_v1 t = fake::table("fake_newer_properties");
    t.device_properties = [](duet_device, duet_device_properties* properties) {
        NewerProperties newer{};
        static_cast<duet_device_properties&>(newer) = fake::device_properties();
        newer.l2_cache = 4096;
        duet::backend::copy_text(newer.pci_bus_id, "0000:01:00.0");
        std::memset(newer.appended, 0xff, sizeof(newer.appended));
        duet::backend::write_sized(static_cast<NewerProperties*>(properties), newer);
        return DUET_SUCCESS;
    };
    return t;
}();
} // namespace

FAKE_EXPORT_TABLE(table)
