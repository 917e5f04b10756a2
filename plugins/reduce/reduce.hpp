// reduce: the sum or the max of n floats or doubles on any device, in three variants (atomic,
// tree, warp), and the CPU reference they are checked against. Other workloads reduce with it:
// jacobi and newton judge convergence on the device with a Reduction<double> or <float>.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include <duet/duet.hpp>

namespace duet::reduce {

enum class Variant {
    atomic, ///< each block's result folded into the one result by an atomic (one pass; float only)
    tree,   ///< each block folds pairwise in local memory; passes over the blocks' results
    warp    ///< each warp (sub-group) folds with shuffles; passes over the blocks' results
};

/// max follows fmax, which ignores NaN: the max of NaNs alone is the identity, -inf.
enum class Operation { sum, max };

/// The suffix of a kernel's name for its element type, as reduce's and jacobi's kernels are named:
/// "f32" or "f64".
template <class T> constexpr const char* kernel_type_suffix()
{
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
    return std::is_same_v<T, float> ? "f32" : "f64";
}

/// "atomic", "tree", "warp"; another name throws InvalidArgument listing them.
Variant variant_named(std::string_view name);

/// Threads per block and elements each thread folds first: REDUCE_BLOCK and REDUCE_ITEMS in
/// reduce.cu and reduce.cl. One block folds block_size × items_per_thread consecutive elements.
inline constexpr std::size_t block_size = 256;
inline constexpr std::size_t items_per_thread = 16;
inline constexpr std::size_t span = block_size * items_per_thread;

/// The kernels index with 32-bit integers: n + span must stay below 2^32.
inline constexpr std::size_t max_n = std::size_t{1} << 31;

/// The longest chain of roundings from an input to the result of a sum of n elements, over every
/// variant: a thread's items, the block's fold (at most block_size - 1 adds where a sub-group's
/// order is the driver's), then each further pass, or for atomic one add per block. With inputs
/// of one sign the relative error is at most gamma<T>(k) (Higham, Accuracy and Stability of
/// Numerical Algorithms, 4.2).
std::size_t rounding_depth(std::size_t n);

/// γ_k = k·u / (1 - k·u), u the unit roundoff of T: the relative error bound of k roundings in a
/// chain, as a sum's (Higham, 3.1).
template <class T> double gamma(std::size_t k)
{
    const double ku = static_cast<double>(k) * std::numeric_limits<T>::epsilon() / 2;
    return ku / (1 - ku);
}

/// Elements a Reduction of up to `capacity` elements allocates for its blocks' results: the
/// first pass's and the second's (a third writes over the first's); none for atomic.
std::size_t scratch_elements(Variant variant, std::size_t capacity);

/// A reduction of up to `capacity` elements of T (float or double) on one device: the variant's
/// kernel and the buffers of the blocks' results, made once, so that enqueue() is cheap and
/// allocates nothing. Threads: one queue at a time (the partial results are reused).
template <class T> class Reduction {
public:
    /// Throws Unsupported with refusal()'s reason where the device cannot run the variant.
    Reduction(const Device& device, Variant variant, Operation operation, std::size_t capacity);

    /// Why `device` cannot run `variant` on T: an OpenCL device with no cl_khr_fp64 (double), none
    /// with sub-groups (warp), atomic on doubles; nullopt where it can. Builds the kernels (once
    /// per device: the build is cached).
    static std::optional<std::string> refusal(const Device& device, Variant variant);

    /// Enqueues result[0] = the operation over in[0 .. n); returns without waiting. n from 1 to
    /// the capacity, else InvalidArgument naming the limit, before anything is enqueued.
    void enqueue(Queue& queue, const Buffer<T>& in, std::size_t n, const Buffer<T>& result) const;

private:
    Variant variant_;
    Operation operation_;
    std::size_t capacity_;
    Kernel kernel_;
    Buffer<T> partials_[2]; ///< the passes' results, alternately written and read
};

extern template class Reduction<float>;
extern template class Reduction<double>;

/// The operation over `in` in long double: the exact sum within n·2^-64, the max exactly.
/// in is not empty.
template <class T> T reference(Operation operation, std::span<const T> in);

} // namespace duet::reduce
