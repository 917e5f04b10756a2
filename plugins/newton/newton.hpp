// newton: the continuous analogue of Newton's method for the nonlinear system phi(x) = A(x) x - f = 0
// in double on any device, its convergence judged on the device; and the CPU reference it is checked
// against, the same algorithm on the host.
//
// The problem. a_ik(x) = sin²(x_i) cos²(x_k) + N δ_ik on the band |i - k| <= Nd = (int)(0.15 N),
// zero off it. Its Fréchet derivative L(x) = {l_ij} = Σ_k [∂a_ik/∂x_j x_k + a_ik δ_kj], with
// ∂a_ik/∂x_j = sin(2x_i) cos²(x_k) δ_ij - sin(2x_k) sin²(x_i) δ_kj, is on the same band:
//   l_ij = a_ij - sin²(x_i) sin(2x_j) x_j + δ_ij sin(2x_i) Σ_{|k-i| <= Nd} cos²(x_k) x_k.
// The exact solution is x*_i = 1 + sin(i + 1) / 2 (in [0.5, 1.5]), f = A(x*) x* computed on the
// host, and the start x0 = 0, where L(x0) = N I. While x stays in [0, π/2], L is strongly
// diagonally dominant: l_ii >= N - 1 against 2Nd <= 0.3 N off-diagonal terms each at most 1 in
// size, so the Jacobi iteration contracts by at most about 0.3 per step (about 0.1 is seen).
//
// The method: x(t) with d/dt phi(x(t)) = L(x) x'(t) = -phi(x(t)), so phi(x(t)) = e^-t phi(x0), in
// steps of tau: outer iterations until eps_G <= eps_g of
//   Matrix_A (A(x)); AX (A x); PHI (phi = A x - f); D_PHI (L(x)); v = 0;
//   inner iterations until eps_L <= eps_l of { Solve_L (a Jacobi step for L v = -phi); Eps_L };
//   Solve_G (x1 = x + tau v); Eps_G (x = x1),
// each eps the mean of |new - old| over the N elements, summed on the device by a
// reduce::Reduction<double> and read as one double: one host synchronisation per check. tau = 1 is
// Newton's method (quadratic convergence); below 1 the error shrinks by about 1 - tau per outer
// iteration. A solve that reaches max_outer outer iterations, or max_inner inner iterations in one
// linear solve, or whose eps is not finite, has not converged and says so (Convergence::failure).
//
// The original CUDA program's kernels and main loop (the experiment this workload comes from), and
// what duet does instead:
//  - D_PHI declares `double sum1 = sum2 = 0.;`: sum2 is never declared (it does not compile);
//    meant was `double sum1 = 0., sum2 = 0.;`.
//  - D_PHI's sum1 line, `D(k,j)*(pow(sin(dX0[i])*cos(dX0[k]),2.))+D(i,k)*(double)N);`, closes one
//    parenthesis more than it opens; meant was D(k,j)·(sin²x_i cos²x_k + N D(i,k)) = a_ik δ_kj.
//  - D_PHI's braces: the `}` after `dL[i+j*N] = sum1 + sum2;` closes the if, the next one the
//    kernel, and `else {dL[i+j*N] = 0.;}` is left outside any function.
//  - Matrix_A stores sin²(x_j) cos²(x_i) at dA[i + j*N], which AX reads as a_ij: that is a_ji, so
//    PHI computes A(x)ᵀ x - f while D_PHI (whose sum1 is a_ij) differentiates A(x) x. The Newton
//    step then uses the derivative of another function. Here both use a_ij = sin²(x_i) cos²(x_j).
//  - No kernel guards its index (`if (i < N)`): N must be a multiple of the block, else every
//    kernel reads and writes past its arrays. Here every kernel does.
//  - `cudaMemset(dV0, 1, mem_sizeX)` sets bytes: each double becomes 0x0101010101010101, about
//    7.8e-304, not 1 (nor 0). Here v starts at 0.
//  - `while (eps_G > EPS_G)` (and eps_L's): a NaN eps ends the loop as if it had converged, and no
//    cap stops a run that never converges. Here both loops stop at a cap, and a cap reached or a
//    NaN is reported as a failure.
//  - Not mistakes, but costs: the full N × N matrices (70% zeros: the products read N terms a row
//    where 2Nd + 1 are nonzero), pow(x, 2.) for squares, 2Nd + 1 terms summed for each element of
//    L where two are nonzero (O(N² Nd) per outer iteration), and the whole delta vector copied to
//    the host at every check. Here the matrices are stored by diagonals (newton.cu says how, still
//    coalesced), squares are products, D_PHI sums only the diagonal's S_i, and the checks reduce
//    on the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <duet/duet.hpp>
#include <duet/mirror.hpp>

#include "reduce.hpp"

namespace duet::newton {

/// The kernels index with 32-bit integers: (2Nd + 1) N stays below 2^32 up to this N.
inline constexpr std::size_t max_n = 65536;

/// Nd = (int)(0.15 N): the diagonals on each side of the main one, as the original program computes it.
std::size_t half_band(std::size_t n);
/// 2Nd + 1: the diagonals stored.
inline std::size_t band_width(std::size_t n)
{
    return 2 * half_band(n) + 1;
}
/// The band's nonzero elements: its diagonals less the corners that fall outside the matrix.
double nonzeros(std::size_t n);

/// x*_i = 1 + sin(i + 1) / 2: the exact solution, from which f is made.
double exact_solution(std::size_t i);
/// x0_i: where the iteration starts.
inline constexpr double start_value = 0.0;

/// What one solve is asked to do.
struct Problem {
    std::size_t n = 2048;
    double tau = 0.5;     ///< the step in t: x1 = x + tau v
    double eps_g = 1e-6;  ///< the outer iteration stops once the mean |x1 - x| is at most this
    double eps_l = 1e-15; ///< each linear solve stops once the mean |v1 - v| is at most this
    std::size_t max_outer = 1000;
    std::size_t max_inner = 1000; ///< per linear solve
};

/// How a solve ended, on the device or on the host.
struct Convergence {
    enum class End { converged, outer_cap, inner_cap, not_finite };
    End end = End::converged;
    std::size_t outer = 0; ///< outer iterations run
    std::size_t inner = 0; ///< inner iterations run, over every outer one
    double eps_g = 0;      ///< the last outer check: mean |x1 - x|
    double eps_l = 0;      ///< the last inner check: mean |v1 - v|
    double last_step = 0;  ///< max |x1 - x| of the last outer iteration (the reference's, or after Solver::last_step)
    double inner_ms = 0;   ///< device time of the inner loops, checks included (the Solver's only)

