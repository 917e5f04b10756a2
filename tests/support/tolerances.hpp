// Every numeric tolerance the suites use, in one place, each with the reason it is what it is.
#pragma once

#include <cstdint>

namespace duet::test::tolerance {

/// c = a + b is one correctly rounded IEEE add on every device: results agree bit for bit.
inline constexpr std::uint32_t vector_add_ulps = 0;
/// out = in * factor is one correctly rounded multiply (OpenCL C and __fmul_rn alike).
inline constexpr std::uint32_t scale_ulps = 0;
/// Two devices running vector_add agree bit for bit, whatever their backends.
inline constexpr std::uint32_t cross_device_ulps = 0;
/// reduce_sum is fed integer-valued floats whose sums stay below 2^24: exact in any order.
inline constexpr double reduction_absolute = 0.0;

/// y = a·x + y through a vendor BLAS: one fused multiply-add or a multiply and an add, so up to
/// two roundings against the reference's one; relative to |a·x| + |y|.
inline constexpr double axpy_relative = 2.5e-7;

} // namespace duet::test::tolerance
