// jacobi as a workload, dense Jacobi, A against Aᵀ: A x = f for a diagonally dominant A made from
// the seed with its exact solution, from x0 = 0 until max |x_{k+1} - x_k| <= eps. A pass: A and f
// in (h2d), the iteration with its convergence checks (kernel), the solution out (d2h). Figures:
// the convergence, time per iteration, one step's bandwidth against a device-to-device copy of A,
// the CPU reference's time and the speedups over it, the error against the exact solution. On a
// distributed run A, f and the step's working arrays are split by rows over the ranks (x whole on
// each), x all-gathered after each step and the convergence check's max taken over the ranks: the
// same iterates bit for bit as on one rank. The copy yardstick is one rank's only.
#include "jacobi.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <memory>

namespace duet::jacobi {
namespace {

using namespace duet::workload;

std::size_t n_of(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

/// f.operator()<T>() for the settings' element type.
template <class F> auto typed(const Settings& settings, F f)
{
    return settings.text("type") == "double" ? f.template operator()<double>() : f.template operator()<float>();
}

/// A, streamed once per iteration: the rest (x, f, the partial sums) is O(n).
template <class T> std::size_t matrix_bytes(std::size_t n)
{
    return n * n * sizeof(T);
}

const char* const bound_reason = "each solution within its last max |x_{k+1} - x_k| plus 16·γ_{n+3} of x* (the "
                                 "iteration contracts by 1/2 in the max norm): the device's bound plus the reference's";

/// The run's solver, the system it drew (its exact solution) and the reference's convergence.
template <class T> struct State {
    Solver<T> solver;
    System<T> system;
    Convergence cpu;
};

template <class T> Arrays<T> arrays_of(const DeviceBuffers& buffers)
{
    return {buffers.get<T>("A"),      buffers.get<T>("f"),       buffers.get<T>("x"),
            buffers.get<T>("x_next"), buffers.get<T>("partial"), buffers.get<T>("delta")};
}

template <class T> Prepared prepare(const Device& device, const Settings& settings, const std::string& variant)
{
    const std::size_t n = n_of(settings);
    const double eps = settings.real("eps");
    const auto max_iterations = static_cast<std::size_t>(settings.integer("max_iterations"));
    // The solver first, so that what the device cannot do is refused before anything is allocated.
    const auto state = std::make_shared<State<T>>(
        Solver<T>(device, variant_named(variant), settings.text("check") == "device" ? Check::device : Check::host, n,
                  static_cast<std::size_t>(settings.integer("block"))));
    Prepared run = [state, eps, max_iterations](Queue& queue, DeviceBuffers& buffers) -> Report {
        const Convergence convergence =
            state->solver.solve(queue, arrays_of<T>(buffers), eps, max_iterations, buffers.communicator());
        if (ends_in_other(convergence)) {
            buffers.swap("x", "x_next");
        }
        return convergence.figures();
    };
    run.draw = [state, n, layout = variant_named(variant)](const HostArrays& inputs) {
        state->system = make_system<T>(n, inputs.seed());
        lay_out<T>(state->system.a, n, layout, inputs.out<T>("A"), inputs.ranks());
        std::ranges::copy(state->system.f, inputs.out<T>("f").begin());
    };
    run.reference = [state, eps, max_iterations](const HostArrays& arrays) {
        state->cpu = reference(state->system, eps, max_iterations, arrays.out<T>("x"));
    };
    run.finish = [state, n, eps](Finish& finish) {
        const Convergence convergence = Convergence::from_figures(finish.report, eps);
        require_solved(convergence, eps, finish.queue.device().backend());
        Measurement& result = finish.result;
        const auto iterations = static_cast<double>(convergence.iterations);
        // Each iteration streams A once and does a multiply-add per element of it, and per row the
        // subtraction from f, the division by the diagonal, the update and its delta; the vectors'
        // traffic is O(n) beside A's n².
        const auto size = static_cast<double>(n);
        result.bytes = static_cast<double>(matrix_bytes<T>(n)) * iterations;
        result.flops = (2 * size * size + 4 * size) * iterations;
        result.extras.emplace_back("ms_per_iteration", result.kernel_ms / iterations);
        result.extras.emplace_back("max_error_vs_exact",
                                   max_distance<T>(result.output.as<T>(), state->system.solution));
        // One step (its partial sums and update) against a device-to-device copy of A, on one rank,
        // which holds the whole A (as the kit's figures are).
        if (finish.buffers.communicator().size() == 1) {
            const Arrays<T> arrays = arrays_of<T>(finish.buffers);
            for (auto& figure : copy_yardstick(
                     finish.queue, static_cast<double>(matrix_bytes<T>(n)),
                     [&] { state->solver.step(finish.queue, arrays); }, arrays.a.raw(), matrix_bytes<T>(n))) {
                result.extras.push_back(std::move(figure));
            }
        }
        const bool verifying = finish.expected != nullptr;
        finish.widen(solution_bound<T>(convergence, n) + (verifying ? solution_bound<T>(state->cpu, n) : 0),
                     bound_reason);
        if (verifying) {
            result.extras.emplace_back("cpu_ms", result.reference_ms);
            result.extras.emplace_back("cpu_over_total", result.reference_ms / result.total_ms);
            result.extras.emplace_back("cpu_over_kernel", result.reference_ms / result.kernel_ms);
        }
    };
    return run;
}

Spec spec()
{
    Spec spec;
    spec.info = {
        .name = "jacobi",
        .description = "Jacobi iteration for a dense, diagonally dominant A x = f: x += (f - A x) / diag(A) from x = 0 "
                       "until max |x_{k+1} - x_k| <= eps; rows: A row-major, a thread per row (uncoalesced); "
                       "transposed: A stored transposed (coalesced); tiled: transposed with x staged in local memory. "
                       "Each row's dot product in segments of 512 columns, one thread each. Split by rows over the "
                       "ranks of a distributed run, x all-gathered after each step",
        .variants = {"rows", "transposed", "tiled"},
        .parameters = {integer_parameter("n", 4096, 1, static_cast<std::int64_t>(max_n), "equations (A is n x n)"),
                       choice_parameter("type", {"float", "double"}, "element type"),
                       choice_parameter("check", {"device", "host"},
                                        "convergence test: device: reduce's max on the device, one value read per "
                                        "iteration; host: the whole delta vector read and folded on the host"),
                       real_parameter("eps", 1e-6, 0, 1,
                                      "stop when max |x_{k+1} - x_k| <= eps (1e-15 suits doubles), or when it stops "
                                      "decreasing (the rounding floor, about sqrt(n) ulps)"),
                       integer_parameter("max_iterations", 1000, 1, 1000000,
                                         "a run still above eps and decreasing after this many iterations fails"),
                       integer_parameter("block", 256, 1, 1024, "threads (work-items) per block")},
        // One equation, fewer rows than a block, not a multiple of the block or of a segment,
        // several segments, both checks, doubles to 1e-15.
        .test_cases = {{{"n", "1"}},
                       {{"n", "7"}, {"block", "4"}},
                       {{"n", "100"}, {"check", "host"}},
                       {{"n", "513"}, {"block", "64"}},
                       {{"n", "1000"}, {"type", "double"}, {"eps", "1e-15"}},
                       {{"n", "1500"}, {"type", "double"}, {"eps", "1e-15"}, {"check", "host"}},
                       {{"n", "2049"}}}};
    // The system; the iterate x alternates with; the step's partial sums and deltas. Split by rows
    // over the ranks of a distributed run, all but the iterates, which every rank holds whole.
    spec.buffers_for = [](const Settings& settings, const std::string&) {
        const ElementType type = typed(settings, []<class T>() { return element_type_of<T>; });
        const auto squared = [](const Settings& values) { return n_of(values) * n_of(values); };
        const auto partials = [](const Settings& values) { return partial_elements(n_of(values)); };
        const auto by_rows = [](BufferSpec buffer, std::function<std::size_t(const Settings&)> row) {
            buffer.split = Split{.row = std::move(row)};
            return buffer;
        };
        const auto one = [](const Settings&) { return std::size_t{1}; };
        return std::vector<BufferSpec>{
            by_rows(input("A", squared, type), n_of),
            by_rows(input("f", n_of, type), one),
            output("x", n_of, type),
            scratch("x_next", n_of, type),
            by_rows(scratch("partial", partials, type), [](const Settings& values) { return segments(n_of(values)); }),
            by_rows(scratch("delta", n_of, type), one)};
    };
    spec.prepare = [](const Device& device, const Settings& settings, const std::string& variant) {
        return typed(settings, [&]<class T>() { return prepare<T>(device, settings, variant); });
    };
    spec.unit = Measurement::Unit::bytes;
    spec.tolerance = [](const Settings&) { return Tolerance{0, bound_reason}; }; // widened once the solves are known
    // The solver's own memory and the yardstick's copy of A; the system made on the host.
    spec.extra_device_bytes = [](const Settings& settings) {
        return typed(settings, [n = n_of(settings)]<class T>() { return Solver<T>::device_bytes(n); });
    };
    spec.figures_device_bytes = [](const Settings& settings) {
        return typed(settings, [n = n_of(settings)]<class T>() { return std::uint64_t{matrix_bytes<T>(n)}; });
    };
    spec.extra_host_bytes = [](const Settings& settings) {
        return typed(settings,
                     [n = n_of(settings)]<class T>() { return Solver<T>::host_bytes(n) + system_bytes<T>(n); });
    };
    return spec;
}

} // namespace
} // namespace duet::jacobi

DUET_EXPORT_WORKLOAD_SPEC(duet::jacobi::spec)
