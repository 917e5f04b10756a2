// jacobi: Jacobi iteration for a dense, diagonally dominant system A x = f on any device (seed
// 001, example 1), A read by rows, transposed or transposed with x staged in local memory; float
// or double; the convergence test on the device (reduce's max of |x_{k+1} - x_k|, one value read
// per check) or as the seed does it (the whole delta vector read and folded on the host).
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>
#include <duet/mirror.hpp>

#include "reduce.hpp"

namespace duet::jacobi {

enum class Variant {
    rows,       ///< A row-major: thread k walks row k (uncoalesced)
    transposed, ///< Aᵀ stored: thread k walks column k (coalesced)
    tiled       ///< as transposed, x staged through local memory
};

/// "rows", "transposed", "tiled"; another name throws InvalidArgument listing them.
Variant variant_named(const std::string& name);
/// Whether the variant reads A stored transposed.
bool transposed_layout(Variant variant);

enum class Check {
    device, ///< reduce's max over the delta vector on the device; one value read per iteration
    host    ///< the seed's: the whole delta vector read each iteration, its max taken on the host
};

/// Columns of one segment of a row's dot product: JACOBI_SEGMENT in jacobi.cu and jacobi.cl.
inline constexpr std::size_t segment_columns = 512;
/// Segments of a row: the dot product's partial sums, added in order by the update.
inline constexpr std::size_t segments(std::size_t n)
{
    return (n + segment_columns - 1) / segment_columns;
}

/// The kernels index rows with 32-bit integers.
inline constexpr std::size_t max_n = std::size_t{1} << 20;

/// A system whose exact solution is known: off-diagonal entries in ±[0.5, 2), each diagonal
/// entry twice its row's off-diagonal magnitudes (so the iteration contracts by at least 1/2 in
/// the max norm), x* drawn in ±[0.5, 2) and f = A x* (accumulated in long double).
template <class T> struct System {
    std::size_t n = 0;
    std::vector<T> a; ///< row-major
    std::vector<T> f;
    std::vector<T> solution; ///< x*
};
template <class T> System<T> make_system(std::size_t n, std::uint64_t seed);

/// Aᵀ, for the transposed and tiled variants.
template <class T> std::vector<T> transpose(std::span<const T> a, std::size_t n);

/// When the iteration stops, the same rule on the device and on the CPU: max |x_{k+1} - x_k| <= eps
/// (converged), or no smaller than the iteration before's (stalled: in exact arithmetic it at
/// least halves each step, so rounding, of about sqrt(n) ulps per step, is what moves x now), or
/// max_iterations reached or a delta that is not finite (reduce's max ignores NaN, so a vector
/// of NaN reads -inf), which the caller reports as a failure.
struct Convergence {
    std::size_t iterations = 0;
    double last_delta = 0; ///< max |x_{k+1} - x_k| of the last iteration
    bool converged = false;
    bool stalled = false;

    /// Records one iteration's max delta; whether to stop.
    bool record(double delta, double eps, std::size_t max_iterations)
    {
        const bool no_progress = iterations > 0 && delta >= last_delta;
        ++iterations;
        last_delta = delta;
        if (!std::isfinite(delta)) {
            converged = stalled = false;
            return true;
        }
        converged = delta <= eps;
        stalled = !converged && no_progress;
        return converged || stalled || iterations >= max_iterations;
    }
};

/// The variant's kernels for T built once per device, and the buffers an iteration uses.
/// Threads: one queue at a time.
template <class T> class Solver {
public:
    /// Throws Unsupported where the device cannot run T (no cl_khr_fp64); InvalidArgument for n
    /// outside 1 .. max_n or a block of 0.
    Solver(const Device& device, Variant variant, Check check, std::size_t n, std::size_t block);

    /// Why `device` cannot run T; nullopt where it can.
    static std::optional<std::string> refusal(const Device& device);

    /// Enqueues one step from the current iterate into the other: partial sums, then the update
    /// and its delta vector. Returns without waiting.
    void step(Queue& queue, const Buffer<T>& a, const Buffer<T>& f);

    /// From x0 = 0, steps until Convergence::record says stop: one host synchronisation per
    /// iteration, to read the check's value. Each iteration's kernels (the step, and the device
    /// check's reduction) are recorded once per direction between the two iterates, on the first
    /// solve of this `a` and `f`, and replayed. The solution is then current on solution()'s
    /// device side.
    Convergence solve(Queue& queue, const Buffer<T>& a, const Buffer<T>& f, double eps, std::size_t max_iterations);

    /// The iterate the last step wrote.
    Mirror<T>& solution() { return iterates_[current_]; }

private:
    /// The step's kernels from iterate `from` into the other, with no bookkeeping.
    void enqueue_step(Queue& queue, const Buffer<T>& a, const Buffer<T>& f, std::size_t from) const;
    /// The host's record of a step: the other iterate and the deltas written, and now current.
    void stepped();

    Variant variant_;
    Check check_;
    std::size_t n_;
    std::size_t block_;
    Kernel partial_kernel_;
    Kernel update_;
    Buffer<T> partial_;
    Mirror<T> iterates_[2];
    std::size_t current_ = 0;
    Mirror<T> delta_;
    reduce::Reduction<T> largest_delta_;
    Mirror<T> check_value_;
    /// The iterations recorded from each iterate, and the `a` and `f` they were recorded with.
    /// The sequences keep those buffers alive, so no other buffer can take their addresses.
    Sequence iterations_[2];
    std::pair<const void*, const void*> recorded_for_{};
};

extern template class Solver<float>;
extern template class Solver<double>;

/// The CPU reference: the same iteration, segments summed and added in the kernels' order, from
/// x0 = 0 until Convergence::record says stop.
template <class T>
Convergence reference(const System<T>& system, double eps, std::size_t max_iterations, std::span<T> x);

} // namespace duet::jacobi
