// Occupancy of a launched block: how many blocks and warps one SM holds at once and which of its
// resources stops there, by the rules of the CUDA occupancy calculator, so that a kernel seen
// through OpenCL gets the figure CUDA's driver gives for the same numbers.
#pragma once

#include "model/architecture.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace duet::cli {

/// What one block of a kernel asks of an SM; written with designated initializers, a field left
/// out keeps its default.
struct KernelUse {
    unsigned threads_per_block = 0;
    unsigned registers_per_thread = 0;
    std::uint64_t static_shared_bytes = 0;
    std::uint64_t dynamic_shared_bytes = 0;
    /// The shared memory carve-out the kernel runs with, in percent of the largest
    /// (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT); nullopt: the largest.
    std::optional<unsigned> shared_carveout_percent{};
};

/// A resource that caps the blocks an SM holds.
enum class Limiter {
    warps,         ///< the SM's warp slots (the block's threads)
    blocks,        ///< the SM's block slots
    registers,     ///< the register file
    shared_memory, ///< the shared memory carve-out
};

struct Occupancy {
    unsigned active_blocks = 0; ///< per SM; 0 when one block cannot fit
    unsigned active_warps = 0;  ///< per SM
    double fraction = 0;        ///< active_warps over the SM's most
    /// The resources that set active_blocks (several where they allow the same count).
    std::vector<Limiter> limiters;
    /// The blocks each resource alone allows; nullopt where the kernel uses none of it.
    unsigned blocks_by_warps = 0;
    unsigned blocks_by_block_slots = 0;
    std::optional<unsigned> blocks_by_registers;
    std::optional<unsigned> blocks_by_shared_memory;
    /// What one block is given: registers in whole warp allocations, shared memory with the
    /// driver's reservation, rounded up to the allocation unit.
    std::uint64_t registers_per_block = 0;
    std::uint64_t shared_bytes_per_block = 0;
    /// The shared memory the SM is set to for this kernel.
    std::uint64_t shared_bytes_per_sm = 0;
    /// Why one block cannot fit, each limit it breaks; empty when it fits.
    std::string refusal;
};

/// The occupancy of `use` on an SM of `arch`, as cuOccupancyMaxActiveBlocksPerMultiprocessor
/// computes it (cudaOccMaxActiveBlocksPerMultiprocessor in cuda_occupancy.h). Throws
/// duet::InvalidArgument for a block of no threads or a carve-out over 100%.
Occupancy occupancy(const Architecture& arch, const KernelUse& use);

} // namespace duet::cli
