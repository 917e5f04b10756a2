// The host side of jacobi, written once against duet's API: the same code runs the CUDA and the
// OpenCL kernels, and the convergence test either way.
#include "jacobi.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

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

std::vector<std::pair<std::string, double>> Convergence::figures() const
{
    return {
        {"iterations", static_cast<double>(iterations)}, {"stalled", stalled ? 1.0 : 0.0}, {"last_delta", last_delta}};
}

Convergence Convergence::from_figures(const std::vector<std::pair<std::string, double>>& figures, double eps)
{
    Convergence convergence;
    for (const auto& [name, value] : figures) {
        convergence.iterations = name == "iterations" ? static_cast<std::size_t>(value) : convergence.iterations;
        convergence.stalled = name == "stalled" ? value != 0 : convergence.stalled;
        convergence.last_delta = name == "last_delta" ? value : convergence.last_delta;
    }
    convergence.converged = std::isfinite(convergence.last_delta) && convergence.last_delta <= eps;
    return convergence;
}

void require_solved(const Convergence& convergence, double eps, const std::string& backend)
{
    std::ostringstream text;
    text << convergence.iterations << " iterations, last max |x_{k+1} - x_k| = " << convergence.last_delta;
    if (!std::isfinite(convergence.last_delta)) {
        throw Error(backend, "jacobi", "diverged: " + text.str() + " is not finite");
    }
    if (!convergence.converged && !convergence.stalled) {
        text << ", still above eps = " << eps << " and decreasing at max_iterations";
        throw Error(backend, "jacobi", "did not converge: " + text.str());
    }
}

template <class T> std::optional<std::string> Solver<T>::refusal(const Device& device)
{
    if (!device.build(kernels::jacobi()).has_kernel(std::string("jacobi_update_") + reduce::kernel_type_suffix<T>())) {
        return "this OpenCL device has no cl_khr_fp64: jacobi.cl builds no double kernels";
    }
    if (auto reason = reduce::Reduction<T>::refusal(device, check_variant)) {
        return "jacobi's convergence check: " + *reason;
    }
    return std::nullopt;
}

template <class T> std::uint64_t Solver<T>::device_bytes(std::size_t n)
{
    // The deltas over all n, on several ranks, beside the check's scratch and value.
    return (reduce::scratch_elements(check_variant, n) + check_values + n) * sizeof(T);
}

template <class T> std::uint64_t Solver<T>::host_bytes(std::size_t n)
{
    return (n + check_values) * sizeof(T);
}

template <class T>
Solver<T>::Solver(const Device& device, Variant variant, Check check, std::size_t n, std::size_t block)
    : variant_(variant), check_(check), n_(validated<T>(device, n, block)), block_(block),
      deltas_(device.alloc_host(n * sizeof(T), HostMemoryKind::pinned)),
      largest_delta_(device, check_variant, reduce::Operation::max, n), check_value_(device, check_values)
{
    partial_kernel_ = kernel<T>(device, name(variant));
    update_ = kernel<T>(device, "update");
    delta_ = kernel<T>(device, "delta");
}

template <class T> workload::Part Solver<T>::all_rows() const
{
    return workload::part_of(n_, n_, 0, 0, 1);
}

template <class T>
void Solver<T>::check_sizes(const Queue& queue, const Arrays<T>& arrays, const workload::Part& rows) const
{
    const std::size_t m = rows.rows;
    const struct {
        const char* name;
        const Buffer<T>& buffer;
        std::size_t needed;
    } needs[] = {{"a", arrays.a, m * n_},
                 {"f", arrays.f, m},
                 {"x", arrays.x, n_},
                 {"other", arrays.other, n_},
                 {"partial", arrays.partial, partial_elements(n_, m)},
                 {"delta", arrays.delta, m}};
    const std::string equations = m == n_ ? std::to_string(n_) + " equations"
                                          : "rows " + std::to_string(rows.first_row) + " .. " +
                                                std::to_string(rows.first_row + m - 1) + " of " + std::to_string(n_) +
                                                " equations";
    for (const auto& need : needs) {
        if (need.buffer.size() < need.needed) {
            throw InvalidArgument(queue.device().backend(), "jacobi::Solver",
                                  std::string("array '") + need.name + "' holds " + std::to_string(need.buffer.size()) +
                                      " elements; " + equations + " need " + std::to_string(need.needed));
        }
    }
}

