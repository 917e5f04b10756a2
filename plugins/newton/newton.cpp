// The host side of newton, written once against duet's API: the same code enqueues the CUDA and
// the OpenCL kernels, and judges each check from the one double a reduction leaves on the device.
#include "newton.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <duet/workload/kit.hpp>
#include <duet_kernels/newton.hpp>

namespace duet::newton {
namespace {

constexpr const char* kernel_names[] = {"newton_matrix_a", "newton_ax",    "newton_phi",     "newton_d_phi",
                                        "newton_solve_l",  "newton_eps_l", "newton_solve_g", "newton_eps_g"};

/// Every buffer's elements and, after them, its sentinels.
Buffer<double> guarded(const Device& device, std::size_t elements)
{
    return device.alloc<double>(elements + workload::sentinel_elements);
}

std::string short_text(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

} // namespace

std::size_t half_band(std::size_t n)
{
    return static_cast<std::size_t>(0.15 * static_cast<double>(n)); // the original program's (int)(0.15*N)
}

double nonzeros(std::size_t n)
{
    const double nd = static_cast<double>(half_band(n));
    return static_cast<double>(band_width(n)) * static_cast<double>(n) - nd * (nd + 1);
}

double exact_solution(std::size_t i)
{
    return 1.0 + std::sin(static_cast<double>(i + 1)) / 2;
}

std::string Convergence::failure(const Problem& problem, const std::string& where) const
{
    const std::string ran = " after " + std::to_string(outer) + " outer and " + std::to_string(inner) +
                            " inner iterations (tau = " + short_text(problem.tau) + ")";
    switch (end) {
    case End::converged:
        return {};
    case End::outer_cap:
        return where + " did not converge: the outer iteration reached its cap, max_outer = " +
               std::to_string(problem.max_outer) + ", with eps_G = " + short_text(eps_g) +
               " still above eps_g = " + short_text(problem.eps_g) + ran;
    case End::inner_cap:
        return where + " did not converge: the linear solve of outer iteration " + std::to_string(outer) +
               " reached its cap, max_inner = " + std::to_string(problem.max_inner) +
               ", with eps_L = " + short_text(eps_l) + " still above eps_l = " + short_text(problem.eps_l) + ran;
    case End::not_finite:
        return where + " diverged: eps_G = " + short_text(eps_g) + ", eps_L = " + short_text(eps_l) +
               ", one of them not finite," + ran;
    }
    return {};
}

double tolerance(const Problem& problem, double last_step, double largest_x)
{
    return last_step + static_cast<double>(problem.n) * problem.eps_l +
           reduce::gamma<double>(band_width(problem.n)) * std::max(largest_x, 1.0);
}

std::string tolerance_reason(const Problem& problem, double last_step)
{
    return "one outer iteration apart at most: the reference's last step, max |x1 - x| = " + short_text(last_step) +
           "; one inner iteration apart: n eps_l = " + short_text(static_cast<double>(problem.n) * problem.eps_l) +
           "; and the rounding of a band row's " + std::to_string(band_width(problem.n)) +
           "-term sum (the iterations contract: they do not amplify rounding)";
}

std::optional<std::string> Solver::refusal(const Device& device, std::size_t block)
{
    const Program program = device.build(kernels::newton());
    if (!program.has_kernel(kernel_names[0])) {
        return std::string("this OpenCL device has no cl_khr_fp64: newton.cl builds no kernels, and the method "
                           "iterates in double");
    }
    if (const auto reason = reduce::Reduction<double>::refusal(device, reduce::Variant::tree)) {
        return "the convergence checks sum with reduce's tree variant on doubles: " + *reason;
    }
    for (const char* name : kernel_names) {
        const Kernel kernel = program.kernel(name);
        if (kernel.properties().max_block_size < block) {
            return std::string(name) + " launches at most " + std::to_string(kernel.properties().max_block_size) +
                   " threads per block on this device; block = " + std::to_string(block);
        }
    }
    return std::nullopt;
}

std::size_t Solver::validated(const Device& device, std::size_t n, std::size_t block)
{
    if (n == 0 || n > max_n || block == 0) {
        throw InvalidArgument(device.backend(), "newton::Solver",
                              "n = " + std::to_string(n) + ", block = " + std::to_string(block) +
                                  ": n must be from 1 to " + std::to_string(max_n) +
                                  " (the kernels index with 32-bit integers) and a block needs a thread");
    }
    if (const auto reason = refusal(device, block)) {
        throw Unsupported(device.backend(), "newton::Solver", *reason);
    }
    return n;
}

std::uint64_t Solver::device_bytes(std::size_t n)
{
    const std::uint64_t guard = workload::sentinel_elements;
    const std::uint64_t bands = 2 * (band_width(n) * n + guard);
    const std::uint64_t vectors = 6 * (n + guard);
    // The partial results of the two reductions, the sum and the max.
    const std::uint64_t partials = 2 * reduce::scratch_elements(reduce::Variant::tree, n);
    return (bands + vectors + partials + 1) * sizeof(double);
}

std::uint64_t Solver::largest_allocation(std::size_t n)
{
    return (band_width(n) * n + workload::sentinel_elements) * sizeof(double);
}

Solver::Solver(const Device& device, std::size_t n, std::size_t block)
    : n_(validated(device, n, block)), block_(block), sum_(device, reduce::Variant::tree, reduce::Operation::sum, n),
      max_(device, reduce::Variant::tree, reduce::Operation::max, n), check_(device, 1)
{
    const Program program = device.build(kernels::newton());
    Kernel* kernels[] = {&matrix_a_, &ax_, &phi_, &d_phi_, &solve_l_, &eps_l_, &solve_g_, &eps_g_};
    for (std::size_t k = 0; k < std::size(kernels); ++k) {
        *kernels[k] = program.kernel(kernel_names[k]);
    }
    const std::size_t band = band_width(n) * n;
    a_ = guarded(device, band);
    l_ = guarded(device, band);
    for (Buffer<double>* vector : {&ax_values_, &phi_values_, &v0_, &v1_, &x1_, &delta_}) {
        *vector = guarded(device, n);
    }
    Queue queue = device.create_queue();
    for (const Buffer<double>* buffer : {&a_, &l_, &ax_values_, &phi_values_, &v0_, &v1_, &x1_, &delta_}) {
        queue.fill(*buffer, workload::poison<double>());
    }
    queue.finish();
}

double Solver::read_check(Queue& queue)
{
    check_.device_written();
    check_.to_host(queue);
    return check_.host()[0]; // waits for the copy: the check's one synchronisation
}

Convergence Solver::solve(Queue& queue, const Buffer<double>& x, const Buffer<double>& f, const Problem& problem)
{
    if (problem.n != n_ || x.size() < n_ || f.size() < n_) {
        throw InvalidArgument(queue.device().backend(), "newton::Solver::solve",
                              "the solver was made for n = " + std::to_string(n_) +
                                  "; asked for n = " + std::to_string(problem.n) + " with x of " +
                                  std::to_string(x.size()) + " and f of " + std::to_string(f.size()) + " elements");
    }
    const auto n = static_cast<std::uint32_t>(n_);
    const auto nd = static_cast<std::uint32_t>(half_band(n_));
    const Range rows = Range::cover(n_, block_);
    const Range band = Range::cover(2, {n_, band_width(n_), 1}, {block_, 1, 1});
    const double count = static_cast<double>(n_);
    Convergence result;
    std::vector<std::pair<Event, Event>> inner_spans;
    const auto finish = [&](Convergence::End end) {
        result.end = end;
        queue.finish(); // already idle after the last check but for the stop's event
        for (const auto& [start, stop] : inner_spans) {
            result.inner_ms += elapsed_ms(start, stop); // complete: a check was read after each
        }
        return result;
    };
    // Every outer iteration launches on the same buffers with the same argument values (Eps_G and
    // Eps_L update x and v0 in place; tau is the solve's), so its three parts are recorded once,
    // and again only for another x, f or tau.
    const std::tuple<const void*, const void*, double> inputs{x.raw().state().get(), f.raw().state().get(),
                                                              problem.tau};
    if (recorded_for_ != inputs) {
        linearise_ = queue.record_sequence([&](Queue& recording) {
            recording.launch(matrix_a_, band, a_, x, n, nd);
            recording.launch(ax_, rows, ax_values_, a_, x, n, nd);
            recording.launch(phi_, rows, phi_values_, ax_values_, f, n);
            recording.launch(d_phi_, band, l_, x, n, nd);
            recording.fill(v0_.view(0, n_), 0.0);
        });
        inner_iteration_ = queue.record_sequence([&](Queue& recording) {
            recording.launch(solve_l_, rows, l_, phi_values_, v0_, v1_, n, nd);
            recording.launch(eps_l_, rows, v0_, v1_, delta_, n);
            sum_.enqueue(recording, delta_, n_, check_.device());
        });
        outer_step_ = queue.record_sequence([&](Queue& recording) {
            recording.launch(solve_g_, rows, x, x1_, v0_, problem.tau, n);
            recording.launch(eps_g_, rows, x, x1_, delta_, n);
            sum_.enqueue(recording, delta_, n_, check_.device());
        });
        recorded_for_ = inputs;
    }
    for (;;) {
        ++result.outer;
        queue.replay(linearise_);

        const Event inner_start = queue.record();
        for (std::size_t k = 1;; ++k) {
            ++result.inner;
            queue.replay(inner_iteration_);
            result.eps_l = read_check(queue) / count;
            if (!std::isfinite(result.eps_l)) {
                inner_spans.emplace_back(inner_start, queue.record());
                return finish(Convergence::End::not_finite);
            }
            if (result.eps_l <= problem.eps_l) {
                break;
            }
            if (k >= problem.max_inner) {
                inner_spans.emplace_back(inner_start, queue.record());
                return finish(Convergence::End::inner_cap);
            }
        }
        inner_spans.emplace_back(inner_start, queue.record());

        queue.replay(outer_step_);
        result.eps_g = read_check(queue) / count;
        if (!std::isfinite(result.eps_g)) {
            return finish(Convergence::End::not_finite);
        }
        if (result.eps_g <= problem.eps_g) {
            return finish(Convergence::End::converged);
        }
        if (result.outer >= problem.max_outer) {
            return finish(Convergence::End::outer_cap);
        }
    }
}

double Solver::last_step(Queue& queue)
{
    max_.enqueue(queue, delta_, n_, check_.device());
    return read_check(queue);
}

void Solver::check_sentinels(Queue& queue) const
{
    const std::pair<const Buffer<double>*, const char*> buffers[] = {
        {&a_, "A"},   {&l_, "L"},   {&ax_values_, "A x"}, {&phi_values_, "phi"},
        {&v0_, "v0"}, {&v1_, "v1"}, {&x1_, "x1"},         {&delta_, "delta"}};
    std::vector<double> tail(workload::sentinel_elements);
    for (const auto& [buffer, name] : buffers) {
        queue.read(std::span<double>(tail), buffer->view(buffer->size() - tail.size(), tail.size()));
        queue.finish();
        workload::check_sentinels<double>(tail, std::string("newton's ") + name);
    }
}

} // namespace duet::newton
