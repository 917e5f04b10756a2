// Shared run-step helpers of the workloads.
#include "workload_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace duet::workload {

std::vector<float> random_floats(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<float> magnitude(0.5f, 2.0f);
    std::bernoulli_distribution negative(0.5);
    std::vector<float> values(n);
    for (float& value : values) {
        value = negative(engine) ? -magnitude(engine) : magnitude(engine);
    }
    return values;
}

float poison() { return std::numeric_limits<float>::quiet_NaN(); }

PhaseTimer::PhaseTimer(Queue& queue) : queue_(&queue), start_(queue.record()) {}

void PhaseTimer::mark(const std::string& phase) { marks_.emplace_back(phase, queue_->record()); }

std::vector<std::pair<std::string, double>> PhaseTimer::phases_ms()
{
    queue_->finish();
    std::vector<std::pair<std::string, double>> phases;
    const Event* previous = &start_;
    for (const auto& [phase, event] : marks_) {
        phases.emplace_back(phase, elapsed_ms(*previous, event));
        previous = &event;
    }
    return phases;
}

void PhaseTimer::add_phases_to(Measurement& result)
{
    for (const auto& [phase, ms] : phases_ms()) {
        (phase == "h2d" ? result.h2d_ms : phase == "kernel" ? result.kernel_ms : result.d2h_ms) += ms;
    }
    result.total_ms = total_ms();
}

double PhaseTimer::total_ms()
{
    queue_->finish();
    return marks_.empty() ? 0 : elapsed_ms(start_, marks_.back().second);
}

double span_ms(std::span<const Event> starts, std::span<const Event> ends)
{
    // Measured from the first start, which another queue's may precede: that one counts negative.
    double earliest = 0;
    double latest = 0;
    for (const Event& start : starts) {
        earliest = std::min(earliest, elapsed_ms(starts.front(), start));
    }
    for (const Event& end : ends) {
        latest = std::max(latest, elapsed_ms(starts.front(), end));
    }
    return latest - earliest;
}

HostMemoryKind host_memory_kind(const std::string& name)
{
    std::string known;
    for (const auto kind : {HostMemoryKind::pageable, HostMemoryKind::pinned, HostMemoryKind::write_combined,
                            HostMemoryKind::mapped, HostMemoryKind::registered}) {
        if (name == to_string(kind)) {
            return kind;
        }
        known += " " + std::string(to_string(kind));
    }
    throw InvalidArgument("", "workload::host_memory_kind", 0, "",
                          "unknown host memory kind '" + name + "'; known:" + known);
}

WorkloadParameter integer_parameter(std::string name, std::int64_t default_value, std::int64_t min, std::int64_t max,
                                    std::string help)
{
    return {std::move(name), WorkloadParameter::Type::integer, std::to_string(default_value), std::move(help),
            static_cast<double>(min), static_cast<double>(max), {}};
}

WorkloadParameter choice_parameter(std::string name, std::vector<std::string> choices, std::string help)
{
    WorkloadParameter parameter{std::move(name), WorkloadParameter::Type::choice, choices.front(), std::move(help),
                                0, 0, std::move(choices)};
    return parameter;
}

} // namespace duet::workload
