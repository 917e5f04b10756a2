// Element-by-element agreement of two arrays, in relative error and in ULPs.
#include <duet/workload/agreement.hpp>

#include <duet/error.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

namespace duet::workload {

namespace {

constexpr std::size_t nan_bucket = 65;

/// The value's position on one line of integers: for floats, -0 just below +0.
template <class T> __int128 ordinal(T value)
{
    if constexpr (std::is_floating_point_v<T>) {
        using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        constexpr Bits sign = Bits{1} << (8 * sizeof(T) - 1);
        const Bits bits = std::bit_cast<Bits>(value);
        return bits & sign ? -static_cast<__int128>(bits & ~sign) - 1 : static_cast<__int128>(bits);
    } else {
        return value;
    }
}

/// A relative error (against max(|want|, 1), as every tolerance is) in epsilons of T, rounded
/// up: what an `ulps` tolerance counts, so that one of n passes exactly the errors shown as at
/// most n. UINT64_MAX for NaN (an error of infinity over infinity too); the raw distance for an integer type; an
/// infinite error the largest count short of the NaN mark.
template <class T> std::uint64_t scaled_ulp_distance(double error, std::uint64_t raw)
{
    if constexpr (std::is_floating_point_v<T>) {
        constexpr std::uint64_t largest = std::numeric_limits<std::uint64_t>::max() - 1;
        if (raw == std::numeric_limits<std::uint64_t>::max() || std::isnan(error)) {
            return std::numeric_limits<std::uint64_t>::max();
        }
        // Dividing by a power of two is exact, so the count and the tolerance's test agree.
        const double units = std::ceil(error / static_cast<double>(std::numeric_limits<T>::epsilon()));
        return units >= static_cast<double>(largest) ? largest : static_cast<std::uint64_t>(units);
    } else {
        return raw;
    }
}

/// Whether two elements are the same value: equal (±0, and equal infinities, whose difference
/// would be NaN), or, where `same_nan_agrees`, the same bits of a NaN.
template <class T> bool identical(T got, T want, bool same_nan_agrees)
{
    if constexpr (std::is_floating_point_v<T>) {
        using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        return got == want || (same_nan_agrees && std::bit_cast<Bits>(got) == std::bit_cast<Bits>(want));
    } else {
        return got == want;
    }
}

template <class T>
Agreement compare_elements(std::span<const T> got, std::span<const T> want, double tolerance,
                           const std::vector<bool>& skip, bool same_nan_agrees, Agreement agreement)
{
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (!skip.empty() && skip[i]) {
            ++agreement.skipped;
            continue;
        }
        ++agreement.count;
        const bool same = identical(got[i], want[i], same_nan_agrees);
        const double error = same ? 0.0
                                  : std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i])) /
                                        std::max(std::abs(static_cast<double>(want[i])), 1.0);
        const bool nan = std::isnan(error);
        const std::uint64_t ulps = same ? 0 : ulp_distance(got[i], want[i]);
        agreement.differing += ulps == 0 ? 0 : 1;
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
        if (const std::uint64_t scaled = scaled_ulp_distance<T>(error, ulps); scaled > agreement.max_scaled_ulps) {
            agreement.max_scaled_ulps = scaled;
            agreement.max_scaled_ulps_index = i;
        }
        ++agreement.histogram[ulps == std::numeric_limits<std::uint64_t>::max()
                                  ? nan_bucket
                                  : static_cast<std::size_t>(std::bit_width(ulps))];
    }
    return agreement;
}

} // namespace

std::string_view to_string(ElementType type)
{
    switch (type) {
    case ElementType::f64:
        return "double";
    case ElementType::i32:
        return "int32";
    case ElementType::u32:
        return "uint32";
    case ElementType::i64:
        return "int64";
    case ElementType::u8:
        return "uint8";
    case ElementType::f32:
        break;
    }
    return "float";
}

std::size_t element_size(ElementType type)
{
    return with_element_type(type, []<class T>(std::type_identity<T>) { return sizeof(T); });
}

Values::Values(ElementType type, std::size_t n)
{
    with_element_type(type, [&]<class T>(std::type_identity<T>) { values_ = std::vector<T>(n); });
}

ElementType Values::type() const
{
    return static_cast<ElementType>(values_.index());
}

std::size_t Values::size() const
{
    return std::visit([](const auto& values) { return values.size(); }, values_);
}

Values::Storage& Values::checked(ElementType type)
{
    if (type != this->type()) {
        throw InvalidArgument("duet", "workload::Values",
                              "these values hold " + std::string(to_string(this->type())) + ", not " +
                                  std::string(to_string(type)));
    }
    return values_;
}

void Values::append(const Values& other)
{
    std::visit(
        [&]<class T>(std::vector<T>& values) {
            const auto& more = other.as<T>();
            values.insert(values.end(), more.begin(), more.end());
        },
        checked(other.type()));
}

void Values::release()
{
    std::visit([]<class T>(std::vector<T>& values) { std::vector<T>().swap(values); }, values_);
}

