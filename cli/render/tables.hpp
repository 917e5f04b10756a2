// The terminal tables of compare and bench: one per workload with its own figures, the
// OpenCL/CUDA pairs, and a sweep's points.
#pragma once

#include <cstddef>
#include <vector>

#include "model/runs.hpp"
#include "model/sweep.hpp"

namespace duet::cli {

/// The runs of one workload, from `first` to the next workload's, then the workload's own figures.
void print_workload_table(const std::vector<Run>& runs, std::size_t first);
/// One GPU reached through both APIs: the OpenCL/CUDA time ratios and what they say.
void print_pairs_table(const std::vector<ApiPair>& pairs);
/// Every point of a sweep: medians, spread, rate, error and status.
void print_bench_table(const Benchmark& bench);

} // namespace duet::cli
