// Element-by-element agreement of two float arrays, in relative error and in ULPs.
#include <duet/workload/agreement.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

namespace duet::workload {

namespace {

constexpr std::size_t nan_bucket = 33;

/// The float's position on one line of integers, -0 just below +0.
std::int64_t ordinal(float value)
{
    const auto bits = static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(value));
    return bits & 0x80000000 ? -(bits & 0x7fffffff) - 1 : bits;
}

} // namespace

std::string error_text(double error)
{
    if (error == 0) {
        return "0";
    }
    char text[32];
    std::snprintf(text, sizeof text, std::isfinite(error) ? "%.1e" : "%g", error);
    return text;
}

std::uint64_t ulp_distance(float a, float b)
{
    if (std::isnan(a) || std::isnan(b)) {
        return std::numeric_limits<std::uint64_t>::max();
    }
    const std::int64_t difference = ordinal(a) - ordinal(b);
    return static_cast<std::uint64_t>(difference < 0 ? -difference : difference);
}

std::string histogram_label(std::size_t bucket)
{
    if (bucket == nan_bucket) {
        return "NaN";
    }
    if (bucket <= 2) {
        return bucket == 2 ? "2-3" : std::to_string(bucket);
    }
    return std::to_string(std::uint64_t{1} << (bucket - 1)) + "-" + std::to_string((std::uint64_t{1} << bucket) - 1);
}

Agreement compare(std::span<const float> got, std::span<const float> want, double tolerance, Shape shape)
{
    Agreement agreement;
    agreement.shape = shape;
    agreement.histogram.assign(nan_bucket + 1, 0);
    if (got.size() != want.size()) {
        agreement.size_mismatch = true;
        agreement.max_error = std::numeric_limits<double>::infinity();
        agreement.max_ulps = std::numeric_limits<std::uint64_t>::max();
        return agreement;
    }
    agreement.count = got.size();
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double error = std::abs(static_cast<double>(got[i]) - want[i]) / std::max<double>(std::abs(want[i]), 1.0);
        const bool nan = std::isnan(error);
        const std::uint64_t ulps = ulp_distance(got[i], want[i]);
        const bool same = std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(want[i]) && !nan;
        agreement.differing += same ? 0 : 1;
        if (nan || error > tolerance) {
            ++agreement.beyond_tolerance;
        }
        if (nan ? agreement.max_error != std::numeric_limits<double>::infinity() : error > agreement.max_error) {
            agreement.max_error = nan ? std::numeric_limits<double>::infinity() : error;
            agreement.max_error_index = i;
        }
        if (ulps > agreement.max_ulps) {
            agreement.max_ulps = ulps;
            agreement.max_ulps_index = i;
        }
        ++agreement.histogram[ulps == std::numeric_limits<std::uint64_t>::max()
                                  ? nan_bucket
                                  : std::min<std::size_t>(std::bit_width(ulps), 32)];
    }
    return agreement;
}

std::string Agreement::where(std::size_t index) const
{
    if (shape.columns > 0) {
        return "row " + std::to_string(index / shape.columns) + ", column " + std::to_string(index % shape.columns);
    }
    return "index " + std::to_string(index);
}

std::string Agreement::describe() const
{
    if (size_mismatch) {
        return "the two outputs differ in length";
    }
    if (differing == 0) {
        return "all " + std::to_string(count) + " elements are identical";
    }
    const std::string ulps =
        max_ulps == std::numeric_limits<std::uint64_t>::max() ? "NaN" : std::to_string(max_ulps) + " ULPs";
    return std::to_string(differing) + " of " + std::to_string(count) + " elements differ, by at most " + ulps + " (" +
           where(max_ulps_index) + "); largest relative error " + error_text(max_error) + " (" +
           where(max_error_index) + ")";
}

} // namespace duet::workload