std::string error_text(double error)
{
    if (error == 0) {
        return "0";
    }
    char text[32];
    std::snprintf(text, sizeof text, std::isfinite(error) ? "%.1e" : "%g", error);
    return text;
}

template <class T> std::uint64_t ulp_distance(T a, T b)
{
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(b)) {
            return std::numeric_limits<std::uint64_t>::max();
        }
    }
    const __int128 difference = ordinal(a) - ordinal(b);
    return static_cast<std::uint64_t>(difference < 0 ? -difference : difference);
}

template std::uint64_t ulp_distance(float, float);
template std::uint64_t ulp_distance(double, double);
template std::uint64_t ulp_distance(std::int32_t, std::int32_t);
template std::uint64_t ulp_distance(std::uint32_t, std::uint32_t);
template std::uint64_t ulp_distance(std::int64_t, std::int64_t);
template std::uint64_t ulp_distance(std::uint8_t, std::uint8_t);

std::string histogram_label(std::size_t bucket)
{
    if (bucket == nan_bucket) {
        return "NaN";
    }
    if (bucket <= 2) {
        return bucket == 2 ? "2-3" : std::to_string(bucket);
    }
    const std::uint64_t low = std::uint64_t{1} << (bucket - 1);
    return std::to_string(low) + "-" + std::to_string(low + (low - 1));
}

Agreement compare(const Values& got, const Values& want, double tolerance, Shape shape, const std::vector<bool>& skip,
                  bool same_nan_agrees)
{
    Agreement agreement;
    agreement.type = want.type();
    agreement.shape = shape;
    agreement.histogram.assign(nan_bucket + 1, 0);
    agreement.type_mismatch = got.type() != want.type();
    agreement.size_mismatch = got.size() != want.size();
    if (agreement.type_mismatch || agreement.size_mismatch) {
        agreement.max_error = std::numeric_limits<double>::infinity();
        agreement.max_ulps = std::numeric_limits<std::uint64_t>::max();
        agreement.max_scaled_ulps = agreement.max_ulps;
        return agreement;
    }
    if (!skip.empty() && skip.size() != got.size()) {
        throw InvalidArgument("duet", "workload::compare",
                              "the elements to leave out are " + std::to_string(skip.size()) + " flags for " +
                                  std::to_string(got.size()) + " elements");
    }
    return with_element_type(want.type(), [&]<class T>(std::type_identity<T>) {
        return compare_elements<T>(got.as<T>(), want.as<T>(), tolerance, skip, same_nan_agrees, std::move(agreement));
    });
}

std::string where(std::size_t index, Shape shape)
{
    if (shape.columns > 0) {
        return "row " + std::to_string(index / shape.columns) + ", column " + std::to_string(index % shape.columns);
    }
    return "index " + std::to_string(index);
}

std::string Agreement::where(std::size_t index) const
{
    return workload::where(index, shape);
}

void Writes::add_output(std::string name, std::size_t offset, std::size_t size, std::size_t all)
{
    outputs.push_back({std::move(name), offset, size, 0, 0, 0});
    checked = true;
    judged += size;
    elements = all;
}

void Writes::mark(std::size_t index)
{
    Output& output = outputs.back();
    if (mask.empty()) {
        mask.assign(elements, false);
    }
    mask[output.offset + index] = true;
    output.first = output.unwritten == 0 ? index : output.first;
    output.last = index;
    ++output.unwritten;
    ++unwritten;
}

std::string Writes::describe(Shape shape) const
{
    if (unwritten == 0) {
        return "all " + std::to_string(judged) + " poisoned elements were written";
    }
    std::string text;
    for (const auto& output : outputs) {
        if (output.unwritten == 0) {
            continue;
        }
        text += (text.empty() ? "" : "; ") + std::to_string(output.unwritten) + " of " + std::to_string(output.size) +
                " elements of '" + output.name + "' " +
                (output.unwritten == 1 ? "was never written (" + where(output.first, shape)
                                       : "were never written (first at " + where(output.first, shape) + ", last at " +
                                             where(output.last, shape)) +
                ")";
    }
    return text;
}

std::string Agreement::describe() const
{
    if (type_mismatch) {
        return "the two outputs hold different element types";
    }
    if (size_mismatch) {
        return "the two outputs differ in length";
    }
    if (differing == 0) {
        return count == 1 ? "the one element is identical" : "all " + std::to_string(count) + " elements are identical";
    }
    const bool integral = type != ElementType::f32 && type != ElementType::f64;
    const std::string ulps = max_scaled_ulps == std::numeric_limits<std::uint64_t>::max()
                                 ? "NaN"
                                 : std::to_string(max_scaled_ulps) + (integral ? "" : " ULPs");
    return std::to_string(differing) + " of " + std::to_string(count) + " elements differ, by at most " + ulps + " (" +
           where(max_scaled_ulps_index) + "); largest relative error " + error_text(max_error) + " (" +
           where(max_error_index) + ")";
}

} // namespace duet::workload
