// The statistics the CLI takes of a point's repeats, over the kit's summaries
// (duet/workload/statistics.hpp): the median a table shows and how far apart the repeats lie.
#pragma once

#include <optional>
#include <span>

namespace duet::cli {

/// The median of `samples`; 0 for none.
double median(std::span<const double> samples);

/// (max - min) / median: how far apart the repeats lie, relative to their middle; nullopt when the
/// median is not above 0 (no samples, or nothing measured).
std::optional<double> relative_range(std::span<const double> samples);

} // namespace duet::cli
