// The CPU reference vector_add is checked against.
#include "vector_add.hpp"

#include <cstddef>

namespace duet::vector_add {

void reference(std::span<const float> a, std::span<const float> b, std::span<float> c)
{
    for (std::size_t i = 0; i < c.size(); ++i) {
        c[i] = a[i] + b[i];
    }
}

} // namespace duet::vector_add
