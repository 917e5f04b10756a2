// Occupancy worked by hand for compute capabilities 8.0 (A100) and 9.0 (H100), each limit reached
// and each refusal; the table's 9.0 figures against the CUDA C++ Programming Guide; the peak FP32
// rate of an H100 SXM against NVIDIA's datasheet.
#include "model/occupancy.hpp"

#include <duet/error.hpp>

#include <gtest/gtest.h>

namespace duet::cli {
namespace {

Architecture ampere()
{
    return *architecture(8, 0);
}

Architecture hopper()
{
    return *architecture(9, 0);
}

using Limiters = std::vector<Limiter>;

/// The blocks and warps an SM holds, their share of its warps, and what stops them there.
void expect_active(const Occupancy& result, unsigned blocks, unsigned warps, double fraction, const Limiters& limiters)
{
    EXPECT_EQ(result.active_blocks, blocks);
    EXPECT_EQ(result.active_warps, warps);
    EXPECT_DOUBLE_EQ(result.fraction, fraction);
    EXPECT_EQ(result.limiters, limiters);
    EXPECT_TRUE(result.refusal.empty()) << result.refusal;
}

TEST(Architecture, HopperFiguresAsTheGuideTabulates)
{
    // "Technical Specifications per Compute Capability", column 9.0, and the arithmetic
    // throughput table's 32- and 64-bit floating-point multiply-add rows.
    const Architecture arch = hopper();
    EXPECT_EQ(arch.warp_size, 32u);
    EXPECT_EQ(arch.max_threads_per_block, 1024u);
    EXPECT_EQ(arch.max_warps_per_sm, 64u);
    EXPECT_EQ(arch.max_blocks_per_sm, 32u);
    EXPECT_EQ(arch.registers_per_sm, 64u * 1024);
    EXPECT_EQ(arch.max_registers_per_block, 64u * 1024);
    EXPECT_EQ(arch.max_registers_per_thread, 255u);
    EXPECT_EQ(arch.shared_per_sm, 228u * 1024);
    EXPECT_EQ(arch.max_shared_per_block_optin, 227u * 1024);
    EXPECT_EQ(arch.shared_reserved_per_block, 1024u);
    EXPECT_EQ(arch.shared_carveouts.back(), arch.shared_per_sm);
    EXPECT_EQ(arch.fp32_lanes_per_sm, 128u);
    EXPECT_EQ(arch.fp64_lanes_per_sm, 64u);
}

TEST(Architecture, EveryHeldGenerationKeepsItsLimitsConsistent)
{
    for (const auto& [major, minor] :
         {std::pair{7, 0}, {7, 2}, {7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {12, 0}}) {
        const std::optional<Architecture> arch = architecture(major, minor);
        ASSERT_TRUE(arch) << major << "." << minor;
        EXPECT_EQ(arch->major, major);
        EXPECT_EQ(arch->minor, minor);
        EXPECT_EQ(arch->max_shared_per_block_optin + arch->shared_reserved_per_block, arch->shared_per_sm);
        EXPECT_EQ(arch->shared_carveouts.back(), arch->shared_per_sm) << major << "." << minor;
        EXPECT_GE(arch->max_warps_per_sm * arch->warp_size, arch->max_threads_per_block);
        EXPECT_GT(arch->fp32_lanes_per_sm, 0u);
        EXPECT_GT(arch->fp64_lanes_per_sm, 0u);
    }
}

TEST(Architecture, UnknownCapabilityIsNotGuessed)
{
    EXPECT_FALSE(architecture(6, 1));
    EXPECT_FALSE(architecture(8, 8));
    EXPECT_FALSE(architecture(11, 0));
    EXPECT_FALSE(architecture(0, 0));
}

TEST(Architecture, PeakOfAnH100SxmIsTheDatasheets)
{
    // NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: FP32 67 TFLOP/s. 132 SMs at the 1980 MHz
    // boost clock: 132 x 128 lanes x 2 flops x 1.98 GHz = 66 908 GFLOP/s.
    EXPECT_NEAR(peak_gflops(hopper(), 132, 1980, false), 67000, 670);
    EXPECT_DOUBLE_EQ(peak_gflops(hopper(), 132, 1980, false), 66908.16);
    // Hopper's FP64 lanes are half its FP32 ones (datasheet: 34 TFLOP/s).
    EXPECT_DOUBLE_EQ(peak_gflops(hopper(), 132, 1980, true), 66908.16 / 2);
    // An A100 SXM: 108 SMs at 1410 MHz, 19.5 TFLOP/s FP32 and 9.7 FP64 on its datasheet.
    EXPECT_NEAR(peak_gflops(ampere(), 108, 1410, false), 19500, 195);
    EXPECT_NEAR(peak_gflops(ampere(), 108, 1410, true), 9700, 97);
}

TEST(Occupancy, LimitedByWarps)
{
    // 9.0, 1024 threads at 16 registers: 32 warps a block, 64 / 32 = 2 blocks by warps.
    // Registers: 16 x 32 = 512 a warp; 16384 a partition / 512 = 32 warps, x 4 = 128 warps, 4 blocks.
    // Shared: only the 1 KiB reservation, 233472 / 1024 = 228 blocks. Least: 2, by warps.
    const Occupancy result = occupancy(hopper(), {.threads_per_block = 1024, .registers_per_thread = 16});
    expect_active(result, 2u, 64u, 1.0, {Limiter::warps});
    EXPECT_EQ(result.blocks_by_registers, 4u);
    EXPECT_EQ(result.blocks_by_shared_memory, 228u);
    EXPECT_EQ(result.shared_bytes_per_block, 1024u);
    EXPECT_EQ(result.registers_per_block, 16384u);
}

TEST(Occupancy, LimitedByBlockSlots)
{
    // 9.0, 32 threads at 16 registers: 1 warp a block; 64 by warps, 128 by registers, 228 by
    // shared memory, 32 block slots. 32 blocks hold 32 warps: half the SM's 64.
    const Occupancy result = occupancy(hopper(), {.threads_per_block = 32, .registers_per_thread = 16});
    expect_active(result, 32u, 32u, 0.5, {Limiter::blocks});
}

TEST(Occupancy, LimitedByRegistersRoundedToTheAllocationUnit)
{
    // 8.0, 256 threads (8 warps) at 37 registers: 37 x 32 = 1184 a warp, rounded up to 1280 (units
    // of 256). 16384 a partition / 1280 = 12 warps, x 4 = 48 warps: 6 blocks of 8. By warps 64 / 8
    // = 8; block slots 32; shared 167936 / 1024 = 164. Least: 6, by registers, 48 warps of 64.
    const Occupancy result = occupancy(ampere(), {.threads_per_block = 256, .registers_per_thread = 37});
    expect_active(result, 6u, 48u, 0.75, {Limiter::registers});
    EXPECT_EQ(result.registers_per_block, 8u * 1280);
    EXPECT_EQ(result.blocks_by_warps, 8u);
}

TEST(Occupancy, LimitedBySharedMemory)
{
    // 8.0, 128 threads (4 warps) at 32 registers and 40000 bytes of dynamic shared memory:
    // 40000 + 1024 reserved = 41024, rounded up to 128: 41088. 167936 / 41088 = 4 blocks.
    // By warps 16, registers (1024 a warp, 16 a partition, 64 warps) 16, block slots 32.
    const Occupancy result =
        occupancy(ampere(), {.threads_per_block = 128, .registers_per_thread = 32, .dynamic_shared_bytes = 40000});
    expect_active(result, 4u, 16u, 0.25, {Limiter::shared_memory});
    EXPECT_EQ(result.shared_bytes_per_block, 41088u);
    EXPECT_EQ(result.shared_bytes_per_sm, 167936u);
}

TEST(Occupancy, TiedLimitsAreAllNamed)
{
    // 9.0, 1024 threads at 32 registers: 2 blocks by warps, and 1024 registers a warp give 16
    // warps a partition, 64 an SM: 2 blocks by registers too.
    const Occupancy result = occupancy(hopper(), {.threads_per_block = 1024, .registers_per_thread = 32});
    EXPECT_EQ(result.active_blocks, 2u);
    EXPECT_EQ(result.limiters, (Limiters{Limiter::warps, Limiter::registers}));
}

TEST(Occupancy, TheDriversReservationCostsABlock)
{
    // 9.0, 128 threads at 32 registers, 46592 bytes of shared memory (static and dynamic): without
    // the reservation 233472 / 46592 = 5 blocks; with it 47616 a block, 233472 / 47616 = 4.
    const Occupancy result = occupancy(hopper(), {.threads_per_block = 128,
                                                  .registers_per_thread = 32,
                                                  .static_shared_bytes = 4096,
                                                  .dynamic_shared_bytes = 42496});
    EXPECT_EQ(result.shared_bytes_per_block, 47616u);
    EXPECT_EQ(result.active_blocks, 4u);
    EXPECT_EQ(result.limiters, Limiters{Limiter::shared_memory});
}

TEST(Occupancy, ACarveOutBelowTheLargestHoldsFewerBlocks)
{
    // 9.0, 128 threads, 20000 bytes dynamic: 21024 rounded up to 21120 a block. At 25% the SM's
    // shared memory is 58368 bytes, carved at the next size, 64 KiB: 65536 / 21120 = 3 blocks;
    // at the largest, 233472 / 21120 = 11.
    KernelUse use{.threads_per_block = 128, .registers_per_thread = 32, .dynamic_shared_bytes = 20000};
    EXPECT_EQ(occupancy(hopper(), use).active_blocks, 11u);
    use.shared_carveout_percent = 25;
    const Occupancy quarter = occupancy(hopper(), use);
    EXPECT_EQ(quarter.shared_bytes_per_sm, 65536u);
    EXPECT_EQ(quarter.active_blocks, 3u);
    // A carve-out smaller than one block gives way to the smallest that holds one: 32 KiB, 1 block.
    use.shared_carveout_percent = 0;
    const Occupancy none = occupancy(hopper(), use);
    EXPECT_EQ(none.shared_bytes_per_sm, 32768u);
    EXPECT_EQ(none.active_blocks, 1u);
}

TEST(Occupancy, TooManyThreadsCannotFit)
{
    const Occupancy result = occupancy(hopper(), {.threads_per_block = 1025, .registers_per_thread = 16});
    EXPECT_EQ(result.active_blocks, 0u);
    EXPECT_EQ(result.active_warps, 0u);
    EXPECT_EQ(result.limiters, Limiters{Limiter::warps});
    EXPECT_NE(result.refusal.find("1025 threads is over the 1024"), std::string::npos) << result.refusal;
}

TEST(Occupancy, TooManyRegistersCannotFit)
{
    // 8.0, 1024 threads at 65 registers: 2080 a warp, rounded up to 2304; 32 warps need 73728 of
    // a block's 65536.
    const Occupancy result = occupancy(ampere(), {.threads_per_block = 1024, .registers_per_thread = 65});
    EXPECT_EQ(result.active_blocks, 0u);
    EXPECT_EQ(result.limiters, Limiters{Limiter::registers});
    EXPECT_NE(result.refusal.find("73728 registers, over the 65536"), std::string::npos) << result.refusal;
    // 256 registers a thread are over the 255 any thread may have.
    const Occupancy over = occupancy(ampere(), {.threads_per_block = 32, .registers_per_thread = 256});
    EXPECT_EQ(over.active_blocks, 0u);
    EXPECT_NE(over.refusal.find("over the 255"), std::string::npos) << over.refusal;
}

TEST(Occupancy, RegistersAreCheckedAsIfEveryPartitionHeldTheBlocksWarps)
{
    // 9.0, 416 threads (13 warps) at 136 registers: 4352 a warp, 56576 for 13 warps, within a
    // block's 65536; but the check rounds 13 warps up to 16, 4 in each partition: 69632.
    const Occupancy result = occupancy(hopper(), {.threads_per_block = 416, .registers_per_thread = 136});
    EXPECT_EQ(result.active_blocks, 0u);
    EXPECT_EQ(result.registers_per_block, 56576u);
    EXPECT_NE(result.refusal.find("69632 registers"), std::string::npos) << result.refusal;
    // 12 warps fill the partitions evenly: 52224 fits, once (3 warps a partition of 16384 / 4352).
    const Occupancy fits = occupancy(hopper(), {.threads_per_block = 384, .registers_per_thread = 136});
    EXPECT_EQ(fits.active_blocks, 1u);
    EXPECT_EQ(fits.limiters, Limiters{Limiter::registers});
}

TEST(Occupancy, TooMuchSharedMemoryCannotFit)
{
    // 9.0: a block may opt in to 232448 bytes, which with the reservation fill the SM: 1 block.
    const Occupancy whole = occupancy(hopper(), {.threads_per_block = 128, .dynamic_shared_bytes = 232448});
    EXPECT_EQ(whole.active_blocks, 1u);
    EXPECT_EQ(whole.limiters, Limiters{Limiter::shared_memory});
    // One byte more cannot fit.
    const Occupancy over = occupancy(hopper(), {.threads_per_block = 128, .dynamic_shared_bytes = 232449});
    EXPECT_EQ(over.active_blocks, 0u);
    EXPECT_EQ(over.limiters, Limiters{Limiter::shared_memory});
    EXPECT_NE(over.refusal.find("232449 bytes of shared memory (0 static, 232449 dynamic) are over the 232448"),
              std::string::npos)
        << over.refusal;
    // 8.0 has less: 166913 bytes are over its 166912.
    EXPECT_EQ(occupancy(ampere(), {.threads_per_block = 128, .dynamic_shared_bytes = 166913}).active_blocks, 0u);
    EXPECT_EQ(occupancy(ampere(), {.threads_per_block = 128, .dynamic_shared_bytes = 166912}).active_blocks, 1u);
}

TEST(Occupancy, EveryBrokenLimitIsNamed)
{
    const Occupancy result =
        occupancy(ampere(), {.threads_per_block = 2048, .registers_per_thread = 255, .dynamic_shared_bytes = 1u << 20});
    EXPECT_EQ(result.active_blocks, 0u);
    EXPECT_EQ(result.limiters, (Limiters{Limiter::warps, Limiter::registers, Limiter::shared_memory}));
    EXPECT_NE(result.refusal.find("2048 threads"), std::string::npos) << result.refusal;
    EXPECT_NE(result.refusal.find("registers"), std::string::npos) << result.refusal;
    EXPECT_NE(result.refusal.find("shared memory"), std::string::npos) << result.refusal;
}

TEST(Occupancy, NoRegistersLimitNothing)
{
    const Occupancy result = occupancy(hopper(), {.threads_per_block = 64});
    EXPECT_FALSE(result.blocks_by_registers);
    EXPECT_EQ(result.active_blocks, 32u);
}

TEST(Occupancy, BadInputIsRefusedWithTheLimit)
{
    EXPECT_THROW(occupancy(hopper(), {.threads_per_block = 0}), InvalidArgument);
    try {
        occupancy(hopper(), {.threads_per_block = 32, .shared_carveout_percent = 101});
        FAIL() << "a carve-out of 101% was accepted";
    } catch (const InvalidArgument& error) {
        EXPECT_NE(std::string(error.what()).find("101%"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("at most 100"), std::string::npos) << error.what();
    }
}

} // namespace
} // namespace duet::cli
