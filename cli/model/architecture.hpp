// Each NVIDIA GPU generation's figures in one table: the limits the CUDA occupancy calculator works
// from and the FMA throughput a roofline's peak FLOP rate comes from, by compute capability.
#pragma once

#include <duet/device.hpp>

#include <optional>
#include <string>
#include <vector>

namespace duet::cli {

/// One compute capability's figures. Registers are 32-bit and allocated per warp, in units of
/// register_allocation_unit; shared memory is allocated per block, in units of
/// shared_allocation_unit, each block also taking shared_reserved_per_block that the driver keeps.
struct Architecture {
    int major = 0;
    int minor = 0;
    unsigned warp_size = 0;
    unsigned max_threads_per_block = 0;
    unsigned max_warps_per_sm = 0;
    unsigned max_blocks_per_sm = 0;
    unsigned registers_per_sm = 0;
    unsigned max_registers_per_block = 0;
    unsigned max_registers_per_thread = 0;
    /// Registers a warp is given at a time: its need rounds up to a multiple of this.
    unsigned register_allocation_unit = 0;
    /// The SM's register file is split between this many schedulers, each holding whole warps;
    /// a block's registers are checked as if its warps filled every part alike.
    unsigned register_partitions = 0;
    /// The largest shared memory carve-out (cudaDevAttrMaxSharedMemoryPerMultiprocessor).
    unsigned shared_per_sm = 0;
    /// The shared memory sizes the SM can be set to (the carve-outs), smallest first.
    std::vector<unsigned> shared_carveouts{};
    unsigned shared_allocation_unit = 0;
    unsigned shared_reserved_per_block = 0;
    /// The most a block may use once the kernel opts in (cudaDevAttrMaxSharedMemoryPerBlockOptin),
    /// not counting the reservation.
    unsigned max_shared_per_block_optin = 0;
    /// FP32 and FP64 add, multiply or fused multiply-add results per clock per SM: the FMA lanes.
    unsigned fp32_lanes_per_sm = 0;
    unsigned fp64_lanes_per_sm = 0;
};

/// The figures of compute capability major.minor; nullopt for one the table does not hold
/// (7.0, 7.2, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.0 and 12.0 are held).
std::optional<Architecture> architecture(int major, int minor);
/// The figures of the device's compute capability (CUDA's, and NVIDIA's OpenCL's); nullopt where
/// it reports none or the table does not hold it.
std::optional<Architecture> architecture(const DeviceProperties& device);
/// "9.0": the device's compute capability as messages write it.
std::string capability_text(const DeviceProperties& device);

/// The peak FP32 (or FP64) rate in GFLOP/s of sm_count SMs at clock_mhz: every FMA lane
/// completing one fused multiply-add, 2 flops, per clock.
double peak_gflops(const Architecture& arch, unsigned sm_count, unsigned clock_mhz, bool fp64);

} // namespace duet::cli
