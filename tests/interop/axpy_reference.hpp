// What the vendor-BLAS interop tests check against: y = a·x + y on the CPU, and the comparison
// with the tolerance its rounding allows.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "tolerances.hpp"

namespace duet::test {

inline void expect_axpy(float alpha, const std::vector<float>& x, const std::vector<float>& y_before,
                        const std::vector<float>& y_after)
{
    ASSERT_EQ(y_after.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double expected = static_cast<double>(alpha) * x[i] + y_before[i];
        const double scale = std::abs(static_cast<double>(alpha) * x[i]) + std::abs(y_before[i]);
        ASSERT_NEAR(y_after[i], expected, tolerance::axpy_relative * scale) << "element " << i;
    }
}

} // namespace duet::test
