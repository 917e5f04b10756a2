// Fault plugin: every slot filled, but the table says it is 0 bytes long, so the core may read
// none of them; it must refuse the table, naming the sizes, and never call an empty slot.
#include "fake_backend.hpp"

namespace {
const duet_backend_v1 table = [] {
    duet_backend_v1 t = fake::table("fault_table_size_zero");
    t.table_size = 0;
    return t;
}();
} // namespace

FAKE_EXPORT_TABLE(table)
