// The CPU reference access is checked against: the same reads, one row at a time.
#include "access.hpp"

namespace duet::access {

void reference(Pattern pattern, std::span<const float> in, std::span<const std::uint32_t> index, std::span<float> out,
               std::size_t stride)
{
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::size_t row = pattern == Pattern::strided ? i : index[i];
        out[i] = in[row * stride];
    }
}

} // namespace duet::access
