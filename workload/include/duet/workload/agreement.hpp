// How one array agrees with another (a result with its CPU reference, one device's with
// another's): the largest relative error, which the tolerance judges, and what people act on:
// how many elements differ, the largest distance in units in the last place and where it is,
// and how the distances are spread. Arrays are Values: float, double or integers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace duet::workload {

/// The element types a workload's arrays may hold.
enum class ElementType { f32, f64, i32, u32, i64, u8 };

/// "float", "double", "int32", "uint32", "int64", "uint8".
std::string_view to_string(ElementType type);
std::size_t element_size(ElementType type);

template <class T> struct ElementTypeOf;
template <> struct ElementTypeOf<float> : std::integral_constant<ElementType, ElementType::f32> {
};
template <> struct ElementTypeOf<double> : std::integral_constant<ElementType, ElementType::f64> {
};
template <> struct ElementTypeOf<std::int32_t> : std::integral_constant<ElementType, ElementType::i32> {
};
template <> struct ElementTypeOf<std::uint32_t> : std::integral_constant<ElementType, ElementType::u32> {
};
template <> struct ElementTypeOf<std::int64_t> : std::integral_constant<ElementType, ElementType::i64> {
};
template <> struct ElementTypeOf<std::uint8_t> : std::integral_constant<ElementType, ElementType::u8> {
};
/// The ElementType of a C++ type; only the six above have one.
template <class T> inline constexpr ElementType element_type_of = ElementTypeOf<T>::value;

/// Calls `f(std::type_identity<T>{})` with the C++ type of `type`: code written once for every
/// element type.
template <class F> decltype(auto) with_element_type(ElementType type, F&& f)
{
    switch (type) {
    case ElementType::f64:
        return f(std::type_identity<double>{});
    case ElementType::i32:
        return f(std::type_identity<std::int32_t>{});
    case ElementType::u32:
        return f(std::type_identity<std::uint32_t>{});
    case ElementType::i64:
        return f(std::type_identity<std::int64_t>{});
    case ElementType::u8:
        return f(std::type_identity<std::uint8_t>{});
    case ElementType::f32:
        break;
    }
    return f(std::type_identity<float>{});
}

/// An array of one element type: a workload's output, a reference's, an input as drawn.
class Values {
public:
    Values() = default; ///< no floats
    template <class T, class = decltype(element_type_of<T>)> Values(std::vector<T> values) : values_(std::move(values))
    {
    }
    /// `n` elements of `type`, value-initialized.
    Values(ElementType type, std::size_t n);

    ElementType type() const;
    std::size_t size() const;
    bool empty() const { return size() == 0; }
    /// The elements as T; InvalidArgument naming both types when they hold another.
    template <class T> std::vector<T>& as() { return std::get<std::vector<T>>(checked(element_type_of<T>)); }
    template <class T> const std::vector<T>& as() const
    {
        return std::get<std::vector<T>>(const_cast<Values*>(this)->checked(element_type_of<T>));
    }
    /// Appends `other`'s elements (the same type).
    void append(const Values& other);
    /// Frees the elements.
    void release();

private:
    using Storage = std::variant<std::vector<float>, std::vector<double>, std::vector<std::int32_t>,
                                 std::vector<std::uint32_t>, std::vector<std::int64_t>, std::vector<std::uint8_t>>;
    Storage& checked(ElementType type);
    Storage values_;
};

/// The layout of an output, for naming an element: `columns` per row (0: a flat array).
struct Shape {
    std::size_t columns = 0;
};

/// "row 3, column 17" for a 2D shape, else "index 1234".
std::string where(std::size_t index, Shape shape);

