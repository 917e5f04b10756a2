// Fault plugin: a valid table whose initialize throws a C++ exception across the C ABI instead of
// returning a status; the core must list it as failed with the exception's text, and go on.
#include "fake_backend.hpp"

#include <stdexcept>

namespace {
const duet_backend_v1 table = [] {
    duet_backend_v1 t = fake::table("fault_throwing_init");
    t.initialize = []() -> duet_status { throw std::runtime_error("simulated: initialize threw"); };
    return t;
}();
} // namespace

FAKE_EXPORT_TABLE(table)
