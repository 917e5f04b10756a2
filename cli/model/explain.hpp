// Why a kernel runs as it does: one run of a workload with the device's launch log on, and for
// every kernel it launched the launch geometry, the kernel's resources, its occupancy (by the CUDA
// occupancy calculator's rules, and the driver's own figure on CUDA) and its compiled code's
// instruction mix; for one GPU reached through both APIs, the two mixes and their differences.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <duet/duet.hpp>
#include <duet/workload/check.hpp>

#include "model/occupancy.hpp"
#include "model/ptx.hpp"
#include "model/runs.hpp"
#include "model/sass.hpp"

namespace duet::cli {

/// "warps", "blocks", "registers", "shared memory".
std::string to_string(Limiter limiter);

/// The occupancy of one launch: ours where the device has an architecture in the table, the
/// driver's where its API has a query, and why each is absent where it is.
struct LaunchOccupancy {
    std::optional<Occupancy> model;
    std::string model_absent; ///< why there is no model figure: "not applicable: ..."
    /// Registers 0 ("not known"): the model's figure leaves the register file out, an upper bound.
    bool registers_unknown = false;
    std::optional<unsigned> driver; ///< blocks per SM, cuOccupancyMaxActiveBlocksPerMultiprocessor
    std::string driver_absent;      ///< why there is no driver figure

    /// Both figures exist and give different blocks per SM (they should not: the model follows the
    /// driver's rules).
    bool disagree() const { return model && driver && model->active_blocks != *driver; }
};

/// Launches that share a kernel, range and dynamic local memory.
struct LaunchGroup {
    Range range;
    std::size_t dynamic_local_bytes = 0;
    std::size_t count = 0;
    std::size_t recorded = 0; ///< of them, recorded into a sequence (each replay runs them again)
    LaunchOccupancy occupancy;

    std::uint64_t threads_per_block() const { return range.block.x * range.block.y * range.block.z; }
};

/// One kernel the run launched, with each of its distinct launches.
struct ExplainedKernel {
    Kernel kernel;
    std::string name;
    KernelProperties properties;
    std::vector<LaunchGroup> launches; ///< in the order first launched
    std::size_t program = 0;           ///< its index in ExplainedRun::programs
    std::optional<InstructionMix> mix; ///< where its program's assembly is PTX
    std::string mix_absent;            ///< why there is no mix
    /// Where KernelProperties::registers came from: "the driver", or "ptxas" where the driver did not
    /// say and the toolkit's ptxas compiled the program's PTX; empty where neither says.
    std::string registers_from;
    std::optional<PtxasKernel> ptxas; ///< what ptxas -v said of it
    std::optional<SassMix> sass;      ///< its SASS, counted
    std::string sass_absent;          ///< why there is no SASS mix
    /// Other builds of a kernel of this name that the run launched only before this one's last
    /// launch (a tuner's trials, each its own program), left out: this is the build the run used.
    std::size_t earlier_builds = 0;
};

/// A program the run's kernels came from, and its compiled code.
struct ExplainedProgram {
    Program program;
    std::vector<std::string> kernels;
    std::optional<std::string> assembly;      ///< PTX text where the backend keeps it
    std::string assembly_absent;              ///< why not: Program::assembly's Unsupported
    std::vector<InstructionMix> mixes;        ///< each .entry's, the assembly read once
    std::string mixes_absent;                 ///< why none: the assembly is not PTX duet can read
    std::optional<std::string> build_options; ///< Program::build_options: what the compiler was given
    std::string build_options_absent;         ///< why not: the backend cannot say
    std::optional<ProgramSass> sass;          ///< its PTX through the toolkit's ptxas
    std::string sass_absent;                  ///< why not: no PTX, no GPU architecture, no tools, a tool failed
};

struct ExplainedRun {
    workload::Job job;
    Status status = Status::ok;
    std::string reason; ///< why the run is not ok
    std::vector<ExplainedKernel> kernels;
    std::vector<ExplainedProgram> programs;
    /// Launches of duet's own timing spacer (workload::Spacer), which the runner puts before each
    /// timed launch: not the workload's, so not explained.
    std::size_t spacer_launches = 0;

