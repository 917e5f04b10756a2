// Fault plugin: a full-size table that leaves queue_launch, which the core calls without asking,
// empty; the core must refuse it naming the slot, rather than call a null pointer at launch.
#include "fake_backend.hpp"

namespace {
const duet_backend_v1 table = [] {
    duet_backend_v1 t = fake::table("fault_empty_required_slot");
    t.queue_launch = nullptr;
    return t;
}();
} // namespace

FAKE_EXPORT_TABLE(table)
