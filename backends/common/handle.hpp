// The base of every object behind an opaque handle of the ABI. Each owns native objects that its
// destructor releases, so a copy would release them twice: none is copyable or movable.
#pragma once

namespace duet::backend {

struct Handle {
    Handle() = default;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
};

} // namespace duet::backend
