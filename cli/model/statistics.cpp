// Medians and ranges of repeats, through the kit's summarize().
#include "model/statistics.hpp"

#include <duet/workload/statistics.hpp>

namespace duet::cli {

double median(std::span<const double> samples)
{
    return samples.empty() ? 0 : workload::summarize(samples).median;
}

std::optional<double> relative_range(std::span<const double> samples)
{
    if (samples.empty()) {
        return std::nullopt;
    }
    const workload::Summary stats = workload::summarize(samples);
    if (stats.median <= 0) {
        return std::nullopt;
    }
    return (stats.max - stats.min) / stats.median;
}

} // namespace duet::cli