    bool explained() const { return status == Status::ok; }
};

/// A kernel a run launched, as kept_builds() weighs it: its name, its program (equal numbers for the
/// kernels of one build) and the index of its last launch among the run's.
struct LaunchedBuild {
    std::string name;
    std::size_t program = 0;
    std::size_t last_launch = 0;
};

/// What kept_builds() says of a kernel: whether it stands for the run, and how many other builds of
/// its name the run launched.
struct BuildKept {
    bool kept = true;
    std::size_t other_builds = 0;
};

/// Of the kernels of one name from different programs (a tuner builds and launches each of its
/// candidates, then the run launches its choice), the one launched last stands for the name, so
/// that a pair compares the builds the two runs used. A program one of whose kernels is not kept was
/// a trial: none of its kernels is kept (a candidate's second kernel, such as matmul's sum of split
/// products, which the run's choice may not launch).
std::vector<BuildKept> kept_builds(const std::vector<LaunchedBuild>& kernels);

/// Runs `job` once (its timing should be Timing::once(); nothing is verified) with a LaunchLog on
/// its device, then explains each kernel launched, its program's PTX compiled to SASS by `tools`
/// where they are all there. A run that throws or is unsupported comes back with that status and
/// the reason; one that launched nothing has no kernels.
ExplainedRun explain(const workload::Job& job, const SassTools& tools);

/// The program's PTX through `tools` for a GPU of `device` figures: the program's sass, or its
/// sass_absent saying why not.
void add_sass(ExplainedProgram& program, const DeviceProperties& device, const SassTools& tools);
/// A kernel's ptxas figures and SASS mix from its program's, and registers from ptxas where the
/// driver gave none (0), with each launch's occupancy computed again with them on `device`.
void add_kernel_sass(ExplainedKernel& kernel, const ExplainedProgram& program, const Device& device);

/// The model's half of a launch's occupancy: a block of `threads_per_block` with
/// `dynamic_local_bytes` of a kernel of `kernel` figures on a device of `device` figures, where its
/// compute capability is in the architecture table; on a CPU device "not applicable".
LaunchOccupancy model_occupancy(const DeviceProperties& device, const KernelProperties& kernel,
                                std::uint64_t threads_per_block, std::size_t dynamic_local_bytes);
/// model_occupancy, and the driver's blocks per SM where the backend has the query (CUDA).
LaunchOccupancy launch_occupancy(const Device& device, const Kernel& kernel, const KernelProperties& properties,
                                 std::uint64_t threads_per_block, std::size_t dynamic_local_bytes);

/// One kernel seen through CUDA and through OpenCL on the same GPU: their mixes side by side.
struct KernelTwin {
    std::string cuda_kernel;
    std::string opencl_kernel;
    std::optional<InstructionMix> cuda_mix;
    std::optional<InstructionMix> opencl_mix;
    std::string absent; ///< why the mixes cannot be compared: one of them is missing, and why
    std::vector<MixDifference> differences;
    /// Their SASS, where ptxas and a disassembler made both (ExplainedKernel::sass).
    std::optional<SassMix> cuda_sass;
    std::optional<SassMix> opencl_sass;
};

/// The programs a pair's twin kernels came from, one from each run, and the kernels they share.
struct ProgramTwin {
    std::size_t cuda = 0;   ///< index into the CUDA run's programs
    std::size_t opencl = 0; ///< index into the OpenCL run's programs
    std::vector<std::string> kernels;
};

/// A CUDA run and an OpenCL run of the same variant on one GPU (the same non-empty PCI bus id).
struct ExplainedPair {
    std::size_t cuda = 0;   ///< index into the runs
    std::size_t opencl = 0; ///< index into the runs
    std::vector<KernelTwin> kernels;
    std::vector<ProgramTwin> programs; ///< in the order their first twin kernels come
};

/// Where two builds of one program were given different `-D` definitions (a tuner's or a
/// launcher's choice per device: matmul's tiles), a difference saying so: the mixes and the time
/// ratio then compare two versions of the kernel, not only two compilers. Counts: each side's
/// definitions that the other lacks. None where either build's options are unknown.
std::optional<MixDifference> definitions_difference(const std::optional<std::string>& cuda_options,
                                                    const std::optional<std::string>& opencl_options);

/// definitions_difference() of each pair of programs, put first among the differences of each twin
/// kernel they built that has both mixes. `cuda_options` and `opencl_options`: each run's programs'
/// build options, by program index (ProgramTwin's).
void put_definitions_first(std::vector<KernelTwin>& twins, const std::vector<ProgramTwin>& programs,
                           const std::vector<std::optional<std::string>>& cuda_options,
                           const std::vector<std::optional<std::string>>& opencl_options);

/// The kernels of a CUDA run and an OpenCL run of one variant, paired: by name (duet's entry points
/// are named alike in both languages), or where names differ (a manifest's entries) by the order
/// first launched when both launched as many kernels; a kernel with no twin is listed with why.
std::vector<KernelTwin> pair_kernels(const std::vector<ExplainedKernel>& cuda,
                                     const std::vector<ExplainedKernel>& opencl);

/// The programs of the CUDA and OpenCL kernels that `twins` pair (ExplainedKernel::program), each
/// pair of programs once.
std::vector<ProgramTwin> pair_programs(const std::vector<ExplainedKernel>& cuda,
                                       const std::vector<ExplainedKernel>& opencl,
                                       const std::vector<KernelTwin>& twins);

/// The pairs among `runs` that both ran, their kernels paired by pair_kernels.
std::vector<ExplainedPair> explained_pairs(const std::vector<ExplainedRun>& runs);

} // namespace duet::cli
