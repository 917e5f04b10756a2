// The occupancy calculator's rules: each resource allows some number of blocks per SM and the
// least of them is the answer. Warps are whole per block; registers go to each warp in allocation
// units; shared memory goes to each block with the driver's reservation, in allocation units, out
// of the carve-out the kernel runs with. Block barriers are left out: one per block, as a kernel
// has, never allows fewer blocks than the block slots on the generations the table holds.
#include "model/occupancy.hpp"

#include <duet/error.hpp>

#include <algorithm>
#include <utility>

namespace duet::cli {
namespace {

std::uint64_t divide_round_up(std::uint64_t value, std::uint64_t unit)
{
    return (value + unit - 1) / unit;
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t unit)
{
    return divide_round_up(value, unit) * unit;
}

std::string capability(const Architecture& arch)
{
    return "compute capability " + std::to_string(arch.major) + "." + std::to_string(arch.minor);
}

void add_reason(std::string& refusal, const std::string& reason)
{
    refusal += (refusal.empty() ? "" : "; ") + reason;
}

/// The carve-out size `bytes` rounds up to; nullopt past the largest.
std::optional<std::uint64_t> carveout_at_least(const Architecture& arch, std::uint64_t bytes)
{
    const auto found = std::find_if(arch.shared_carveouts.begin(), arch.shared_carveouts.end(),
                                    [&](unsigned size) { return size >= bytes; });
    return found == arch.shared_carveouts.end() ? std::nullopt : std::optional<std::uint64_t>(*found);
}

/// Registers: the hardware checks a block as if its warps filled every register partition alike;
/// an SM holds as many warps as fit in each partition, times the partitions.
void limit_by_registers(const Architecture& arch, const KernelUse& use, unsigned warps, Occupancy& result)
{
    const std::uint64_t per_warp =
        round_up(std::uint64_t{use.registers_per_thread} * arch.warp_size, arch.register_allocation_unit);
    result.registers_per_block = per_warp * warps;
    const std::uint64_t checked = per_warp * round_up(warps, arch.register_partitions);
    if (use.registers_per_thread > arch.max_registers_per_thread) {
        result.blocks_by_registers = 0;
        add_reason(result.refusal, std::to_string(use.registers_per_thread) + " registers per thread are over the " +
                                       std::to_string(arch.max_registers_per_thread) + " a thread may have on " +
                                       capability(arch));
    } else if (checked > arch.max_registers_per_block) {
        result.blocks_by_registers = 0;
        add_reason(result.refusal,
                   "a block of " + std::to_string(warps) + " warps at " + std::to_string(per_warp) +
                       " registers each (" + std::to_string(use.registers_per_thread) +
                       " per thread, allocated in units of " + std::to_string(arch.register_allocation_unit) +
                       ") counts as " + std::to_string(checked) + " registers, over the " +
                       std::to_string(arch.max_registers_per_block) + " a block may have on " + capability(arch));
    } else if (per_warp > 0) {
        const std::uint64_t warps_per_partition = arch.registers_per_sm / arch.register_partitions / per_warp;
        result.blocks_by_registers = static_cast<unsigned>(warps_per_partition * arch.register_partitions / warps);
    }
}

/// Shared memory: the SM is set to the kernel's carve-out, or to the smallest that holds one of its
/// blocks where the carve-out is smaller than that.
void limit_by_shared_memory(const Architecture& arch, const KernelUse& use, Occupancy& result)
{
    const std::uint64_t used = use.static_shared_bytes + use.dynamic_shared_bytes;
    result.shared_bytes_per_block = round_up(used + arch.shared_reserved_per_block, arch.shared_allocation_unit);
    const std::uint64_t block_limit = std::uint64_t{arch.max_shared_per_block_optin} + arch.shared_reserved_per_block;
    const unsigned percent = use.shared_carveout_percent.value_or(100);
    const std::uint64_t preferred =
        carveout_at_least(arch, std::uint64_t{percent} * arch.shared_per_sm / 100).value_or(arch.shared_per_sm);
    result.shared_bytes_per_sm = preferred;
    if (result.shared_bytes_per_block > block_limit) {
        result.blocks_by_shared_memory = 0;
        add_reason(result.refusal, "a block's " + std::to_string(used) + " bytes of shared memory (" +
                                       std::to_string(use.static_shared_bytes) + " static, " +
                                       std::to_string(use.dynamic_shared_bytes) + " dynamic) are over the " +
                                       std::to_string(arch.max_shared_per_block_optin) + " a block may use on " +
                                       capability(arch));
        return;
    }
    if (result.shared_bytes_per_block == 0) {
        return;
    }
    if (preferred < result.shared_bytes_per_block) {
        result.shared_bytes_per_sm =
            carveout_at_least(arch, result.shared_bytes_per_block).value_or(arch.shared_per_sm);
    }
    result.blocks_by_shared_memory = static_cast<unsigned>(result.shared_bytes_per_sm / result.shared_bytes_per_block);
}

} // namespace

Occupancy occupancy(const Architecture& arch, const KernelUse& use)
{
    if (use.threads_per_block == 0) {
        throw InvalidArgument("duet", "occupancy", "a block of 0 threads: a block has at least 1");
    }
    if (use.shared_carveout_percent && *use.shared_carveout_percent > 100) {
        throw InvalidArgument("duet", "occupancy",
                              "a shared memory carve-out of " + std::to_string(*use.shared_carveout_percent) +
                                  "%: the carve-out is a percentage of the largest, at most 100");
    }
    Occupancy result;
    const auto warps = static_cast<unsigned>(divide_round_up(use.threads_per_block, arch.warp_size));
    if (use.threads_per_block > arch.max_threads_per_block) {
        add_reason(result.refusal, "a block of " + std::to_string(use.threads_per_block) + " threads is over the " +
                                       std::to_string(arch.max_threads_per_block) + " threads a block may have on " +
                                       capability(arch));
    } else {
        result.blocks_by_warps = arch.max_warps_per_sm / warps;
    }
    result.blocks_by_block_slots = arch.max_blocks_per_sm;
    limit_by_registers(arch, use, warps, result);
    limit_by_shared_memory(arch, use, result);

    const std::vector<std::pair<Limiter, std::optional<unsigned>>> limits{
        {Limiter::warps, result.blocks_by_warps},
        {Limiter::blocks, result.blocks_by_block_slots},
        {Limiter::registers, result.blocks_by_registers},
        {Limiter::shared_memory, result.blocks_by_shared_memory},
    };
    result.active_blocks = std::min(result.blocks_by_warps, result.blocks_by_block_slots);
    for (const auto& [limiter, blocks] : limits) {
        result.active_blocks = std::min(result.active_blocks, blocks.value_or(result.active_blocks));
    }
    for (const auto& [limiter, blocks] : limits) {
        if (blocks == result.active_blocks) {
            result.limiters.push_back(limiter);
        }
    }
    result.active_warps = result.active_blocks * warps;
    result.fraction = static_cast<double>(result.active_warps) / arch.max_warps_per_sm;
    return result;
}

} // namespace duet::cli
