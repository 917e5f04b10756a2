// The host side of jacobi, written once against duet's API: the same code runs the CUDA and the
// OpenCL kernels, and the convergence test either way.
#include "jacobi.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <duet_kernels/jacobi.hpp>

namespace duet::jacobi {
namespace {

const char* name(Variant variant)
{
    switch (variant) {
    case Variant::rows:
        return "rows";
    case Variant::transposed:
        return "transposed";
    case Variant::tiled:
        return "tiled";
    }
    return "?";
}

template <class T> Kernel kernel(const Device& device, const std::string& stem)
{
    return device.build(kernels::jacobi()).kernel("jacobi_" + stem + "_" + reduce::kernel_type_suffix<T>());
}

/// n, once it is known to fit the kernels and the device can run T; before anything is allocated.
template <class T> std::size_t validated(const Device& device, std::size_t n, std::size_t block)
{
    if (n == 0 || n > max_n) {
        throw InvalidArgument(device.backend(), "jacobi::Solver",
                              "n = " + std::to_string(n) + " is outside 1 .. " + std::to_string(max_n) +
                                  " (the kernels index rows with 32-bit integers)");
    }
    if (block == 0) {
        throw InvalidArgument(device.backend(), "jacobi::Solver", "block size 0: a block needs a thread");
    }
    if (const auto reason = Solver<T>::refusal(device)) {
        throw Unsupported(device.backend(), "jacobi::Solver", *reason);
    }
    return n;
}

} // namespace

Variant variant_named(const std::string& variant)
{
    for (const Variant known : {Variant::rows, Variant::transposed, Variant::tiled}) {
        if (variant == name(known)) {
            return known;
        }
    }
    throw InvalidArgument("duet", "jacobi::variant_named",
                          "unknown variant '" + variant + "': rows, transposed or tiled");
}

bool transposed_layout(Variant variant)
{
    return variant != Variant::rows;
}

template <class T> std::optional<std::string> Solver<T>::refusal(const Device& device)
{
    if (!device.build(kernels::jacobi()).has_kernel(std::string("jacobi_update_") + reduce::kernel_type_suffix<T>())) {
        return "this OpenCL device has no cl_khr_fp64: jacobi.cl builds no double kernels";
    }
    if (auto reason = reduce::Reduction<T>::refusal(device, reduce::Variant::tree)) {
        return "jacobi's convergence check: " + *reason;
    }
    return std::nullopt;
}

template <class T>
Solver<T>::Solver(const Device& device, Variant variant, Check check, std::size_t n, std::size_t block)
    : variant_(variant), check_(check), n_(validated<T>(device, n, block)),
      block_(block), iterates_{Mirror<T>(device, n), Mirror<T>(device, n)}, delta_(device, n),
      largest_delta_(device, reduce::Variant::tree, reduce::Operation::max, n), check_value_(device, 1)
{
    partial_kernel_ = kernel<T>(device, name(variant));
    update_ = kernel<T>(device, "update");
    partial_ = device.alloc<T>(segments(n) * n);
}

template <class T>
void Solver<T>::enqueue_step(Queue& queue, const Buffer<T>& a, const Buffer<T>& f, std::size_t from) const
{
    const Buffer<T>& x0 = iterates_[from].device();
    const auto n32 = static_cast<std::uint32_t>(n_);
    queue.launch(partial_kernel_, Range::cover(2, {n_, segments(n_), 1}, {block_, 1, 1}), a, x0, partial_, n32);
    queue.launch(update_, Range::cover(n_, block_), a, f, x0, partial_, iterates_[1 - from].device(), delta_.device(),
                 n32, static_cast<std::uint32_t>(segments(n_)));
}

template <class T> void Solver<T>::stepped()
{
    iterates_[1 - current_].device_written();
    delta_.device_written();
    current_ = 1 - current_;
}

template <class T> void Solver<T>::step(Queue& queue, const Buffer<T>& a, const Buffer<T>& f)
{
    enqueue_step(queue, a, f, current_);
    stepped();
}

template <class T>
Convergence Solver<T>::solve(Queue& queue, const Buffer<T>& a, const Buffer<T>& f, double eps,
                             std::size_t max_iterations)
{
    const std::pair<const void*, const void*> system{a.raw().state().get(), f.raw().state().get()};
    if (recorded_for_ != system) {
        for (const std::size_t from : {0, 1}) {
            iterations_[from] = queue.record_sequence([&](Queue& recording) {
                enqueue_step(recording, a, f, from);
                if (check_ == Check::device) {
                    largest_delta_.enqueue(recording, delta_.device(), n_, check_value_.device());
                }
            });
        }
        recorded_for_ = system;
    }
    queue.fill(iterates_[current_].device(), T(0));
    iterates_[current_].device_written();
    Convergence convergence;
    for (bool stop = false; !stop;) {
        queue.replay(iterations_[current_]);
        stepped();
        double delta = 0;
        if (check_ == Check::device) {
            check_value_.device_written();
            check_value_.to_host(queue);
            delta = check_value_.host()[0];
        } else {
            delta_.to_host(queue);
            delta = *std::ranges::max_element(delta_.host().first(n_));
        }
        stop = convergence.record(delta, eps, max_iterations);
    }
    return convergence;
}

template class Solver<float>;
template class Solver<double>;

} // namespace duet::jacobi
