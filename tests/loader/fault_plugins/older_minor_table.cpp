// Loads: a table that ends before the extension slot, as from a backend of an older minor version.
// The slot past its declared size holds a working function, which the core must not read: to the
// core it is empty, so it has no extensions, and setting a cache preference is unsupported.
#include "fake_backend.hpp"

#include <cstddef>

namespace {
const duet_backend_v1 table = [] {
    duet_backend_v1 t = fake::table("fake_older_minor_table");
    t.table_size = offsetof(duet_backend_v1, extension);
    return t;
}();
} // namespace

FAKE_EXPORT_TABLE(table)
