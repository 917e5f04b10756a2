// Byte counts that stop at the largest uint64 rather than wrap, so that a sum too large for any
// machine still reads as too large (a footprint checked against the memory there is).
#pragma once

#include <cstdint>
#include <limits>

namespace duet::detail {

inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::uint64_t>::max() : sum;
}

inline std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<std::uint64_t>::max() : product;
}

} // namespace duet::detail
