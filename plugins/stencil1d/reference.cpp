// The CPU reference stencil1d is checked against, summing in the kernels' order.
#include "stencil1d.hpp"

namespace duet::stencil1d {

void reference(std::span<const float> in, std::span<float> out, std::size_t radius)
{
    const std::size_t n = in.size();
    const auto count = static_cast<float>(2 * radius + 1);
    for (std::size_t i = 0; i < n; ++i) {
        if (i < radius || n - i <= radius) {
            out[i] = in[i];
            continue;
        }
        float sum = in[i - radius];
        for (std::size_t j = i - radius + 1; j <= i + radius; ++j) {
            sum += in[j];
        }
        out[i] = sum / count;
    }
}

} // namespace duet::stencil1d