/// What a runner's check pass showed about an output's writes (kit.hpp: poison and check_poison):
/// an element that held each pass's poison after it was never written, whatever value a kernel may
/// compute; the sentinels past each output held both poisons, or the run threw.
struct Writes {
    /// One output, where the outputs lie end to end: its unwritten elements, counted from its start.
    struct Output {
        std::string name;
        std::size_t offset = 0, size = 0;
        std::size_t unwritten = 0, first = 0, last = 0;
    };
    bool checked = false;   ///< a check pass ran; false for runs that judge writes their own way
    std::size_t judged = 0; ///< elements poisoned before the passes (an in-place output's start with values)
    std::size_t unwritten = 0;
    std::size_t elements = 0;    ///< of every output together, judged or not: the mask's length
    std::vector<Output> outputs; ///< each judged output
    std::vector<bool> mask;      ///< per element of the outputs, whether it was never written; empty when none was

    /// Judges next the output `name` of `size` elements, from `offset` among the `elements` of all.
    void add_output(std::string name, std::size_t offset, std::size_t size, std::size_t elements);
    /// Marks element `index` of the last output added never written.
    void mark(std::size_t index);
    /// "3 of 1000 elements of 'y' were never written (first at index 997, last at index 999)", each
    /// output that has any; "all 1000 poisoned elements were written". Positions are within each
    /// output, by `shape` (one shape for all, as the outputs are compared).
    std::string describe(Shape shape) const;
};

struct Agreement {
    ElementType type = ElementType::f32;
    std::size_t count = 0;     ///< elements compared
    std::size_t differing = 0; ///< elements that are not the same value (NaN never is)
    std::size_t beyond_tolerance = 0;
    double max_error = 0; ///< largest |got - want| / max(|want|, 1); infinity for NaN or a mismatch
    std::size_t max_error_index = 0;
    /// Largest distance in units in the last place (for integers, the difference); UINT64_MAX
    /// for NaN. Near zero it runs to millions for an error far below any tolerance: raw.
    std::uint64_t max_ulps = 0;
    std::size_t max_ulps_index = 0;
    /// Largest relative error (against max(|want|, 1)) in epsilons of the type, rounded up: what
    /// an `ulps` tolerance counts, so an error within n such ULPs shows as at most n, and near
    /// zero what the error is worth there; for integers, the difference. What tables and messages
    /// show.
    std::uint64_t max_scaled_ulps = 0;
    std::size_t max_scaled_ulps_index = 0;
    std::size_t skipped = 0; ///< elements left out: never written (Writes), so not compared
    Shape shape;
    bool size_mismatch = false;
    bool type_mismatch = false; ///< the two arrays hold different element types
    /// histogram[k]: elements whose distance in ULPs has bit width k (0: equal; 1: 1; 2: 2-3; 3:
    /// 4-7; ... 64), then histogram[65]: NaN where the other is not.
    std::vector<std::size_t> histogram;

    /// "row 3, column 17" for a 2D shape, else "index 1234".
    std::string where(std::size_t index) const;
    /// "3 of 1048576 elements differ, by at most 2 ULPs (row 3, column 17); largest relative
    /// error 1.2e-07 (index 55)"; "all 1048576 elements are identical". The ULPs are the scaled
    /// ones.
    std::string describe() const;
};

/// Compares `got` with `want` element by element; `tolerance` counts the elements whose relative
/// error passes it (relative to max(|want|, 1), the one rule for every comparison). Elements
/// marked in `skip` (empty, or one flag per element) are left out: no kernel wrote them. A NaN
/// agrees with the same bits of NaN only where `same_nan_agrees`: where `want` is a reference that
/// is NaN there itself, not between two runs' outputs, neither of which says NaN is right.
Agreement compare(const Values& got, const Values& want, double tolerance, Shape shape = {},
                  const std::vector<bool>& skip = {}, bool same_nan_agrees = true);

/// Distance between two values in units in the last place: how many values of their type lie
/// between them, +0 and -0 being one. UINT64_MAX when either is NaN.
template <class T> std::uint64_t ulp_distance(T a, T b);

/// A relative error as messages and tables show it: "0", "1.2e-07", "inf".
std::string error_text(double error);

/// The histogram's bucket labels: "0", "1", "2-3", "4-7", ..., "NaN".
std::string histogram_label(std::size_t bucket);

} // namespace duet::workload
