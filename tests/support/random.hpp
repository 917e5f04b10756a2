// Random inputs for the suites, seeded from the test's name so a failure reproduces. Never
// zeros: a kernel that writes nothing, or zeros, must not pass by accident.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include <duet/workload/kit.hpp>

namespace duet::test {

/// A seed derived from the running test's full name (stable across runs).
std::uint64_t test_seed();

/// Floats in ±[0.5, 2), never zero nor denormal: the workloads' own inputs.
using workload::random_floats;

/// Integer-valued floats in [lo, hi], lo >= 1: sums of a few million stay exact.
std::vector<float> random_integral_floats(std::size_t n, std::uint64_t seed, int lo = 1, int hi = 16);

/// Non-zero integers of type T over its whole range (or bytes 1..255).
template <class T> std::vector<T> random_values(std::size_t n, std::uint64_t seed)
{
    static_assert(std::is_integral_v<T>);
    using Wide = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<Wide> dist(static_cast<Wide>(std::numeric_limits<T>::min()),
                                             static_cast<Wide>(std::numeric_limits<T>::max()));
    std::vector<T> out(n);
    for (T& value : out) {
        do {
            value = static_cast<T>(dist(engine));
        } while (value == 0);
    }
    return out;
}

} // namespace duet::test
