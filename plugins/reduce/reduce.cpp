// The host side of reduce, written once against duet's API: the same code enqueues the CUDA and
// the OpenCL kernels, pass after pass until one value is left.
#include "reduce.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <duet_kernels/reduce.hpp>

namespace duet::reduce {
namespace {

const char* name(Variant variant)
{
    switch (variant) {
    case Variant::atomic:
        return "atomic";
    case Variant::tree:
        return "tree";
    case Variant::warp:
        return "warp";
    }
    return "?";
}

const char* name(Operation operation)
{
    return operation == Operation::sum ? "sum" : "max";
}

template <class T> std::string kernel_name(Variant variant, Operation operation)
{
    return std::string("reduce_") + name(variant) + "_" + name(operation) + "_" + kernel_type_suffix<T>();
}

std::size_t blocks(std::size_t n)
{
    return (n + span - 1) / span;
}

/// Passes a multi-pass variant makes over n elements: until one block's result is left.
std::size_t passes(std::size_t n)
{
    std::size_t count = 1;
    for (std::size_t left = blocks(n); left > 1; left = blocks(left)) {
        ++count;
    }
    return count;
}

template <class T> std::optional<std::string> missing_kernel_reason(const Program& program, Variant variant)
{
    if (program.has_kernel(kernel_name<T>(variant, Operation::sum))) {
        return std::nullopt;
    }
    // Only reduce.cl leaves kernels out, for what the device's OpenCL C lacks.
    if (sizeof(T) == sizeof(double) && !program.has_kernel(kernel_name<double>(Variant::tree, Operation::sum))) {
        return "this OpenCL device has no cl_khr_fp64: reduce.cl builds no double kernels";
    }
    return "this OpenCL device has no sub-groups (cl_khr_subgroups): the warp variant folds each sub-group with "
           "sub_group_reduce_*";
}

/// Results of the first pass, then of the second, over `capacity` elements; 0 where a pass writes
/// straight into the result.
std::pair<std::size_t, std::size_t> partial_sizes(Variant variant, std::size_t capacity)
{
    if (variant == Variant::atomic || blocks(capacity) <= 1) {
        return {0, 0};
    }
    const std::size_t first = blocks(capacity);
    return {first, blocks(first) > 1 ? blocks(first) : 0};
}

} // namespace

Variant variant_named(std::string_view variant)
{
    for (const Variant known : {Variant::atomic, Variant::tree, Variant::warp}) {
        if (variant == name(known)) {
            return known;
        }
    }
    throw InvalidArgument("duet", "reduce::variant_named",
                          "unknown reduction variant '" + std::string(variant) + "': atomic, tree or warp");
}

std::size_t rounding_depth(std::size_t n)
{
    // A thread's items, then at most block_size - 1 adds in the block's fold (the tree's is log2 of
    // it, the warp's 5 + 7; a sub-group's order is the driver's), per pass; atomic: one pass, then
    // up to one add per block in any order.
    const std::size_t per_pass = items_per_thread + block_size - 1;
    return std::max(passes(n) * per_pass, per_pass + blocks(n)) + 1; // + 1: the reference's rounding to T
}

std::size_t scratch_elements(Variant variant, std::size_t capacity)
{
    const auto [first, second] = partial_sizes(variant, capacity);
    return first + second;
}

template <class T> std::optional<std::string> Reduction<T>::refusal(const Device& device, Variant variant)
{
    if (variant == Variant::atomic && sizeof(T) == sizeof(double)) {
        return std::string("the atomic variant folds floats only: OpenCL 1.2 has no 64-bit compare-and-swap in its "
                           "core, so neither API's kernels are given one");
    }
    const Program program = device.build(kernels::reduce());
    if (auto reason = missing_kernel_reason<T>(program, variant)) {
        return reason;
    }
    const Kernel kernel = program.kernel(kernel_name<T>(variant, Operation::sum));
    if (kernel.properties().max_block_size < block_size) {
        return kernel.name() + " launches at most " + std::to_string(kernel.properties().max_block_size) +
               " threads per block on this device; the reduction's blocks are " + std::to_string(block_size);
    }
    return std::nullopt;
}

template <class T>
Reduction<T>::Reduction(const Device& device, Variant variant, Operation operation, std::size_t capacity)
    : variant_(variant), operation_(operation), capacity_(capacity)
{
    if (const auto reason = refusal(device, variant)) {
        throw Unsupported(device.backend(), "reduce::Reduction", *reason);
    }
    if (capacity == 0 || capacity > max_n) {
        throw InvalidArgument(device.backend(), "reduce::Reduction",
                              "capacity " + std::to_string(capacity) + " is outside 1 .. " + std::to_string(max_n) +
                                  " elements (the kernels index with 32-bit integers)");
    }
    kernel_ = device.build(kernels::reduce()).kernel(kernel_name<T>(variant, operation));
    const auto [first, second] = partial_sizes(variant, capacity);
    if (first > 0) {
        partials_[0] = device.alloc<T>(first);
    }
    if (second > 0) {
        partials_[1] = device.alloc<T>(second);
    }
}

template <class T>
void Reduction<T>::enqueue(Queue& queue, const Buffer<T>& in, std::size_t n, const Buffer<T>& result) const
{
    const std::string& backend = queue.device().backend();
    if (n == 0 || n > capacity_ || n > in.size()) {
        throw InvalidArgument(backend, "reduce::Reduction::enqueue",
                              "n = " + std::to_string(n) + " elements: must be from 1 to the reduction's capacity of " +
                                  std::to_string(capacity_) + " and at most the input's " + std::to_string(in.size()));
    }
    if (result.size() == 0) {
        throw InvalidArgument(backend, "reduce::Reduction::enqueue", "the result buffer holds no element");
    }
    if (variant_ == Variant::atomic) {
        const T identity = operation_ == Operation::sum ? T(0) : -std::numeric_limits<T>::infinity();
        queue.fill(result.view(0, 1), identity);
        queue.launch(kernel_, Range::grid_block(blocks(n), block_size), in, result, static_cast<std::uint32_t>(n));
        return;
    }
    const Buffer<T>* source = &in;
    std::size_t count = n;
    for (std::size_t next = 0;; next ^= 1) {
        const std::size_t folded = blocks(count);
        const Buffer<T>& target = folded == 1 ? result : partials_[next];
        queue.launch(kernel_, Range::grid_block(folded, block_size), *source, target,
                     static_cast<std::uint32_t>(count));
        if (folded == 1) {
            return;
        }
        source = &partials_[next];
        count = folded;
    }
}

template class Reduction<float>;
template class Reduction<double>;

} // namespace duet::reduce
