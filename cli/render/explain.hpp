// What `duet explain` prints and writes: for each run a block per kernel (its launches, resources,
// occupancy and instruction mix), then for each GPU reached through both APIs the two mixes side by
// side with their differences; and the same as JSON under stable keys.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "model/explain.hpp"
#include "render/json.hpp"

namespace duet::cli {

/// One run: a heading naming the workload, variant and device, then its kernels, or its reason.
void print_explained_run(std::ostream& out, const ExplainedRun& run);
/// One kernel's block: resources, launches, occupancy and instruction mix, on a device of `device`
/// figures through `backend` ("cuda", "opencl").
void print_explained_kernel(std::ostream& out, const ExplainedKernel& kernel, const DeviceProperties& device,
                            const std::string& backend);
/// Each kernel's two mixes side by side, the groups that differ marked, then the differences.
void print_kernel_twins(std::ostream& out, const std::vector<KernelTwin>& twins);
/// The build options of each pair of programs, CUDA's above OpenCL's; `cuda` and `opencl` are the
/// runs' programs the twins index.
void print_program_twins(std::ostream& out, const std::vector<ProgramTwin>& twins,
                         const std::vector<ExplainedProgram>& cuda, const std::vector<ExplainedProgram>& opencl);
/// One GPU reached through CUDA and OpenCL: each kernel's two mixes and their differences.
void print_explained_pair(std::ostream& out, const ExplainedPair& pair, const std::vector<ExplainedRun>& runs);

/// The whole record: the environment, the seed, every run with its kernels and programs, every pair.
json::Value explain_json(const std::vector<ExplainedRun>& runs, const std::vector<ExplainedPair>& pairs,
                         std::uint64_t seed);

} // namespace duet::cli
