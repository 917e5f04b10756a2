// jacobi as a workload plugin (seed 001, example 1): A x = f for a dense, diagonally dominant A,
// from x0 = 0 until max |x_{k+1} - x_k| <= eps. One timed pass is the seed's "with copies" run:
// A and f copied in (h2d), the iteration with its convergence checks (kernel: the seed's
// "kernels only" time, here with the one value each check reads), the solution copied out (d2h).
// The check runs on the device (reduce's max, one host synchronisation per iteration) or as the
// seed does it (`check=host`: the whole delta vector read each iteration). Figures: iterations,
// time per iteration, one step's bandwidth against a device-to-device copy of A, the CPU
// reference's time and the speedups over it, and the error against the exact solution.
#include "jacobi.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace duet::jacobi {
namespace {

struct Parameters {
    Variant variant;
    Check check;
    std::size_t n;
    std::size_t block;
    double eps;
    std::size_t max_iterations;

    explicit Parameters(const RunRequest& request)
        : variant(variant_named(request.variant)),
          check(request.settings.text("check") == "device" ? Check::device : Check::host),
          n(static_cast<std::size_t>(request.settings.integer("n"))),
          block(static_cast<std::size_t>(request.settings.integer("block"))), eps(request.settings.real("eps")),
          max_iterations(static_cast<std::size_t>(request.settings.integer("max_iterations")))
    {
    }
};

bool is_double(const Settings& settings)
{
    return settings.text("type") == "double";
}

/// |x_k - x*| <= |x_k - x_{k-1}| + 2r where the iteration contracts by 1/2 in the max norm and r
/// is a step's rounding, at most γ_{n+3}·4|x*| with |x*| < 2: 16·γ_{n+3} after the contraction.
/// Two solutions (the device's, the reference's) differ by at most the sum of their bounds.
template <class T> double solution_bound(const Convergence& convergence, std::size_t n)
{
    return convergence.last_delta + 16 * reduce::gamma<T>(n + 3);
}

std::string describe(const Convergence& convergence)
{
    std::ostringstream text;
    text << convergence.iterations << " iterations, last max |x_{k+1} - x_k| = " << convergence.last_delta;
    return text.str();
}

template <class T> Measurement run_typed(const RunRequest& request, const Parameters& p)
{
    const Device& device = request.device;
    // First, so that what the device cannot do is refused before anything is drawn or allocated.
    Solver<T> solver(device, p.variant, p.check, p.n, p.block);
    const System<T> system = make_system<T>(p.n, request.seed);
    const std::vector<T> transposed = transposed_layout(p.variant) ? transpose<T>(system.a, p.n) : std::vector<T>{};
    const std::vector<T>& a_host = transposed_layout(p.variant) ? transposed : system.a;
    const Buffer<T> a = device.alloc<T>(p.n * p.n);
    const Buffer<T> f = device.alloc<T>(p.n);
    const workload::Spacer spacer(device);
    Queue queue = device.create_queue();

    Measurement result;
    result.output = std::vector<T>(p.n);
    Convergence convergence;
    result.samples = workload::repeat(request.timing, [&] {
        workload::PhaseTimer timer(queue);
        queue.write(a, std::span<const T>(a_host));
        queue.write(f, std::span<const T>(system.f));
        timer.mark(Phase::h2d);
        timer.space(spacer);
        convergence = solver.solve(queue, a, f, p.eps, p.max_iterations);
        timer.mark(Phase::kernel);
        solver.solution().to_host(queue);
        timer.mark(Phase::d2h);
        return timer.sample();
    });
    result.set_medians();
    if (!std::isfinite(convergence.last_delta)) {
        throw Error(device.backend(), "jacobi", "diverged: " + describe(convergence) + " is not finite");
    }
    if (!convergence.converged && !convergence.stalled) {
        std::ostringstream eps;
        eps << p.eps;
        throw Error(device.backend(), "jacobi",
                    "did not converge: " + describe(convergence) + ", still above eps = " + eps.str() +
                        " and decreasing at max_iterations");
    }
    const std::span<T> x = solver.solution().host();
    std::ranges::copy(x, result.output.as<T>().begin());

    // A streamed once per iteration: the rest (x, f, the partial sums) is O(n).
    const double matrix_bytes = static_cast<double>(p.n) * p.n * sizeof(T);
    result.unit = Measurement::Unit::bytes;
    result.work = matrix_bytes * static_cast<double>(convergence.iterations);
    double error = 0;
    for (std::size_t k = 0; k < p.n; ++k) {
        error = std::max(error, static_cast<double>(std::fabs(x[k] - system.solution[k])));
    }
    result.extras = {{"iterations", static_cast<double>(convergence.iterations)},
                     {"stalled", convergence.stalled ? 1.0 : 0.0},
                     {"last_delta", convergence.last_delta},
                     {"ms_per_iteration", result.kernel_ms / static_cast<double>(convergence.iterations)},
                     {"max_error_vs_exact", error}};
    // One step (its partial sums and update) against a device-to-device copy of A.
    for (auto& figure : workload::copy_yardstick(
             queue, matrix_bytes, [&] { solver.step(queue, a, f); }, a.raw(), p.n * p.n * sizeof(T))) {
        result.extras.push_back(std::move(figure));
    }

    // The comparison reads the tolerance once the reference has run: it adds the reference's bound.
    result.tolerance = solution_bound<T>(convergence, p.n);
    result.tolerance_reason = "each solution within its last max |x_{k+1} - x_k| plus 16·γ_{n+3} of x* (the "
                              "iteration contracts by 1/2 in the max norm): the device's bound plus the reference's";
    workload::check_against_reference(request, result, [&](workload::Values& expected) {
        const Convergence cpu = reference(system, p.eps, p.max_iterations, std::span<T>(expected.as<T>()));
        result.tolerance += solution_bound<T>(cpu, p.n);
    });
    if (result.verified) {
        result.extras.emplace_back("cpu_ms", result.reference_ms);
        result.extras.emplace_back("cpu_over_total", result.reference_ms / result.total_ms);
        result.extras.emplace_back("cpu_over_kernel", result.reference_ms / result.kernel_ms);
    }
    return result;
}

class Jacobi final : public Workload {
public:
    WorkloadInfo info() const override
    {
        using namespace workload;
        return {"jacobi",
                "Jacobi iteration for a dense, diagonally dominant A x = f (seed 001): x += (f - A x) / diag(A) "
                "from x = 0 until max |x_{k+1} - x_k| <= eps; rows: A row-major, a thread per row (uncoalesced); "
                "transposed: A stored transposed (coalesced); tiled: transposed with x staged in local memory. "
                "Each row's dot product in segments of 512 columns, one thread each",
                {"rows", "transposed", "tiled"},
                {integer_parameter("n", 4096, 1, static_cast<std::int64_t>(max_n), "equations (A is n x n)"),
                 choice_parameter("type", {"float", "double"}, "element type"),
                 choice_parameter("check", {"device", "host"},
                                  "convergence test: device: reduce's max on the device, one value read per "
                                  "iteration; host: the seed's, the whole delta vector read and folded on the host"),
                 real_parameter("eps", 1e-6, 0, 1,
                                "stop when max |x_{k+1} - x_k| <= eps (the seed's double run: 1e-15), or when it "
                                "stops decreasing (the rounding floor, about sqrt(n) ulps)"),
                 integer_parameter("max_iterations", 1000, 1, 1000000,
                                   "a run still above eps and decreasing after this many iterations fails"),
                 integer_parameter("block", 256, 1, 1024, "threads (work-items) per block")},
                // One equation, fewer rows than a block, not a multiple of the block or of a segment,
                // several segments, both checks, doubles and the seed's eps.
                {{{"n", "1"}},
                 {{"n", "7"}, {"block", "4"}},
                 {{"n", "100"}, {"check", "host"}},
                 {{"n", "513"}, {"block", "64"}},
                 {{"n", "1000"}, {"type", "double"}, {"eps", "1e-15"}},
                 {{"n", "1500"}, {"type", "double"}, {"eps", "1e-15"}, {"check", "host"}},
                 {{"n", "2049"}}},
                {}};
    }

    Footprint footprint(const RunRequest& request) const override
    {
        const Settings& settings = request.settings;
        const std::uint64_t n = settings.integer("n");
        const std::uint64_t element = is_double(settings) ? sizeof(double) : sizeof(float);
        const std::uint64_t matrix = n * n * element;
        // Device: A and its copy (the figures' yardstick), the partial sums, f, two iterates, the
        // deltas and the reduction's partials. Host: the drawn floats, A, its transpose, and the
        // O(n) arrays.
        const std::uint64_t spacer = workload::Spacer::bytes(request.device);
        const std::uint64_t vectors = (segments(n) + 8) * n * element;
        return {2 * matrix + vectors + spacer, std::max(matrix, spacer),
                (n * n + n) * sizeof(float) + 2 * matrix + vectors};
    }

    Measurement run(const RunRequest& request) const override
    {
        const Parameters parameters(request);
        return is_double(request.settings) ? run_typed<double>(request, parameters)
                                           : run_typed<float>(request, parameters);
    }
};

} // namespace
} // namespace duet::jacobi

DUET_EXPORT_WORKLOAD(duet::jacobi::Jacobi)