    bool converged() const { return end == End::converged; }
    /// Why the solve did not converge, naming the cap or the value that is not finite, the
    /// iterations run and the last eps; empty when it converged. `where` names who solved.
    std::string failure(const Problem& problem, const std::string& where) const;
};

/// f = A(x*) x* for n unknowns, in the kernels' order.
std::vector<double> right_hand_side(std::size_t n);

/// max_i |phi_i(x)| = max_i |(A(x) x - f)_i|, in long double: the residual of a result.
double residual(std::span<const double> x, std::span<const double> f);
/// max_i |x_i - x*_i|: the error of a result.
double error(std::span<const double> x);

/// The method on the host, in the kernels' order with the band exploited (the sines and cosines
/// once per element of x, not per matrix element): x holds x0 on entry and the result on return.
Convergence reference(const Problem& problem, std::span<const double> f, std::span<double> x);
/// Host memory reference() works in for n unknowns beyond x and f: its two bands and seven vectors.
std::uint64_t reference_bytes(std::size_t n);

/// How far a device's x may be from the reference's x, absolute (the check divides by max(|x|, 1)
/// >= 1, so this bounds it too). Both run one algorithm from one x0 and differ by rounding, which
/// neither iteration amplifies: the outer one contracts by about 1 - tau, the Jacobi one by its
/// diagonal dominance. Rounding can move a stop by one iteration only where that check's value
/// lies within rounding of its threshold (the workload refuses counts further apart). One outer
/// iteration apart, the two x differ by one step: at most the reference's last one, `last_step`
/// (one later, the step is about (1 - tau) times smaller). One inner iteration apart, the two v
/// differ by one Jacobi step, whose mean is at most eps_l and so whose largest element is at most
/// n eps_l; carried into x as tau v and contracted by (1 - tau) each outer iteration, that sums to
/// at most n eps_l. Last, the rounding of a band row's sum of 2Nd + 1 terms, gamma_(2Nd+1)
/// (Higham, 3.1), relative to x.
double tolerance(const Problem& problem, double last_step, double largest_x);
std::string tolerance_reason(const Problem& problem, double last_step);

/// The method on one device: the eight kernels, the band matrices and vectors they work on, and
/// the reduction the checks sum with, made once. Every buffer is followed by
/// workload::sentinel_elements poisoned elements that no kernel may write.
class Solver {
public:
    /// Throws Unsupported with refusal()'s reason where the device cannot run it; InvalidArgument
    /// for an n outside 1 .. max_n or a block of 0.
    Solver(const Device& device, std::size_t n, std::size_t block);

    /// Why `device` cannot run the solver with `block` threads per block: an OpenCL device with
    /// no cl_khr_fp64, or a block above a kernel's limit; nullopt where it can.
    static std::optional<std::string> refusal(const Device& device, std::size_t block);

    /// Device memory a Solver for n unknowns allocates.
    static std::uint64_t device_bytes(std::size_t n);
    /// The largest of those allocations: one band matrix.
    static std::uint64_t largest_allocation(std::size_t n);

    /// Iterates from x (x0) to the result in place, enqueued on `queue`, reading one double per
    /// check. x holds at least problem.n elements; problem.n is the Solver's n. Stops at a cap or
    /// at an eps that is not finite and says so in the result, never throwing for it. An outer
    /// iteration's kernels up to the inner loop, an inner iteration's with its check's sum, and the
    /// outer step's with its check's sum are recorded on the first solve of this x, f and tau, and
    /// replayed.
    Convergence solve(Queue& queue, const Buffer<double>& x, const Buffer<double>& f, const Problem& problem);

    /// max |x1 - x| of the last solve's last outer iteration, reduced on the device.
    double last_step(Queue& queue);

    /// Throws Error naming the buffer past whose end a kernel wrote.
    void check_sentinels(Queue& queue) const;

private:
    /// n, once it is known to be in range and the device can run the solver (else the throw).
    static std::size_t validated(const Device& device, std::size_t n, std::size_t block);
    double read_check(Queue& queue);

    std::size_t n_;
    std::size_t block_;
    Kernel matrix_a_, ax_, phi_, d_phi_, solve_l_, eps_l_, solve_g_, eps_g_;
    Buffer<double> a_, l_;                                         ///< the band matrices, by diagonals
    Buffer<double> ax_values_, phi_values_, v0_, v1_, x1_, delta_; ///< n each
    reduce::Reduction<double> sum_, max_;
    Mirror<double> check_; ///< the one double each check reads
    /// The three parts of an outer iteration, and the x, f and tau they were recorded with. The
    /// sequences keep those buffers alive, so no other buffer can take their addresses.
    Sequence linearise_, inner_iteration_, outer_step_;
    std::tuple<const void*, const void*, double> recorded_for_{};
};

} // namespace duet::newton
