// Loads: a table from a newer minor version, with slots this core does not know after its own;
// the core takes what it knows and reads nothing past it.
#include "fake_backend.hpp"

namespace {
struct NewerTable {
    duet_backend_v1 known;
    duet_status (*unknown[16])(void);
};

const NewerTable table = [] {
    NewerTable t{fake::table("fake_oversized_table"), {}};
    t.known.table_size = sizeof(NewerTable);
    for (auto& slot : t.unknown)
        slot = fake::unsupported;
    return t;
}();
} // namespace

FAKE_EXPORT_TABLE(table.known)
