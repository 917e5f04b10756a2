// What every workload's run step shares: inputs drawn from the request's seed (never zeros),
// poisoned outputs, phase timing on the device clock, and comparison with the reference.
#pragma once

#include <duet/duet.hpp>
#include <duet/workload.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace duet::workload {

/// Floats in ±[0.5, 2): no zeros, which would hide unwritten outputs, and no denormals.
std::vector<float> random_floats(std::size_t n, std::uint64_t seed);

/// The value outputs are filled with before a run, so an element nobody wrote fails the check.
float poison();

/// Records an event at each phase boundary of one queue; the phases are read once it is done.
class PhaseTimer {
public:
    explicit PhaseTimer(Queue& queue);
    /// Closes the phase that began at the previous mark (or at construction).
    void mark(const std::string& phase);
    /// Waits for the queue, then returns each phase's device time, in the order marked.
    std::vector<std::pair<std::string, double>> phases_ms();
    /// Device time from construction to the last mark.
    double total_ms();
    /// Waits for the queue, adds each phase to the field of its name in `result` ("h2d", "kernel"
    /// or "d2h"; a name may be marked more than once) and sets total_ms.
    void add_phases_to(Measurement& result);

private:
    Queue* queue_;
    Event start_;
    std::vector<std::pair<std::string, Event>> marks_;
};

/// Device time from the earliest of `starts` to the latest of `ends`: events of one device, on
/// any of its queues (they share its clock), all complete. For work spread over several queues.
double span_ms(std::span<const Event> starts, std::span<const Event> ends);

/// Milliseconds of host time `body` takes: the CPU reference's clock.
template <class Body>
double host_ms(Body&& body)
{
    const auto start = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Device time of `body`'s work on `queue`, the best of `repeats` runs: for figures that should
/// not carry one-time costs (first touch of pages, a cold cache), such as a reference copy rate.
template <class Body>
double best_device_ms(Queue& queue, int repeats, Body&& body)
{
    double best = 0;
    for (int run = 0; run < repeats; ++run) {
        const Event start = queue.record();
        body();
        const Event end = queue.record();
        end.wait();
        const double ms = elapsed_ms(start, end);
        best = run == 0 ? ms : std::min(best, ms);
    }
    return best;
}

/// The host memory kind named as duet::to_string names it ("pinned", "write_combined", ...);
/// another name throws InvalidArgument listing the kinds.
HostMemoryKind host_memory_kind(const std::string& name);

/// When the request asks for verification: runs `reference` into n floats on the host, timed, and
/// compares result.output with them.
template <class Reference>
void check_against_reference(const RunRequest& request, Measurement& result, std::size_t n, Reference&& reference)
{
    if (!request.verify) {
        return;
    }
    std::vector<float> expected(n);
    result.reference_ms = host_ms([&] { reference(std::span<float>(expected)); });
    result.max_error = max_relative_error(result.output, expected);
    result.verified = true;
}

/// A parameter of the integer kind, for WorkloadInfo.
WorkloadParameter integer_parameter(std::string name, std::int64_t default_value, std::int64_t min, std::int64_t max,
                                    std::string help);
/// A parameter of the choice kind; the first choice is the default.
WorkloadParameter choice_parameter(std::string name, std::vector<std::string> choices, std::string help);

} // namespace duet::workload
