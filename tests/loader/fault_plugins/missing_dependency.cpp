// Fault plugin: needs libduet_absent_dependency.so, which is not on its run path, so dlopen
// itself fails (as with a missing libcuda.so.1); nothing here ever runs.
#include <duet/abi/backend.h>

extern "C" int duet_absent_dependency_answer();

namespace {
const duet_backend_v1 table = [] {
    duet_backend_v1 t{};
    t.abi_major = DUET_ABI_MAJOR;
    t.abi_minor = DUET_ABI_MINOR;
    t.table_size = sizeof(duet_backend_v1);
    t.name = "fault_missing_dependency";
    return t;
}();
} // namespace

extern "C" DUET_BACKEND_EXPORT duet_status duet_backend_entry(uint32_t, uint32_t, const duet_backend_v1** out)
{
    *out = &table;
    return duet_absent_dependency_answer() == 42 ? DUET_ERROR_UNAVAILABLE : DUET_ERROR_BACKEND;
}
