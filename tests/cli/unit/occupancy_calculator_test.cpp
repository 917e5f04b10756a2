// occupancy() against the CUDA toolkit's own occupancy calculator (cuda_occupancy.h, the rules of
// cuOccupancyMaxActiveBlocksPerMultiprocessor), which needs no GPU: both fed the same figures over
// a grid of block sizes, registers, shared memory and carve-outs must give the same blocks per SM,
// the same count by each resource and the same limiters. Built only where the header is found.
#include <cuda_occupancy.h>

#include "model/occupancy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

namespace duet::cli {
namespace {

cudaOccDeviceProp device_properties(const Architecture& arch)
{
    cudaOccDeviceProp properties;
    properties.computeMajor = arch.major;
    properties.computeMinor = arch.minor;
    properties.maxThreadsPerBlock = static_cast<int>(arch.max_threads_per_block);
    properties.maxThreadsPerMultiprocessor = static_cast<int>(arch.max_warps_per_sm * arch.warp_size);
    properties.regsPerBlock = static_cast<int>(arch.max_registers_per_block);
    properties.regsPerMultiprocessor = static_cast<int>(arch.registers_per_sm);
    properties.warpSize = static_cast<int>(arch.warp_size);
    properties.sharedMemPerBlock = 48 * 1024; // what a block may use without opting in
    properties.sharedMemPerMultiprocessor = arch.shared_per_sm;
    properties.numSms = 1;
    properties.sharedMemPerBlockOptin = arch.max_shared_per_block_optin;
    properties.reservedSharedMemPerBlock = arch.shared_reserved_per_block;
    return properties;
}

/// A kernel as the driver describes one: opted in to the most dynamic shared memory its static
/// use leaves, with the one barrier __syncthreads uses.
cudaOccFuncAttributes function_attributes(const Architecture& arch, const KernelUse& use)
{
    cudaOccFuncAttributes attributes;
    attributes.maxThreadsPerBlock = INT_MAX;
    attributes.numRegs = static_cast<int>(use.registers_per_thread);
    attributes.sharedSizeBytes = use.static_shared_bytes;
    attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    attributes.maxDynamicSharedSizeBytes =
        arch.max_shared_per_block_optin -
        std::min<std::uint64_t>(use.static_shared_bytes, arch.max_shared_per_block_optin);
    attributes.numBlockBarriers = 1;
    return attributes;
}

std::vector<Limiter> limiters_of(unsigned factors)
{
    std::vector<Limiter> limiters;
    if (factors & OCC_LIMIT_WARPS) {
        limiters.push_back(Limiter::warps);
    }
    if (factors & OCC_LIMIT_BLOCKS) {
        limiters.push_back(Limiter::blocks);
    }
    if (factors & OCC_LIMIT_REGISTERS) {
        limiters.push_back(Limiter::registers);
    }
    if (factors & OCC_LIMIT_SHARED_MEMORY) {
        limiters.push_back(Limiter::shared_memory);
    }
    return limiters;
}

std::vector<Limiter> sorted(std::vector<Limiter> limiters)
{
    std::sort(limiters.begin(), limiters.end());
    return limiters;
}

int or_unlimited(std::optional<unsigned> blocks)
{
    return blocks ? static_cast<int>(*blocks) : INT_MAX;
}

class OccupancyCalculator : public testing::TestWithParam<std::pair<int, int>> {};

TEST_P(OccupancyCalculator, AgreesWithTheToolkits)
{
    const auto [major, minor] = GetParam();
    const Architecture arch = *architecture(major, minor);
    const cudaOccDeviceProp properties = device_properties(arch);
    const unsigned optin = arch.max_shared_per_block_optin;
    int compared = 0;
    for (const unsigned threads : {1u,   31u,  32u,  33u,  64u,  96u,  128u, 160u, 192u,  256u, 288u,
                                   320u, 384u, 416u, 480u, 512u, 640u, 768u, 992u, 1024u, 1025u}) {
        for (const unsigned registers : {0u,  1u,  8u,  16u, 24u,  32u,  37u,  40u,  48u,  56u, 64u,
                                         65u, 72u, 80u, 96u, 128u, 136u, 168u, 200u, 232u, 255u}) {
            for (const unsigned static_shared : {0u, 4096u, 48u * 1024}) {
                for (const unsigned dynamic_shared : {0u, 1u, 1000u, 4096u, 20000u, 42496u, 49152u, 100000u, 160000u,
                                                      optin - static_shared, optin - static_shared + 1}) {
                    for (const int carveout : {-1, 0, 10, 25, 50, 75, 100}) {
                        KernelUse use{.threads_per_block = threads,
                                      .registers_per_thread = registers,
                                      .static_shared_bytes = static_shared,
                                      .dynamic_shared_bytes = dynamic_shared};
                        cudaOccDeviceState state;
                        if (carveout >= 0) {
                            use.shared_carveout_percent = static_cast<unsigned>(carveout);
                            state.carveoutConfig = carveout;
                        }
                        const cudaOccFuncAttributes attributes = function_attributes(arch, use);
                        cudaOccResult theirs{};
                        ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&theirs, &properties, &attributes, &state,
                                                                          static_cast<int>(threads), dynamic_shared),
                                  CUDA_OCC_SUCCESS);
                        const Occupancy ours = occupancy(arch, use);
                        const std::string where =
                            "threads " + std::to_string(threads) + ", registers " + std::to_string(registers) +
                            ", shared " + std::to_string(static_shared) + " + " + std::to_string(dynamic_shared) +
                            ", carve-out " + std::to_string(carveout);
                        ASSERT_EQ(static_cast<int>(ours.active_blocks), theirs.activeBlocksPerMultiprocessor) << where;
                        ASSERT_EQ(static_cast<int>(ours.blocks_by_warps), theirs.blockLimitWarps) << where;
                        ASSERT_EQ(static_cast<int>(ours.blocks_by_block_slots), theirs.blockLimitBlocks) << where;
                        ASSERT_EQ(or_unlimited(ours.blocks_by_registers), theirs.blockLimitRegs) << where;
                        ASSERT_EQ(or_unlimited(ours.blocks_by_shared_memory), theirs.blockLimitSharedMem) << where;
                        ASSERT_EQ(sorted(ours.limiters), limiters_of(theirs.limitingFactors)) << where;
                        ASSERT_EQ(ours.refusal.empty(), ours.active_blocks > 0) << where;
                        if (ours.active_blocks > 0) {
                            ASSERT_EQ(ours.shared_bytes_per_block, theirs.allocatedSharedMemPerBlock) << where;
                            ASSERT_EQ(static_cast<int>(ours.registers_per_block), theirs.allocatedRegistersPerBlock)
                                << where;
                        }
                        ++compared;
                    }
                }
            }
        }
    }
    EXPECT_GT(compared, 90000);
}

INSTANTIATE_TEST_SUITE_P(AmpereAndHopper, OccupancyCalculator, testing::Values(std::pair{8, 0}, std::pair{9, 0}),
                         [](const testing::TestParamInfo<std::pair<int, int>>& info) {
                             return "cc" + std::to_string(info.param.first) + std::to_string(info.param.second);
                         });

} // namespace
} // namespace duet::cli