template <class T>
void Solver<T>::enqueue_step(Queue& queue, const Arrays<T>& arrays, const workload::Part& rows, std::size_t from) const
{
    const Buffer<T>& x0 = from == 0 ? arrays.x : arrays.other;
    const Buffer<T>& x1 = from == 0 ? arrays.other : arrays.x;
    const std::size_t m = rows.rows;
    const auto n32 = static_cast<std::uint32_t>(n_);
    const auto m32 = static_cast<std::uint32_t>(m);
    // Where a row's diagonal is in the rank's block of A: row k's column r0 + k, at k · n + (r0 + k)
    // row-major, at k + (r0 + k) · m transposed.
    const bool transposed = transposed_layout(variant_);
    const std::uint32_t row_stride = transposed ? 1 : n32;
    const std::uint32_t column_stride = transposed ? m32 : 1;
    queue.launch(partial_kernel_, Range::cover(2, {m, segments(n_), 1}, {block_, 1, 1}), arrays.a, x0, arrays.partial,
                 n32, m32);
    queue.launch(update_, Range::cover(m, block_), arrays.a, arrays.f, x0, arrays.partial, x1, arrays.delta, m32,
                 static_cast<std::uint32_t>(rows.first_row), static_cast<std::uint32_t>(segments(n_)), row_stride,
                 column_stride);
}

template <class T> void Solver<T>::step(Queue& queue, const Arrays<T>& arrays) const
{
    const workload::Part rows = all_rows();
    check_sizes(queue, arrays, rows);
    enqueue_step(queue, arrays, rows, 0);
}

template <class T>
Convergence Solver<T>::solve(Queue& queue, const Arrays<T>& arrays, double eps, std::size_t max_iterations,
                             workload::Communicator& ranks)
{
    const workload::Part rows = workload::part_of(n_, n_, 0, ranks.rank(), ranks.size());
    const std::size_t m = rows.rows;
    check_sizes(queue, arrays, rows);
    const std::vector<const void*> system{arrays.a.raw().state().get(),       arrays.f.raw().state().get(),
                                          arrays.x.raw().state().get(),       arrays.other.raw().state().get(),
                                          arrays.partial.raw().state().get(), arrays.delta.raw().state().get()};
    const bool distributed = ranks.size() > 1;
    if (distributed && !all_deltas_.raw()) {
        all_deltas_ = queue.device().alloc<T>(n_); // before recording: a capture cannot allocate
    }
    if (recorded_for_ != system || recorded_rows_ != std::pair{rows.first_row, m}) {
        // Kernels only: the gather runs between the replays. On one rank the check follows the step
        // in one sequence; on several, it follows the gather, over all n: every rank then holds the
        // same deltas and takes the same max, with no exchange of its own.
        for (const std::size_t from : {0, 1}) {
            iterations_[from] = queue.record_sequence([&](Queue& recording) {
                enqueue_step(recording, arrays, rows, from);
                if (check_ == Check::device && !distributed) {
                    largest_delta_.enqueue(recording, arrays.delta, m, check_value_.device());
                }
            });
            if (distributed) {
                checks_[from] = queue.record_sequence([&](Queue& recording) {
                    const Buffer<T>& x0 = from == 0 ? arrays.x : arrays.other;
                    const Buffer<T>& x1 = from == 0 ? arrays.other : arrays.x;
                    recording.launch(delta_, Range::cover(n_, block_), x0, x1, all_deltas_,
                                     static_cast<std::uint32_t>(n_));
                    if (check_ == Check::device) {
                        largest_delta_.enqueue(recording, all_deltas_, n_, check_value_.device());
                    }
                });
            }
        }
        recorded_for_ = system;
        recorded_rows_ = {rows.first_row, m};
    }
    // Each rank's block of x, rank by rank: as the ranks split the rows.
    std::vector<std::size_t> blocks;
    for (int rank = 0; rank < ranks.size(); ++rank) {
        blocks.push_back(workload::part_of(n_, n_, 0, rank, ranks.size()).rows);
    }
    queue.fill(arrays.x.view(0, n_), T(0));
    // The deltas the check reads: the rank's own rows on one rank, all n on several.
    const std::size_t checked = distributed ? n_ : m;
    const std::span<T> deltas = deltas_.as<T>().first(checked);
    Convergence convergence;
    for (bool stop = false; !stop;) {
        const std::size_t from = convergence.iterations % 2;
        queue.replay(iterations_[from]);
        if (distributed) {
            ranks.all_gather(queue, (from == 0 ? arrays.other : arrays.x).raw(), blocks, workload::element_type_of<T>);
            queue.replay(checks_[from]);
        }
        double delta = 0;
        if (check_ == Check::device) {
            check_value_.device_written();
            check_value_.to_host(queue);
            delta = check_value_.host()[0];
        } else {
            queue.read(deltas, (distributed ? all_deltas_ : arrays.delta).view(0, checked));
            queue.finish();
            delta = *std::ranges::max_element(deltas);
        }
        stop = convergence.record(delta, eps, max_iterations);
    }
    return convergence;
}

template class Solver<float>;
template class Solver<double>;

} // namespace duet::jacobi
