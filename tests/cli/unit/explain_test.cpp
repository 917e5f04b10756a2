// duet explain's GPU paths without a GPU: the occupancy a launch gets from a device's and a kernel's
// figures (and why none where there is none), CUDA and OpenCL kernels paired and their mixes
// compared on PTX that nvcc wrote (tests/cli/data/ptx), and the blocks the tables print for them.
#include "model/explain.hpp"
#include "render/explain.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "explain_kernels.hpp"

namespace duet::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

void expect_lines_within(const std::string& text, std::size_t width)
{
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        EXPECT_LE(line.size(), width) << line;
    }
}

// A tuner's trials, then the run: matmul's candidate programs 0 and 1 (1 split, with a second
// kernel), then its choice, program 2 (no split), launched last; a reduction's program 3 beside it.
TEST(ExplainBuilds, ATrialProgramGoesWholeAndTheLastBuildOfANameStands)
{
    const std::vector<LaunchedBuild> launched{{"matmul_blocked", 0, 0},
                                              {"matmul_blocked", 1, 1},
                                              {"matmul_sum_splits", 1, 2},
                                              {"matmul_blocked", 2, 5},
                                              {"reduce_tree", 3, 4}};
    const auto kept = kept_builds(launched);
    ASSERT_EQ(kept.size(), launched.size());
    EXPECT_FALSE(kept[0].kept);
    EXPECT_FALSE(kept[1].kept);
    EXPECT_FALSE(kept[2].kept) << "the trial's second kernel goes with it, though no other build has its name";
    EXPECT_TRUE(kept[3].kept);
    EXPECT_EQ(kept[3].other_builds, 2u);
    EXPECT_TRUE(kept[4].kept);
    EXPECT_EQ(kept[4].other_builds, 0u);
}

// The run's choice splits: both its kernels stand, the trials' builds counted on them.
TEST(ExplainBuilds, TheChosenProgramKeepsEveryKernel)
{
    const auto kept = kept_builds(
        {{"matmul_blocked", 0, 0}, {"matmul_sum_splits", 0, 1}, {"matmul_blocked", 1, 2}, {"matmul_sum_splits", 1, 3}});
    EXPECT_FALSE(kept[0].kept);
    EXPECT_FALSE(kept[1].kept);
    EXPECT_TRUE(kept[2].kept);
    EXPECT_TRUE(kept[3].kept);
    EXPECT_EQ(kept[3].other_builds, 1u);
}

TEST(ExplainOccupancy, AGpuOfAKnownCapabilityGetsTheCalculatorsFigure)
{
    KernelProperties kernel;
    kernel.registers = 32;
    kernel.static_local_memory = 4096;
    const auto result = model_occupancy(gpu(9, 0), kernel, 256, 8192);
    ASSERT_TRUE(result.model.has_value()) << result.model_absent;
    const auto expected = occupancy(*architecture(9, 0), {.threads_per_block = 256,
                                                          .registers_per_thread = 32,
                                                          .static_shared_bytes = 4096,
                                                          .dynamic_shared_bytes = 8192});
    EXPECT_EQ(result.model->active_blocks, expected.active_blocks);
    EXPECT_EQ(result.model->active_warps, expected.active_warps);
    EXPECT_EQ(result.model->limiters, expected.limiters);
    // 32 registers a thread: 8 blocks of 256 fill the register file and the warp slots at once.
    EXPECT_EQ(result.model->active_blocks, 8u);
    EXPECT_FALSE(result.registers_unknown);
    EXPECT_FALSE(result.driver.has_value()); // the model alone; launch_occupancy asks the driver
    EXPECT_FALSE(result.disagree());
}

TEST(ExplainOccupancy, EachAbsenceSaysWhy)
{
    KernelProperties kernel;
    kernel.registers = 16;
    DeviceProperties cpu;
    cpu.type = DeviceType::cpu;
    EXPECT_EQ(model_occupancy(cpu, kernel, 64, 0).model_absent, "not applicable: work-groups run on CPU threads");
    EXPECT_THAT(model_occupancy(gpu(0, 0), kernel, 64, 0).model_absent,
                HasSubstr("the device reports no compute capability"));
    const auto old = model_occupancy(gpu(6, 1), kernel, 64, 0);
    EXPECT_FALSE(old.model.has_value());
    EXPECT_THAT(old.model_absent, HasSubstr("compute capability 6.1 is not in duet's architecture table"));
    // A block larger than any SM takes: computed, and refused with the limit.
    const auto huge = model_occupancy(gpu(9, 0), kernel, 2048, 0);
    ASSERT_TRUE(huge.model.has_value());
    EXPECT_EQ(huge.model->active_blocks, 0u);
    EXPECT_FALSE(huge.model->refusal.empty());
}

TEST(ExplainOccupancy, UnknownRegistersLeaveAnUpperBoundMarkedSo)
{
    const auto result = model_occupancy(gpu(8, 0), KernelProperties{}, 128, 0);
    ASSERT_TRUE(result.model.has_value());
    EXPECT_TRUE(result.registers_unknown);
    EXPECT_FALSE(result.model->blocks_by_registers.has_value());
}

