// The CPU reference mat_add is checked against: the dense arrays the rectangular copies move.
#include "mat_add.hpp"

#include <cstddef>

namespace duet::mat_add {

void reference(std::span<const float> a, std::span<const float> b, std::span<float> c)
{
    for (std::size_t i = 0; i < c.size(); ++i) {
        c[i] = a[i] + b[i];
    }
}

} // namespace duet::mat_add
