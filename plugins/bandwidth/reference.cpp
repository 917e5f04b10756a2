// bandwidth's CPU reference: the host copy of what was sent, and the comparison of what arrived
// with it.
#include "bandwidth.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace duet::bandwidth {

void reference(std::span<const std::uint8_t> sent, std::span<std::uint8_t> expected)
{
    std::memcpy(expected.data(), sent.data(), std::min(sent.size(), expected.size()));
}

double max_difference(std::span<const std::uint8_t> received, std::span<const std::uint8_t> expected)
{
    if (received.size() != expected.size()) {
        return 255;
    }
    int worst = 0;
    for (std::size_t i = 0; i < received.size(); ++i) {
        worst = std::max(worst, std::abs(int{received[i]} - int{expected[i]}));
    }
    return worst;
}

} // namespace duet::bandwidth
