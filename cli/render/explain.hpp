// What `duet explain` prints and writes: for each run a block per kernel (its launches, resources,
// occupancy and instruction mix), then for each GPU reached through both APIs the two mixes side by
// side with their differences; and the same as JSON under stable keys.
#pragma once

#include <ostream>
#include <vector>

#include "model/explain.hpp"
#include "render/json.hpp"

namespace duet::cli {

/// One run: a heading naming the workload, variant and device, then its kernels, or its reason.
void print_explained_run(std::ostream& out, const ExplainedRun& run);
/// One GPU reached through CUDA and OpenCL: each kernel's two mixes and their differences.
void print_explained_pair(std::ostream& out, const ExplainedPair& pair, const std::vector<ExplainedRun>& runs);

/// The whole record: the environment, the seed, every run with its kernels and programs, every pair.
json::Value explain_json(const std::vector<ExplainedRun>& runs, const std::vector<ExplainedPair>& pairs,
                         std::uint64_t seed);

} // namespace duet::cli
