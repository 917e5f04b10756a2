// Loads: a backend of an older minor version, whose duet_device_properties ended before l2_cache
// (as if every field from there on had been appended since). It writes only the fields it knows;
// the core reads the others as zero, "not known".
#include "fake_backend.hpp"

#include <cstddef>

namespace {
/// duet_device_properties as the older minor declared it.
struct OlderProperties {
    size_t size;
    unsigned char fields[offsetof(duet_device_properties, l2_cache) - sizeof(size_t)];
};
static_assert(sizeof(OlderProperties) == offsetof(duet_device_properties, l2_cache));

const duet_backend_v1 table = [] {
    duet_backend_v1 t = fake::table("fake_older_properties");
    t.device_properties = [](duet_device, duet_device_properties* properties) {
        OlderProperties older;
        const duet_device_properties full = fake::device_properties();
        std::memcpy(&older, &full, sizeof(older));
        duet::backend::write_sized(reinterpret_cast<OlderProperties*>(properties), older);
        return DUET_SUCCESS;
    };
    return t;
}();
} // namespace

FAKE_EXPORT_TABLE(table)