TEST(ExplainPairs, KernelsPairByNameAndTheirMixesAreCompared)
{
    const std::vector<ExplainedKernel> cuda{kernel_named("axpb", mix_in("mix.ptx", "axpb")),
                                            kernel_named("quotient", mix_in("mix.ptx", "quotient"))};
    const std::vector<ExplainedKernel> opencl{kernel_named("quotient", mix_in("mix_prec_false.ptx", "quotient")),
                                              kernel_named("axpb", mix_in("mix_fmad_false.ptx", "axpb"))};
    const auto twins = pair_kernels(cuda, opencl);
    ASSERT_EQ(twins.size(), 2u);
    EXPECT_EQ(twins[0].cuda_kernel, "axpb");
    EXPECT_EQ(twins[0].opencl_kernel, "axpb");
    ASSERT_EQ(twins[0].differences.size(), 1u);
    EXPECT_EQ(twins[0].differences[0].aspect, "FMA contraction");
    EXPECT_EQ(twins[1].opencl_kernel, "quotient");
    ASSERT_EQ(twins[1].differences.size(), 1u);
    EXPECT_EQ(twins[1].differences[0].aspect, "division and square root precision");
}

TEST(ExplainPairs, NamesThatDifferPairInLaunchOrderAndAKernelWithoutATwinSaysSo)
{
    // A manifest's entries may be named apart: one kernel each pairs by order.
    const auto by_order = pair_kernels({kernel_named("saxpy_cuda", mix_in("mix.ptx", "axpb"))},
                                       {kernel_named("saxpy_cl", mix_in("mix.ptx", "axpb"))});
    ASSERT_EQ(by_order.size(), 1u);
    EXPECT_EQ(by_order[0].cuda_kernel, "saxpy_cuda");
    EXPECT_EQ(by_order[0].opencl_kernel, "saxpy_cl");
    EXPECT_TRUE(by_order[0].absent.empty());
    EXPECT_TRUE(by_order[0].differences.empty()); // the same code

    const auto unmatched = pair_kernels(
        {kernel_named("axpb", mix_in("mix.ptx", "axpb")), kernel_named("quotient", mix_in("mix.ptx", "quotient"))},
        {kernel_named("axpb", std::nullopt)});
    ASSERT_EQ(unmatched.size(), 2u);
    EXPECT_EQ(unmatched[0].absent, "OpenCL's mix: the driver keeps no PTX");
    EXPECT_EQ(unmatched[1].absent, "CUDA launched quotient, OpenCL no kernel of that name");
}

// matmul's tuner picks tiles per device: the builds the H100 gave at 1024³ (NVRTC's, NVIDIA OpenCL's).
TEST(ExplainPairs, BuildsWithOtherDefinitionsAreSaidToBeTwoVersionsOfTheKernel)
{
    const std::string cuda = "--gpu-architecture=sm_90 --std=c++17 -DMATMUL_BM=64 -DMATMUL_BK=16 -DMATMUL_TM=8 "
                             "-DMATMUL_SPLIT_K=2";
    const std::string opencl = "-cl-nv-maxrregcount=128 -DMATMUL_BM=128 -D MATMUL_BK=8 -DMATMUL_TM=8 "
                               "-DMATMUL_SPLIT_K=2 -cl-nv-verbose -cl-kernel-arg-info";
    const auto difference = definitions_difference(cuda, opencl);
    ASSERT_TRUE(difference.has_value());
    EXPECT_EQ(difference->aspect, "build definitions");
    EXPECT_EQ(difference->cuda, 2u);
    EXPECT_EQ(difference->opencl, 2u);
    EXPECT_THAT(difference->hypothesis, HasSubstr("CUDA -DMATMUL_BM=64 -DMATMUL_BK=16; OpenCL -DMATMUL_BM=128 "
                                                  "-DMATMUL_BK=8"));
    EXPECT_THAT(difference->hypothesis, HasSubstr("two versions of the kernel"));
    EXPECT_THAT(difference->test, HasSubstr("--options"));

    // One side's extra definition alone is a difference; the same definitions in another order, other
    // options (an architecture, -cl-nv-verbose) or an unknown side are none.
    const auto extra = definitions_difference("-DA=1", "-DA=1 -DB=2");
    ASSERT_TRUE(extra.has_value());
    EXPECT_EQ(extra->cuda, 0u);
    EXPECT_EQ(extra->opencl, 1u);
    EXPECT_THAT(extra->hypothesis, HasSubstr("CUDA none of its own; OpenCL -DB=2"));
    EXPECT_FALSE(definitions_difference("--gpu-architecture=sm_90 -DA=1 -DB=2", "-DB=2 -cl-nv-verbose -D A=1"));
    // As the preprocessor reads them: -DA is A=1, and the last of two values stands.
    EXPECT_FALSE(definitions_difference("-DA -DB=1 -DB=2", "-DA=1 -DB=2"));
    const auto redefined = definitions_difference("-DB=2 -DB=3", "-DB=2");
    ASSERT_TRUE(redefined.has_value());
    EXPECT_THAT(redefined->hypothesis, HasSubstr("CUDA -DB=3; OpenCL -DB=2"));
    EXPECT_FALSE(definitions_difference("nvcc -fatbin -O3", "-cl-kernel-arg-info"));
    EXPECT_FALSE(definitions_difference(std::nullopt, "-DA=1"));
}

