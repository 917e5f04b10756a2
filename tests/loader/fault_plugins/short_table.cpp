// Fault plugin: a table that ends before the queue slots, as one built against a header that had
// only the device slots would; the core must refuse it, naming its size and the size it needs.
#include "fake_backend.hpp"

#include <cstddef>

namespace {
const duet_backend_v1 table = [] {
    duet_backend_v1 t = fake::table("fault_short_table");
    t.table_size = offsetof(duet_backend_v1, queue_create);
    return t;
}();
} // namespace

FAKE_EXPORT_TABLE(table)
