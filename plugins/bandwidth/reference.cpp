// bandwidth's inputs and CPU reference: random bytes that are never zero, the host copy of what
// was sent, and the comparison of what arrived with it.
#include "bandwidth.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>

namespace duet::bandwidth {

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> value(1, 255);
    std::vector<std::uint8_t> bytes(n);
    for (auto& byte : bytes) {
        byte = static_cast<std::uint8_t>(value(engine));
    }
    return bytes;
}

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

std::vector<float> chunk_sums(std::span<const std::uint8_t> bytes)
{
    constexpr std::size_t chunk = 4096; // 4096 × 255 < 2^24: every sum is exact in float
    std::vector<float> sums;
    for (std::size_t begin = 0; begin < bytes.size(); begin += chunk) {
        const auto part = bytes.subspan(begin, std::min(chunk, bytes.size() - begin));
        float sum = 0;
        for (const auto byte : part) {
            sum += byte;
        }
        sums.push_back(sum);
    }
    return sums;
}

} // namespace duet::bandwidth
