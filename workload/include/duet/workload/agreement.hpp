// How one float array agrees with another (a result with its CPU reference, one device's with
// another's): the largest relative error, which the tolerance judges, and what people act on:
// how many elements differ, the largest distance in units in the last place and where it is,
// and how the distances are spread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace duet::workload {

/// The layout of an output, for naming an element: `columns` per row (0: a flat array).
struct Shape {
    std::size_t columns = 0;
};

struct Agreement {
    std::size_t count = 0;     ///< elements compared
    std::size_t differing = 0; ///< elements that are not the same float (NaN never is)
    std::size_t beyond_tolerance = 0;
    double max_error = 0; ///< largest |got - want| / max(|want|, 1); infinity for NaN or a size mismatch
    std::size_t max_error_index = 0;
    std::uint64_t max_ulps = 0; ///< largest distance in floats between got and want; UINT64_MAX for NaN
    std::size_t max_ulps_index = 0;
    Shape shape;
    bool size_mismatch = false;
    /// histogram[k]: elements whose distance in ULPs has bit width k (0: equal; 1: 1; 2: 2-3; 3:
    /// 4-7; ... 32), then histogram[33]: NaN where the other is not.
    std::vector<std::size_t> histogram;

    /// "row 3, column 17" for a 2D shape, else "index 1234".
    std::string where(std::size_t index) const;
    /// "3 of 1048576 elements differ, by at most 2 ULPs (row 3, column 17); largest relative
    /// error 1.2e-07 (index 55)"; "all 1048576 elements are identical".
    std::string describe() const;
};

/// Compares `got` with `want` element by element; `tolerance` counts the elements whose relative
/// error passes it (relative to max(|want|, 1), the one rule for every comparison).
Agreement compare(std::span<const float> got, std::span<const float> want, double tolerance, Shape shape = {});

/// Distance between two floats in units in the last place: how many floats lie between them, +0
/// and -0 being one. UINT64_MAX when either is NaN.
std::uint64_t ulp_distance(float a, float b);

/// A relative error as messages and tables show it: "0", "1.2e-07", "inf".
std::string error_text(double error);

/// The histogram's bucket labels: "0", "1", "2-3", "4-7", ..., "NaN".
std::string histogram_label(std::size_t bucket);

} // namespace duet::workload
