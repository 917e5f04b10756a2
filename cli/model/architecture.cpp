// The figures by compute capability. Warps, blocks, registers and shared memory per SM and per block
// are those of the CUDA C++ Programming Guide's "Compute Capabilities" appendix, table "Technical
// Specifications per Compute Capability"; FMA lanes are its "Arithmetic Instructions" table,
// "Throughput of Native Arithmetic Instructions (Number of Results per Clock Cycle per
// Multiprocessor)", rows "32-bit floating-point add, multiply, multiply-add" and "64-bit ...".
// The allocation units, register partitions, carve-out steps and the driver's reservation per
// block, which the guide gives only in prose, are those of the toolkit's occupancy calculator
// (cuda_occupancy.h), the rules cuOccupancyMaxActiveBlocksPerMultiprocessor follows.
#include "model/architecture.hpp"

#include <algorithm>
#include <array>

namespace duet::cli {
namespace {

constexpr unsigned kib = 1024;

/// What differs between compute capabilities; the rest is one figure for every generation held.
struct Generation {
    int major;
    int minor;
    unsigned max_warps_per_sm;
    unsigned max_blocks_per_sm;
    unsigned max_shared_kib_per_sm;
    unsigned fp32_lanes_per_sm;
    unsigned fp64_lanes_per_sm;
};

// 12.0's 24 blocks per SM is the occupancy calculator's (and its GPUs' reported) figure.
constexpr std::array generations{
    Generation{7, 0, 64, 32, 96, 64, 32},    Generation{7, 2, 64, 32, 96, 64, 32},
    Generation{7, 5, 32, 16, 64, 64, 2},     Generation{8, 0, 64, 32, 164, 64, 32},
    Generation{8, 6, 48, 16, 100, 128, 2},   Generation{8, 7, 48, 16, 164, 128, 2},
    Generation{8, 9, 48, 24, 100, 128, 2},   Generation{9, 0, 64, 32, 228, 128, 64},
    Generation{10, 0, 64, 32, 228, 128, 64}, Generation{12, 0, 48, 24, 100, 128, 2},
};

/// The sizes shared memory can be carved to, up to the generation's largest: Volta's steps end at
/// 96 KiB, Turing has only 32 and 64 KiB, Ampere onwards step on past 64 KiB to 228 KiB.
std::vector<unsigned> carveouts(const Generation& generation)
{
    if (generation.major == 7 && generation.minor == 5) {
        return {32 * kib, 64 * kib};
    }
    const std::vector<unsigned> steps_kib = generation.major == 7
                                                ? std::vector<unsigned>{0, 8, 16, 32, 64, 96}
                                                : std::vector<unsigned>{0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    std::vector<unsigned> sizes;
    for (const unsigned step : steps_kib) {
        if (step <= generation.max_shared_kib_per_sm) {
            sizes.push_back(step * kib);
        }
    }
    return sizes;
}

} // namespace

std::optional<Architecture> architecture(int major, int minor)
{
    const auto* found = std::find_if(generations.begin(), generations.end(), [&](const Generation& generation) {
        return generation.major == major && generation.minor == minor;
    });
    if (found == generations.end()) {
        return std::nullopt;
    }
    // From Ampere on, shared memory is allocated in finer units and the driver keeps 1 KiB of
    // every block's, which the opt-in limit per block leaves out.
    const bool ampere_or_later = major >= 8;
    const unsigned reserved = ampere_or_later ? kib : 0;
    const unsigned shared_per_sm = found->max_shared_kib_per_sm * kib;
    return Architecture{
        .major = major,
        .minor = minor,
        .warp_size = 32,
        .max_threads_per_block = 1024,
        .max_warps_per_sm = found->max_warps_per_sm,
        .max_blocks_per_sm = found->max_blocks_per_sm,
        .registers_per_sm = 64 * kib,
        .max_registers_per_block = 64 * kib,
        .max_registers_per_thread = 255,
        .register_allocation_unit = 256,
        .register_partitions = 4,
        .shared_per_sm = shared_per_sm,
        .shared_carveouts = carveouts(*found),
        .shared_allocation_unit = ampere_or_later ? 128u : 256u,
        .shared_reserved_per_block = reserved,
        .max_shared_per_block_optin = shared_per_sm - reserved,
        .fp32_lanes_per_sm = found->fp32_lanes_per_sm,
        .fp64_lanes_per_sm = found->fp64_lanes_per_sm,
    };
}

std::optional<Architecture> architecture(const DeviceProperties& device)
{
    return architecture(static_cast<int>(device.compute_capability_major),
                        static_cast<int>(device.compute_capability_minor));
}

std::string capability_text(const DeviceProperties& device)
{
    return std::to_string(device.compute_capability_major) + "." + std::to_string(device.compute_capability_minor);
}

double peak_gflops(const Architecture& arch, unsigned sm_count, unsigned clock_mhz, bool fp64)
{
    const unsigned lanes = fp64 ? arch.fp64_lanes_per_sm : arch.fp32_lanes_per_sm;
    constexpr double flops_per_fma = 2;
    return static_cast<double>(sm_count) * lanes * flops_per_fma * clock_mhz / 1000.0;
}

} // namespace duet::cli