// Two programs a run: matmul's product (tiles chosen per device) and a reduction built alike.
TEST(ExplainPairs, TheDefinitionsDifferenceLeadsOnlyTheKernelsOfTheProgramsThatHadIt)
{
    auto kernel_of = [](const std::string& name, std::size_t program) {
        auto kernel = kernel_named(name, mix_in("mix.ptx", "axpb"));
        kernel.program = program;
        return kernel;
    };
    const std::vector<ExplainedKernel> cuda{kernel_of("product", 0), kernel_of("sum_splits", 0), kernel_of("fold", 1)};
    const std::vector<ExplainedKernel> opencl{kernel_of("fold", 0), kernel_of("product", 1),
                                              kernel_of("sum_splits", 1)};
    auto twins = pair_kernels(cuda, opencl);
    const auto programs = pair_programs(cuda, opencl, twins);
    ASSERT_EQ(programs.size(), 2u);
    put_definitions_first(twins, programs, {"-DBM=64 -DSPLIT=2", "-DITEMS=16"},
                          {"-DITEMS=16", "-DBM=128 -DSPLIT=2 -cl-nv-verbose"});
    ASSERT_EQ(twins.size(), 3u);
    for (const std::size_t split : {0u, 1u}) { // product, sum_splits: the same mix, so that alone
        ASSERT_EQ(twins[split].differences.size(), 1u) << twins[split].cuda_kernel;
        EXPECT_EQ(twins[split].differences[0].aspect, "build definitions");
        EXPECT_THAT(twins[split].differences[0].hypothesis, HasSubstr("CUDA -DBM=64; OpenCL -DBM=128"));
    }
    EXPECT_EQ(twins[2].cuda_kernel, "fold");
    EXPECT_TRUE(twins[2].differences.empty()) << "fold's two builds had the same definitions";
}

TEST(ExplainRender, TwinsSideBySideMarkTheGroupsThatDifferAndSayWhy)
{
    const auto twins = pair_kernels({kernel_named("axpb", mix_in("mix.ptx", "axpb"))},
                                    {kernel_named("axpb", mix_in("mix_fmad_false.ptx", "axpb"))});
    std::ostringstream out;
    print_kernel_twins(out, twins);
    const std::string text = out.str();
    EXPECT_THAT(text, HasSubstr("kernel axpb\n"));
    EXPECT_THAT(text, HasSubstr("FMA contraction: CUDA 1, OpenCL 0 FMA instructions"));
    EXPECT_THAT(text, HasSubstr("why: CUDA fuses multiplies and adds"));
    EXPECT_THAT(text, HasSubstr("test: "));
    EXPECT_THAT(text, HasSubstr("*"));
    // A group only OpenCL has keeps its place in the mixes' order, not at the end.
    EXPECT_LT(text.find("multiply f32"), text.find("integer arithmetic"));
    expect_lines_within(text, 100);
}

TEST(ExplainRender, AGpuKernelShowsTheModelBesideTheDriverAndFlagsADisagreement)
{
    KernelProperties properties;
    properties.registers = 40;
    properties.max_block_size = 1024;
    ExplainedKernel kernel = kernel_named("axpb", mix_in("mix.ptx", "axpb"));
    kernel.properties = properties;
    for (const unsigned threads : {256u, 128u}) {
        LaunchGroup launch{Range::grid_block(1000, threads), 0, 3, 0, {}};
        launch.occupancy = model_occupancy(gpu(9, 0), properties, threads, 0);
        ASSERT_TRUE(launch.occupancy.model.has_value());
        // The first as the driver gives it, the second one block off.
        launch.occupancy.driver = launch.occupancy.model->active_blocks + (threads == 256 ? 0 : 1);
        kernel.launches.push_back(launch);
    }
    EXPECT_FALSE(kernel.launches[0].occupancy.disagree());
    EXPECT_TRUE(kernel.launches[1].occupancy.disagree());
    std::ostringstream out;
    print_explained_kernel(out, kernel, gpu(9, 0), "cuda");
    const std::string text = out.str();
    EXPECT_THAT(text, HasSubstr("kernel axpb: 6 launches"));
    EXPECT_THAT(text, HasSubstr("registers 40 a work-item"));
    EXPECT_THAT(text, HasSubstr("occupancy per SM"));
    EXPECT_THAT(text, HasSubstr("DISAGREES"));
    EXPECT_THAT(text, HasSubstr("the driver's blocks differ from the model's"));
    EXPECT_THAT(text, HasSubstr("compiled code: PTX, "));
    EXPECT_THAT(text, Not(HasSubstr("not applicable")));
    expect_lines_within(text, 100);
}

} // namespace
} // namespace duet::cli
