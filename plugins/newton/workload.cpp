// newton as a workload: the continuous analogue of Newton's method from x0 = 0 to x* (newton.hpp),
// one whole solve per timed pass, repeated by the kit until the median settles. Phases: h2d is
// f and x0 in, kernel the whole iteration (its sequences replayed, recorded on the first pass, a
// warm-up one unless none is asked for; every kernel, every check's one double read back and the
// host's turn-around before the next replay), d2h the result out; their
// total is what the seed timed "with copies" (a Tesla K40c: CPU 270473 ms, GPU 8860 ms, 30x at
// N = 2048). The result is checked against the CPU reference's x; the figures say how the
// iteration went (outer and inner iterations, the residual and error of the device's x, time per
// iteration) and how far ahead of the reference the device is.
#include "newton.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <cmath>

namespace duet::newton {
namespace {

using namespace duet::workload;

Problem problem_of(const Settings& settings)
{
    Problem problem;
    problem.n = static_cast<std::size_t>(settings.integer("n"));
    problem.tau = settings.real("tau");
    problem.eps_g = settings.real("eps_g");
    problem.eps_l = settings.real("eps_l");
    problem.max_outer = static_cast<std::size_t>(settings.integer("max_outer"));
    problem.max_inner = static_cast<std::size_t>(settings.integer("max_inner"));
    return problem;
}

/// Nonzero elements of a band matrix: the band less the corners that fall outside the matrix.
double nonzeros(std::size_t n)
{
    const double nd = static_cast<double>(half_band(n));
    return static_cast<double>(band_width(n)) * static_cast<double>(n) - nd * (nd + 1);
}

double largest_magnitude(std::span<const double> values)
{
    double largest = 0;
    for (const double value : values) {
        largest = std::max(largest, std::fabs(value));
    }
    return largest;
}

class Newton final : public Workload {
public:
    WorkloadInfo info() const override
    {
        const Problem defaults;
        return {"newton",
                "the continuous analogue of Newton's method for A(x) x = f, a_ik = sin²(x_i) cos²(x_k) + N δ_ik on "
                "a band of 0.15 N diagonals each side, in double: per outer iteration A(x), A x, phi, the Fréchet "
                "derivative L(x), Jacobi iterations for L v = -phi, x += tau v; every convergence check reduced "
                "on the device and read as one double",
                {"band"},
                {integer_parameter("n", static_cast<std::int64_t>(defaults.n), 1, static_cast<std::int64_t>(max_n),
                                   "N: unknowns (the band holds 2 (int)(0.15 N) + 1 diagonals)"),
                 real_parameter("tau", defaults.tau, 1e-3, 1,
                                "the step in t: x += tau v; 1 is Newton's method, below 1 the error shrinks by about "
                                "1 - tau per outer iteration"),
                 real_parameter("eps_g", defaults.eps_g, 0, 1, "outer iterations stop once the mean |x1 - x| <= eps_g"),
                 real_parameter("eps_l", defaults.eps_l, 0, 1,
                                "each linear solve's Jacobi iterations stop once the mean |v1 - v| <= eps_l"),
                 integer_parameter("block", 256, 1, 1024, "threads (work-items) per block of every kernel"),
                 integer_parameter("max_outer", static_cast<std::int64_t>(defaults.max_outer), 1, 1000000,
                                   "the cap on outer iterations: a solve that reaches it has failed"),
                 integer_parameter("max_inner", static_cast<std::int64_t>(defaults.max_inner), 1, 1000000,
                                   "the cap on inner iterations of one linear solve: reaching it has failed")},
                // One unknown (a 1 × 1 band), sizes that are not a multiple of the block (a block
                // of one thread among them), Newton's own step (tau = 1) and a small one, and one
                // moderately large; modest, since PoCL on two cores runs each.
                {{{"n", "1"}},
                 {{"n", "7"}, {"block", "1"}},
                 {{"n", "33"}, {"block", "32"}},
                 {{"n", "100"}, {"tau", "1"}},
                 {{"n", "257"}, {"tau", "0.25"}, {"block", "64"}},
                 {{"n", "1031"}, {"block", "128"}}},
                {}};
    }

    Footprint footprint(const RunRequest& request) const override
    {
        const std::uint64_t n = request.settings.integer("n");
        const std::uint64_t element = sizeof(double);
        const std::uint64_t band = (band_width(n) * n + sentinel_elements) * element;
        const std::uint64_t x = (n + sentinel_elements) * element;
        const std::uint64_t spacer = Spacer::bytes(request.device);
        // Host: x (mirrored, with its sentinels); f (mirrored, and as made), x*, the result and the
        // reference's x; the reference's two bands, four vectors and three of sines and cosines;
        // the residual's band.
        const std::uint64_t host = x + 12 * n * element + 3 * band_width(n) * n * element;
        return {Solver::device_bytes(n) + x + n * element + spacer, std::max(band, spacer), host};
    }

