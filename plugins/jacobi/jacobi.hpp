// jacobi: dense Jacobi, A against Aᵀ: the iteration for a dense, diagonally dominant system
// A x = f on any device, A read by rows, transposed or transposed with x staged in local memory;
// float or double; the convergence test on the device (reduce's max of |x_{k+1} - x_k|, one value
// read per check) or on the host (the whole delta vector read and folded there). On a distributed
// run each rank iterates its block of rows (workload::part_of), x all-gathered after each step and
// the check's max taken over the ranks: every element is computed as on one rank, bit for bit.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>
#include <duet/mirror.hpp>
#include <duet/workload/communicator.hpp>
#include <duet/workload/kit.hpp>

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
    host    ///< the whole delta vector read each iteration, its max taken on the host
};

/// Columns of one segment of a row's dot product: JACOBI_SEGMENT in jacobi.cu and jacobi.cl.
inline constexpr std::size_t segment_columns = 512;
/// Segments of a row: the dot product's partial sums, added in order by the update.
inline constexpr std::size_t segments(std::size_t n)
{
    return (n + segment_columns - 1) / segment_columns;
}

/// The partial sums of one step over `rows` of the n rows (a rank's block): a segment's of each row.
inline constexpr std::size_t partial_elements(std::size_t n, std::size_t rows)
{
    return segments(n) * rows;
}
/// Those of all n rows: one rank's.
inline constexpr std::size_t partial_elements(std::size_t n)
{
    return partial_elements(n, n);
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
/// Host memory make_system<T>(n) holds at its peak: the floats it draws and the system.
template <class T> std::uint64_t system_bytes(std::size_t n);

/// A (row-major, n · n) into `stored` as `variant` reads it over `ranks` ranks: as it is for rows;
/// for transposed and tiled each rank's block of rows (workload::part_of) transposed, n × m_r, the
/// blocks in rank order (so each rank's part is still its rows' n · m_r elements): Aᵀ on one rank.
template <class T>
void lay_out(std::span<const T> a, std::size_t n, Variant variant, std::span<T> stored, int ranks = 1);

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

    /// As a run reports it: iterations, stalled (1 or 0) and last_delta.
    std::vector<std::pair<std::string, double>> figures() const;
    /// Read back from figures(), whether it converged judged against `eps` as record() judges it.
    static Convergence from_figures(const std::vector<std::pair<std::string, double>>& figures, double eps);
};

/// The arrays an iteration reads and writes: the system's rows the rank iterates, m of n (A's m · n
/// in the variant's layout, f's m), the two iterates it alternates between, whole (n each, x0 in
/// `x`), and the step's working arrays for its rows, the partial sums (partial_elements(n, m)) and
/// the deltas (m). On one rank m = n. A workload's Spec declares them; the solver holds only its
/// convergence check's memory.
template <class T> struct Arrays {
    Buffer<T> a, f, x, other, partial, delta;
};

/// Whether a solve's solution is in `other`: its steps alternate from `x`, so after an odd number.
inline bool ends_in_other(const Convergence& convergence)
{
    return convergence.iterations % 2 == 1;
}

/// max |x_k - y_k|: a solution's error against x*.
template <class T> double max_distance(std::span<const T> x, std::span<const T> y);

/// Throws Error where a solve failed: a last delta that is not finite (diverged), or one still
/// above eps and decreasing at max_iterations (did not converge). `backend` names the device's.
void require_solved(const Convergence& convergence, double eps, const std::string& backend);

/// How far a solution is from x*: |x_k - x*| <= |x_k - x_{k-1}| + 2r where the iteration contracts
/// by 1/2 in the max norm and r is a step's rounding, at most γ_{n+3}·4|x*| with |x*| < 2: 16·γ_{n+3}
/// after the contraction. Two solutions (the device's, the reference's) differ by at most the sum
/// of their bounds.
template <class T> double solution_bound(const Convergence& convergence, std::size_t n)
{
    return convergence.last_delta + 16 * reduce::gamma<T>(n + 3);
}

/// The variant's kernels for T built once per device, and the convergence check's memory.
/// Threads: one queue at a time.
template <class T> class Solver {
public:
    /// Throws Unsupported where the device cannot run T (no cl_khr_fp64); InvalidArgument for n
    /// outside 1 .. max_n or a block of 0.
    Solver(const Device& device, Variant variant, Check check, std::size_t n, std::size_t block);

    /// Why `device` cannot run T; nullopt where it can.
    static std::optional<std::string> refusal(const Device& device);
    /// What a Solver for n equations holds on the device (the check's reduction, its partial
    /// results and the value read back) and on the host (the deltas read back and that value).
    static std::uint64_t device_bytes(std::size_t n);
    static std::uint64_t host_bytes(std::size_t n);

    /// Enqueues one step of all n rows from `x` into `other` (one rank's): partial sums, then the
    /// update and its delta vector. Returns without waiting; InvalidArgument for an array smaller
    /// than it needs.
    void step(Queue& queue, const Arrays<T>& arrays) const;

    /// From x0 = 0 in `x`, steps until Convergence::record says stop: one host synchronisation per
    /// iteration, to read the check's value. Each iteration's kernels (the step, and the device
    /// check's reduction) are recorded once per direction between the two iterates, on the first
    /// solve of these arrays, and replayed. On several `ranks` each iterates its block of rows
    /// (workload::part_of of n), then x's blocks are all-gathered and the check's max is taken over
    /// the ranks (on the device, or by max_over_ranks), between the replays: every rank stops at
    /// the same iteration with the same x. The solution is then in `x`, or in `other` where
    /// ends_in_other().
    Convergence solve(Queue& queue, const Arrays<T>& arrays, double eps, std::size_t max_iterations,
                      workload::Communicator& ranks = workload::one_rank());

private:
    /// The check's reduction, and the values it reads back.
    static constexpr reduce::Variant check_variant = reduce::Variant::tree;
    static constexpr std::size_t check_values = 1;

    /// The step's kernels over `rows` (a Part of n rows) from `x` into `other` (`from` 0) or back (1).
    void enqueue_step(Queue& queue, const Arrays<T>& arrays, const workload::Part& rows, std::size_t from) const;
    /// InvalidArgument naming the first array smaller than `rows` of the n equations need.
    void check_sizes(const Queue& queue, const Arrays<T>& arrays, const workload::Part& rows) const;
    /// All n rows: one rank's.
    workload::Part all_rows() const;

    Variant variant_;
    Check check_;
    std::size_t n_;
    std::size_t block_;
    Kernel partial_kernel_;
    Kernel update_;
    Kernel delta_;      ///< on several ranks: the deltas over all n once x is gathered
    HostBuffer deltas_; ///< the delta vector read back, for the host's check
    reduce::Reduction<T> largest_delta_;
    Mirror<T> check_value_;
    /// The iterations recorded from each iterate, and the arrays and rows they were recorded
    /// with. The sequences keep those buffers alive, so no other buffer can take their addresses.
    Sequence iterations_[2];
    /// On several ranks: the convergence check, from each iterate, after the gather; and the
    /// deltas over all n it reads (each rank takes the max itself, with no exchange of its own).
    Sequence checks_[2];
    Buffer<T> all_deltas_;
    std::vector<const void*> recorded_for_;
    std::pair<std::size_t, std::size_t> recorded_rows_;
};

extern template class Solver<float>;
extern template class Solver<double>;

/// The CPU reference: the same iteration, segments summed and added in the kernels' order, from
/// x0 = 0 until Convergence::record says stop.
template <class T>
Convergence reference(const System<T>& system, double eps, std::size_t max_iterations, std::span<T> x);

} // namespace duet::jacobi
