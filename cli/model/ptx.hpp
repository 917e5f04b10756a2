// The compiled code's instruction mix, read from PTX: NVRTC's and nvcc's output for CUDA, and NVIDIA
// OpenCL's program binary, which is PTX text too. Static counts of one kernel's instructions in
// groups a GPU programmer reads at a glance, and the differences between two kernels' mixes that
// hint at why one runs slower, each with the build option or source change that would test it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace duet::cli {

/// One group of instructions and how many a kernel holds ("global load 128-bit .nc", 4).
struct MixGroup {
    std::string name;
    std::uint64_t count = 0;
};

struct InstructionMix {
    std::string entry;
    /// The .funcs whose bodies are counted with the entry's: each one it calls, directly or
    /// through another, once.
    std::vector<std::string> functions;
    /// Functions called without a body in the module (vprintf, or a call through a pointer):
    /// their calls are counted, their code is not.
    std::vector<std::string> unresolved;
    /// The groups with at least one instruction, always in the same order (memory, floating
    /// point by type, integer, conversions, synchronisation, control flow, other).
    std::vector<MixGroup> groups;
    std::uint64_t total = 0;

    /// The count of the group named `name`; 0 where the kernel has none.
    std::uint64_t count(std::string_view name) const;
};

/// A group, or a set of groups, whose counts differ between the CUDA and the OpenCL kernel in a
/// way that changes speed or results.
struct MixDifference {
    std::string aspect; ///< what differs: "FMA contraction", "division and square root precision"
    std::uint64_t cuda = 0;
    std::uint64_t opencl = 0;
    std::string counted;    ///< what the two counts count: "FMA instructions"
    std::string hypothesis; ///< one line in plain words
    std::string test;       ///< the build option or source change that would confirm it
};

/// The names of the `.entry` kernels in a PTX module, in the order it defines them. Throws
/// duet::InvalidArgument naming the line where the text stops being PTX.
std::vector<std::string> ptx_entries(std::string_view ptx);

/// The static instruction mix of the `.entry` named `entry`, with the .funcs it calls. Throws
/// duet::NotFound naming the entries that exist when there is no such entry, and
/// duet::InvalidArgument naming the line for text that is not PTX.
InstructionMix mix_of(std::string_view ptx, std::string_view entry);

/// The mix of every `.entry` the module defines, in its order, from one reading of it: what a
/// program's kernels need, read once. Throws duet::InvalidArgument as mix_of does.
std::vector<InstructionMix> entry_mixes(std::string_view ptx);

/// The differences between two builds of one kernel that matter, in a fixed order; none for
/// equal mixes.
std::vector<MixDifference> compare_mixes(const InstructionMix& cuda, const InstructionMix& opencl);

} // namespace duet::cli