    Measurement run(const RunRequest& request) const override
    {
        const Problem problem = problem_of(request.settings);
        const std::size_t n = problem.n;
        const Device& device = request.device;
        // First, so that a device without doubles is refused before anything else is made.
        Solver solver(device, n, static_cast<std::size_t>(request.settings.integer("block")));
        const Spacer spacer(device);
        Queue queue = device.create_queue();

        std::vector<double> x_star(n);
        for (std::size_t i = 0; i < n; ++i) {
            x_star[i] = exact_solution(i);
        }
        const std::vector<double> f_values = right_hand_side(x_star);
        Mirror<double> f(device, n);
        std::ranges::copy(f_values, f.host().begin());
        f.host_written();
        // x is the output: its sentinels follow it on both sides, poisoned on the host and
        // copied in with x0, and must come back unchanged.
        Mirror<double> x(device, n + sentinel_elements);

        Convergence convergence;
        Measurement result;
        result.samples = repeat(request.timing, [&] {
            const std::span<double> start = x.host();
            std::fill_n(start.begin(), n, start_value);
            std::fill(start.begin() + static_cast<std::ptrdiff_t>(n), start.end(), poison<double>());
            x.host_written();
            PhaseTimer timer(queue);
            f.to_device(queue);
            x.to_device(queue);
            timer.mark(Phase::h2d);
            timer.space(spacer);
            convergence = solver.solve(queue, x, f.device(), problem);
            timer.mark(Phase::kernel);
            x.to_host(queue);
            timer.mark(Phase::d2h);
            const Sample sample = timer.sample();
            if (!convergence.converged()) {
                throw Error(device.backend(), "newton", convergence.failure(problem, "the device's solve"));
            }
            return sample;
        });
        result.set_medians();
        const std::span<const double> got = x.host();
        check_sentinels(got.subspan(n), "x");
        solver.check_sentinels(queue);
        result.output = std::vector<double>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(n));
        const auto& output = result.output.as<double>();
        result.unit = Measurement::Unit::flops;
        // The band products: A x once per outer iteration, L v once per inner one.
        result.work = 2 * nonzeros(n) * static_cast<double>(convergence.outer + convergence.inner);

        double error = 0;
        for (std::size_t i = 0; i < n; ++i) {
            error = std::max(error, std::fabs(output[i] - x_star[i]));
        }
        const double last_step = solver.last_step(queue);
        result.extras = {
            {"outer_iterations", static_cast<double>(convergence.outer)},
            {"inner_iterations", static_cast<double>(convergence.inner)},
            {"eps_g_final", convergence.eps_g},
            {"last_step_max", last_step},
            {"residual_max", residual(output, f_values)},
            {"error_max", error},
            {"ms_per_outer_iteration", result.kernel_ms / static_cast<double>(convergence.outer)},
            {"us_per_inner_iteration", 1e3 * convergence.inner_ms / static_cast<double>(convergence.inner)}};

        if (!request.verify) {
            // No reference: the cross checks between devices judge with this device's own last step.
            result.tolerance = tolerance(problem, last_step, largest_magnitude(output));
            result.tolerance_reason =
                "no reference ran: from this device's own last step; " + tolerance_reason(problem, last_step);
            return result;
        }
        Convergence reference_convergence;
        check_against_reference(request, result, [&](Values& values) {
            const std::span<double> expected = values.as<double>();
            std::ranges::fill(expected, start_value);
            reference_convergence = reference(problem, f_values, expected);
            if (!reference_convergence.converged()) {
                throw Error("duet", "newton::reference",
                            reference_convergence.failure(problem, "the CPU reference's solve"));
            }
            // The tolerance allows the two to stop one outer iteration apart, as rounding can make
            // them; further apart, the device's iteration took another course than the reference's.
            const std::size_t apart = std::max(convergence.outer, reference_convergence.outer) -
                                      std::min(convergence.outer, reference_convergence.outer);
            if (apart > 1) {
                throw Error(device.backend(), "newton",
                            "the device's solve took " + std::to_string(convergence.outer) +
                                " outer iterations and the CPU reference's " +
                                std::to_string(reference_convergence.outer) +
                                ": more than one apart, which rounding does not explain");
            }
            result.tolerance = tolerance(problem, reference_convergence.last_step, largest_magnitude(expected));
            result.tolerance_reason = tolerance_reason(problem, reference_convergence.last_step);
        });
        result.extras.emplace_back("reference_outer_iterations", static_cast<double>(reference_convergence.outer));
        result.extras.emplace_back("reference_inner_iterations", static_cast<double>(reference_convergence.inner));
        result.extras.emplace_back("cpu_speedup", result.reference_ms / result.total_ms);
        return result;
    }
};

} // namespace
} // namespace duet::newton

DUET_EXPORT_WORKLOAD(duet::newton::Newton)
