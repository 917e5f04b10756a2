// How many work-items of a kernel fit a block by registers alone, on NVIDIA GPUs: the rule that
// CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK follows, which NVIDIA's OpenCL leaves for duet to apply
// (its CL_KERNEL_WORK_GROUP_SIZE answers 256 for every kernel; see backends/opencl/kernel.cpp).
#pragma once

#include <cstdint>

namespace duet::backend {

/// Registers are allocated to each warp in units of 256 (every architecture since Kepler), so a
/// kernel of 127 registers a thread takes 4096 a warp: 65536 a block hold 16 warps, 512 threads.
inline std::uint64_t block_limit_by_registers(std::uint32_t registers_per_thread, std::uint32_t registers_per_block,
                                              std::uint32_t warp_width)
{
    constexpr std::uint64_t allocation_unit = 256;
    if (registers_per_thread == 0 || registers_per_block == 0 || warp_width == 0)
        return 0;
    const std::uint64_t per_warp =
        (std::uint64_t{registers_per_thread} * warp_width + allocation_unit - 1) / allocation_unit * allocation_unit;
    return registers_per_block / per_warp * warp_width;
}

} // namespace duet::backend
