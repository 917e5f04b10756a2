// What `duet explain` prints and writes: for each run a block per kernel (its launches, resources,
// occupancy and instruction mix), then for each GPU reached through both APIs the two mixes side by
// side with their differences; and the same as JSON under stable keys.
#pragma once

#include <cstdint>
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

/// What the table and the report open with besides the runs.
struct ExplainHeader {
    std::string workload;
    std::vector<std::string> variants;
    std::vector<std::string> devices; ///< each as device_title and api_label name it, in the order run
    std::uint64_t seed = 1;
    /// The build caches' line, the SASS tools' line, and the build flags' where --options gave any.
    std::vector<std::string> notes;
};

/// "duet explain: newton, 1 variant on 4 devices; one untimed pass each, values not checked; seed 1".
std::string explain_heading(const ExplainHeader& header);
/// The header's notes, each broken at spaces to fit the table's width.
void print_explain_notes(std::ostream& out, const ExplainHeader& header);

/// The words the table and the report share, each made in one place.
/// "vector_add/default on opencl:0 pthread-... [OpenCL (PoCL)]".
std::string run_heading(const ExplainedRun& run);
/// "newton/band on one GPU through both APIs: cuda:0 and opencl:1 (PCI 0000:00:06.0)".
std::string pair_heading(const ExplainedPair& pair, const std::vector<ExplainedRun>& runs);
/// "kernel newton_ax: 3 launches".
std::string kernel_heading(const ExplainedKernel& kernel);
/// "8 x 615", as many sizes as the range has dimensions.
std::string dims_text(std::uint32_t dims, const Dim3& size);
/// "3", or "3 (1 recorded)" where some were recorded into a sequence.
std::string launches_text(const LaunchGroup& launch);
/// "warps, registers"; "-" for none.
std::string limiters_text(const Occupancy& occupancy);
/// The driver's blocks per SM, "8 DISAGREES" where the model's differ; "-" for none.
std::string driver_blocks_text(const LaunchOccupancy& occupancy);
/// Why no launch of `kernel` has an occupancy figure (the device's reason, one for all); empty where
/// one has.
std::string occupancy_absent(const ExplainedKernel& kernel);
/// What the occupancy figures of `kernel`'s launches leave to say: a block that cannot fit, a figure
/// absent and why, model and driver apart, registers unknown; each once, sorted.
std::vector<std::string> occupancy_notes(const ExplainedKernel& kernel);
/// "40 a work-item", with where the figure came from, or why it is not known on `backend`.
std::string registers_text(const ExplainedKernel& kernel, const DeviceProperties& device, const std::string& backend);
/// "1024, set by the device", and the block the kernel declares where it declares one.
std::string largest_block_text(const KernelProperties& properties);
/// "30 registers, 40 B stack, spills 0 B stored and 0 B loaded, 0 B static shared".
std::string ptxas_text(const PtxasKernel& figures);
/// "PTX, 308 instructions in the kernel and the functions it calls".
std::string mix_heading(const InstructionMix& mix);
/// "1234 instructions (NOPs left out)"
std::string sass_heading(const SassMix& mix);
/// Every group either mix holds, in the mixes' own fixed order: each group only the OpenCL mix
/// holds goes after the group it follows there.
std::vector<std::string> group_names(const std::vector<MixGroup>& cuda, const std::vector<MixGroup>& opencl);
/// "axpb", or "saxpy_cuda / saxpy_cl" where the twins' names differ.
std::string twin_name(const KernelTwin& twin);
/// "FMA contraction: CUDA 1, OpenCL 0 FMA instructions".
std::string difference_text(const MixDifference& difference);
/// A program's build options as given, trimmed; "none" where empty, or why they are not known.
std::string options_text(const ExplainedProgram& program);
/// "a, b, c".
std::string joined(const std::vector<std::string>& names);

/// The HTML report: the header, a table of contents, each run (launches, resources, occupancy, PTX
/// and SASS mixes, build options, or why any is absent), each GPU seen through both APIs (the two
/// mixes side by side with the rows that differ marked, each difference's hypothesis and test, the
/// build options side by side), then the backends and the devices.
std::string explain_report(const ExplainHeader& header, const std::vector<ExplainedRun>& runs,
                           const std::vector<ExplainedPair>& pairs);
/// A pair's section without its heading: each kernel's two mixes side by side, the rows that
/// differ marked, its differences with their hypotheses and tests; then each pair of programs'
/// build options side by side. `cuda` and `opencl` are the runs' programs the twins index.
std::string pair_report_section(const std::vector<KernelTwin>& kernels, const std::vector<ProgramTwin>& programs,
                                const std::vector<ExplainedProgram>& cuda, const std::vector<ExplainedProgram>& opencl);
/// One kernel's part of a run's section: resources, launches, occupancy, PTX and SASS mixes, on a
/// device of `device` figures through `backend`; `anchor` its element id.
std::string kernel_report_section(const ExplainedKernel& kernel, const DeviceProperties& device,
                                  const std::string& backend, const std::string& anchor);

/// The whole record: the environment, the seed, every run with its kernels and programs, every pair.
json::Value explain_json(const std::vector<ExplainedRun>& runs, const std::vector<ExplainedPair>& pairs,
                         std::uint64_t seed);

} // namespace duet::cli
