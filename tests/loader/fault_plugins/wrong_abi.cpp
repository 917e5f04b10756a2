// Fault plugin: built for ABI major 99. Its entry refuses the core's version and hands back a
// table that says so, as the ABI asks, so the core can name both versions.
#include <duet/abi/backend.h>

namespace {
const duet_backend_v1 table = [] {
    duet_backend_v1 t{};
    t.abi_major = 99;
    t.abi_minor = 0;
    t.table_size = sizeof(duet_backend_v1);
    t.name = "fault_wrong_abi";
    return t;
}();
} // namespace

extern "C" DUET_BACKEND_EXPORT duet_status duet_backend_entry(uint32_t abi_major, uint32_t, const duet_backend_v1** out)
{
    *out = &table;
    return abi_major == 99 ? DUET_SUCCESS : DUET_ERROR_ABI_MISMATCH;
}
