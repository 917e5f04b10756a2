// newton as a workload: the continuous analogue of Newton's method from x0 = 0 to x* (newton.hpp),
// one whole solve per timed pass, x updated in place. Phases: h2d is f and x0 in, kernel the whole
// iteration (its sequences, recorded on the first pass, replayed; every check's one double read
// back and the host's turn-around), d2h x out; their total is what the source experiment timed
// "with copies" (a Tesla K40c: CPU 270473 ms, GPU 8860 ms, 30x at N = 2048). The figures say how
// the iteration went and how far ahead of the CPU reference the device is.
#include "newton.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

namespace duet::newton {
namespace {

using namespace duet::workload;

std::size_t count(const Settings& settings, const char* name)
{
    return static_cast<std::size_t>(settings.integer(name));
}

double largest_magnitude(std::span<const double> values)
{
    double largest = 0;
    for (const double value : values) {
        largest = std::max(largest, std::fabs(value));
    }
    return largest;
}

/// The figure of that name in a launch's report.
double reported(const Report& report, std::string_view name)
{
    return std::ranges::find(report, name, &Report::value_type::first)->second;
}

/// One run's problem and solver, and the reference's convergence once it has run.
struct State {
    Problem problem;
    Solver solver;
    Convergence reference;
};

Prepared prepare(const Device& device, const Settings& settings, const std::string&)
{
    const Problem problem{count(settings, "n"),   settings.real("tau"),         settings.real("eps_g"),
                          settings.real("eps_l"), count(settings, "max_outer"), count(settings, "max_inner")};
    // The solver first, so that a device without doubles is refused before anything else is made.
    const auto run = std::make_shared<State>(State{problem, Solver(device, problem.n, count(settings, "block")), {}});
    Prepared prepared([run](Queue& queue, DeviceBuffers& buffers) -> Report {
        const Convergence c =
            run->solver.solve(queue, buffers.get<double>("x"), buffers.get<double>("f"), run->problem);
        if (!c.converged()) {
            throw Error(queue.device().backend(), "newton", c.failure(run->problem, "the device's solve"));
        }
        // finish adds the figures of the device's x before the last.
        return {{"outer_iterations", static_cast<double>(c.outer)},
                {"inner_iterations", static_cast<double>(c.inner)},
                {"eps_g_final", c.eps_g},
                {"us_per_inner_iteration", 1e3 * c.inner_ms / static_cast<double>(c.inner)}};
    });
    prepared.reference = [run](const HostArrays& arrays) {
        run->reference = reference(run->problem, arrays.in<double>("f"), arrays.out<double>("x"));
        if (!run->reference.converged()) {
            throw Error("duet", "newton::reference", run->reference.failure(run->problem, "the CPU reference's solve"));
        }
    };
    prepared.finish = [run](Finish& f) {
        auto& [problem, solver, reference] = *run;
        solver.check_sentinels(f.queue);
        const std::vector<double>& x = f.result.output.as<double>();
        const double outer = reported(f.report, "outer_iterations");
        // The band products: A x once per outer iteration, L v once per inner one, a multiply-add
        // per nonzero each (the sines and cosines that make the bands are not counted). Each product
        // reads its band of doubles, and each outer iteration writes A(x) and L(x) first; the
        // vectors are O(n) beside the bands' O(n²).
        const double inner = reported(f.report, "inner_iterations");
        f.result.flops = 2 * nonzeros(problem.n) * (outer + inner);
        f.result.bytes = sizeof(double) * nonzeros(problem.n) * (3 * outer + inner);
        const double last_step = solver.last_step(f.queue);
        f.result.extras.insert(f.result.extras.end() - 1, {{"last_step_max", last_step},
                                                           {"residual_max", residual(x, right_hand_side(problem.n))},
                                                           {"error_max", error(x)},
                                                           {"ms_per_outer_iteration", f.result.kernel_ms / outer}});
        // The tolerance allows the two to stop one outer iteration apart, as rounding can make
        // them; further apart, the device's iteration took another course than the reference's.
        const bool verified = f.expected != nullptr;
        if (verified && std::fabs(outer - static_cast<double>(reference.outer)) > 1) {
            throw Error(f.queue.device().backend(), "newton",
                        "the device's solve took " + std::to_string(static_cast<std::size_t>(outer)) +
                            " outer iterations and the CPU reference's " + std::to_string(reference.outer) +
                            ": more than one apart, which rounding does not explain");
        }
        // No reference: the cross checks between devices judge with this device's own last step.
        const double step = verified ? reference.last_step : last_step;
        f.result.tolerance = tolerance(problem, step, largest_magnitude(verified ? f.expected->as<double>() : x));
        f.result.tolerance_reason =
            (verified ? "" : "no reference ran: from this device's own last step; ") + tolerance_reason(problem, step);
        if (verified) {
            f.result.extras.emplace_back("reference_outer_iterations", static_cast<double>(reference.outer));
            f.result.extras.emplace_back("reference_inner_iterations", static_cast<double>(reference.inner));
            f.result.extras.emplace_back("cpu_speedup", f.result.reference_ms / f.result.total_ms);
        }
    };
    return prepared;
}

Spec spec()
{
    const Problem defaults;
    const auto n = [](const Settings& settings) { return count(settings, "n"); };
    Spec spec;
    spec.info = {
        .name = "newton",
        .description =
            "the continuous analogue of Newton's method for A(x) x = f, a_ik = sin²(x_i) cos²(x_k) + N δ_ik on a band "
            "of 0.15 N diagonals each side, in double: per outer iteration A(x), A x, phi, the Fréchet derivative "
            "L(x), Jacobi iterations for L v = -phi, x += tau v; every convergence check reduced on the device and "
            "read as one double",
        .variants = {"band"},
        .parameters =
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
        // One unknown (a 1 × 1 band), sizes that are not a multiple of the block (a block of one
        // thread among them), Newton's own step (tau = 1) and a small one, and one moderately
        // large; modest, since PoCL on two cores runs each.
        .test_cases = {{{"n", "1"}},
                       {{"n", "7"}, {"block", "1"}},
                       {{"n", "33"}, {"block", "32"}},
                       {{"n", "100"}, {"tau", "1"}},
                       {{"n", "257"}, {"tau", "0.25"}, {"block", "64"}},
                       {{"n", "1031"}, {"block", "128"}}}};
    // x is updated in place from x0; f, made from x*, is the same whatever the seed.
    BufferSpec f = input("f", n, ElementType::f64);
    f.draw = [](std::size_t size, std::uint64_t) -> Values { return right_hand_side(size); };
    BufferSpec x = in_out("x", n, ElementType::f64);
    x.draw = [](std::size_t size, std::uint64_t) -> Values { return std::vector<double>(size, start_value); };
    spec.buffers = {f, x};
    spec.prepare = prepare;
    // finish counts the bytes and flops of the iterations' band products, once the solve is done.
    spec.unit = Measurement::Unit::flops;
    // finish sets it once the solve is done: from the reference's last step, or the device's own.
    spec.tolerance = [](const Settings&) { return Tolerance{0, "set once the solve is done"}; };
    spec.extra_device_bytes = [n](const Settings& settings) { return Solver::device_bytes(n(settings)); };
    spec.extra_largest_allocation = [n](const Settings& settings) { return Solver::largest_allocation(n(settings)); };
    spec.extra_host_bytes = [n](const Settings& settings) { return reference_bytes(n(settings)); };
    return spec;
}

} // namespace
} // namespace duet::newton

DUET_EXPORT_WORKLOAD_SPEC(duet::newton::spec)
