// duet explain's HTML report without a GPU: a made-up GPU's CUDA and OpenCL builds of one kernel
// (PTX that nvcc wrote with and without FMA contraction, tests/cli/data/ptx) side by side with the
// rows that differ marked and each difference's hypothesis and test; the build options side by
// side; a GPU kernel's resources, launches, occupancy and SASS; a CPU kernel's reasons for what is
// absent; every text escaped.
#include "model/explain.hpp"
#include "model/sass.hpp"
#include "render/chart.hpp"
#include "render/explain.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "explain_kernels.hpp"

namespace duet::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

/// The table row whose first cell reads `first` (escaped as the report writes it); "" where none does.
std::string row_of(const std::string& html, const std::string& first)
{
    for (std::size_t start = html.find("<tr>"); start != std::string::npos; start = html.find("<tr>", start + 1)) {
        const std::string row = html.substr(start, html.find("</tr>", start) - start);
        const auto cell_end = row.find("</td>");
        if (cell_end != std::string::npos) {
            const auto text_start = row.rfind('>', cell_end) + 1;
            if (row.substr(text_start, cell_end - text_start) == chart::escape(first)) {
                return row;
            }
        }
    }
    return "";
}

/// One kernel built by CUDA with FMA contraction and by OpenCL without, as twins.
std::vector<KernelTwin> fma_twins()
{
    return pair_kernels({kernel_named("axpb", mix_in("mix.ptx", "axpb"))},
                        {kernel_named("axpb", mix_in("mix_fmad_false.ptx", "axpb"))});
}

TEST(ExplainReport, APairsMixesSitSideBySideWithTheRowsThatDifferMarked)
{
    const auto twins = fma_twins();
    ASSERT_EQ(twins.size(), 1u);
    ASSERT_TRUE(twins[0].cuda_mix && twins[0].opencl_mix);
    const std::string html = pair_report_section(twins, {}, {}, {});
    EXPECT_THAT(html, HasSubstr("<h3>kernel axpb</h3>"));
    EXPECT_THAT(html, HasSubstr("<th>group</th><th>CUDA</th><th>OpenCL</th>"));
    const auto& cuda = *twins[0].cuda_mix;
    const auto& opencl = *twins[0].opencl_mix;
    std::size_t differing = 0;
    for (const auto& group : group_names(cuda.groups, opencl.groups)) {
        const std::string row = row_of(html, group);
        ASSERT_FALSE(row.empty()) << group;
        const auto a = cuda.count(group);
        const auto b = opencl.count(group);
        EXPECT_THAT(row, HasSubstr(">" + std::to_string(a) + "</td><td class=\"number"));
        EXPECT_THAT(row, HasSubstr(">" + std::to_string(b) + "</td>"));
        EXPECT_EQ(row.find("differs") != std::string::npos, a != b) << row;
        differing += a != b ? 1 : 0;
    }
    // Without contraction the FMA becomes a multiply and an add: three groups differ.
    EXPECT_GE(differing, 2u);
    EXPECT_THAT(row_of(html, "FMA f32"), HasSubstr("differs"));
    EXPECT_THAT(row_of(html, "total"), HasSubstr("differs"));
}

TEST(ExplainReport, APairsSassSitsSideBySideWhereBothRunsHaveIt)
{
    auto cuda = kernel_named("axpb", mix_in("mix.ptx", "axpb"));
    auto opencl = kernel_named("axpb", mix_in("mix_fmad_false.ptx", "axpb"));
    cuda.sass = SassMix{"axpb", {{"FMA f32 (FFMA)", 1}, {"global load (LDG) 32-bit", 2}}, 3};
    opencl.sass =
        SassMix{"axpb", {{"multiply f32 (FMUL)", 1}, {"add f32 (FADD)", 1}, {"global load (LDG) 32-bit", 2}}, 4};
    const auto twins = pair_kernels({cuda}, {opencl});
    ASSERT_EQ(twins.size(), 1u);
    ASSERT_TRUE(twins[0].cuda_sass && twins[0].opencl_sass);
    const std::string html = pair_report_section(twins, {}, {}, {});
    const auto sass_at = html.find("Static SASS instruction counts");
    ASSERT_NE(sass_at, std::string::npos);
    const std::string sass = html.substr(sass_at);
    EXPECT_THAT(row_of(sass, "FMA f32 (FFMA)"),
                AllOf(HasSubstr(">1</td>"), HasSubstr(">0</td>"), HasSubstr("differs")));
    EXPECT_THAT(row_of(sass, "global load (LDG) 32-bit"), Not(HasSubstr("differs")));
    EXPECT_THAT(row_of(sass, "total"), AllOf(HasSubstr(">3</td>"), HasSubstr(">4</td>")));
    // One side without SASS: no SASS table.
    opencl.sass.reset();
    EXPECT_THAT(pair_report_section(pair_kernels({cuda}, {opencl}), {}, {}, {}),
                Not(HasSubstr("Static SASS instruction counts")));
}

TEST(ExplainReport, EachDifferenceComesWithItsHypothesisAndTest)
{
    const auto twins = fma_twins();
    ASSERT_EQ(twins[0].differences.size(), 1u);
    const auto& difference = twins[0].differences[0];
    const std::string html = pair_report_section(twins, {}, {}, {});
    EXPECT_THAT(html, HasSubstr("<strong>FMA contraction: CUDA 1, OpenCL 0 FMA instructions"));
    EXPECT_THAT(html, HasSubstr("Why: " + chart::escape(difference.hypothesis)));
    EXPECT_THAT(html, HasSubstr("Test: " + chart::escape(difference.test)));
    // The difference follows its kernel's table.
    EXPECT_LT(html.find("</table>"), html.find("FMA contraction"));

    const auto same = pair_kernels({kernel_named("axpb", mix_in("mix.ptx", "axpb"))},
                                   {kernel_named("axpb", mix_in("mix.ptx", "axpb"))});
    const std::string equal = pair_report_section(same, {}, {}, {});
    EXPECT_THAT(equal, HasSubstr("No difference that hints at a cause."));
    EXPECT_THAT(equal, Not(HasSubstr("differs")));
}

TEST(ExplainReport, AKernelWithoutATwinOrAMixSaysWhyInsteadOfATable)
{
    const auto twins = pair_kernels(
        {kernel_named("axpb", mix_in("mix.ptx", "axpb")), kernel_named("quotient", mix_in("mix.ptx", "quotient"))},
        {kernel_named("axpb", std::nullopt)});
    const std::string html = pair_report_section(twins, {}, {}, {});
    EXPECT_THAT(html, HasSubstr("Not compared:</strong> OpenCL's mix: the driver keeps no PTX"));
    EXPECT_THAT(html, HasSubstr("Not compared:</strong> CUDA launched quotient, OpenCL no kernel of that name"));
    EXPECT_THAT(html, Not(HasSubstr("<table>")));
}

TEST(ExplainReport, BuildOptionsSitSideBySideAndAnUnknownOneSaysWhy)
{
    std::vector<ExplainedKernel> cuda(2), opencl(2);
    cuda[0].name = opencl[1].name = "first";
    cuda[1].name = opencl[0].name = "second";
    cuda[1].program = 1;
    const auto twins = pair_kernels(cuda, opencl);
    const auto programs = pair_programs(cuda, opencl, twins);
    std::vector<ExplainedProgram> cuda_programs(2), opencl_programs(1);
    cuda_programs[0].build_options = "-arch=sm_90 -O3";
    cuda_programs[1].build_options_absent = "the backend has no program_options";
    opencl_programs[0].build_options = " -cl-mad-enable -cl-kernel-arg-info";
    const std::string html = pair_report_section(twins, programs, cuda_programs, opencl_programs);
    EXPECT_THAT(html, HasSubstr("<th>program of</th><th>CUDA</th><th>OpenCL</th>"));
    EXPECT_THAT(row_of(html, "first"), HasSubstr("<td class=\"options\">-arch=sm_90 -O3</td><td class=\"options\">"
                                                 "-cl-mad-enable -cl-kernel-arg-info</td>"));
    EXPECT_THAT(row_of(html, "second"), HasSubstr("not known: the backend has no program_options"));
}

TEST(ExplainReport, AGpuKernelShowsResourcesLaunchesOccupancyAndBothMixes)
{
    ExplainedKernel kernel = kernel_named("scale", mix_in("mix.ptx", "axpb"));
    kernel.properties.registers = 40;
    kernel.properties.max_block_size = 1024;
    kernel.registers_from = "ptxas";
    kernel.ptxas = PtxasKernel{"scale", 40, 16, 8, 4, 0};
    for (const unsigned threads : {256u, 128u}) {
        LaunchGroup launch{Range::grid_block(1000, threads), 0, 2, threads == 128 ? 1u : 0u, {}};
        launch.occupancy = model_occupancy(gpu(9, 0), kernel.properties, threads, 0);
        ASSERT_TRUE(launch.occupancy.model.has_value());
        launch.occupancy.driver = launch.occupancy.model->active_blocks + (threads == 256 ? 0 : 1);
        kernel.launches.push_back(launch);
    }
    const auto mixes = sass_mixes("\t\tFunction : scale\n"
                                  "        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;\n"
                                  "        /*0010*/                   FFMA R5, R2, R2, 1 ;\n"
                                  "        /*0020*/                   STG.E desc[UR4][R2.64], R5 ;\n"
                                  "        /*0030*/                   EXIT ;\n");
    ASSERT_EQ(mixes.size(), 1u);
    kernel.sass = mixes[0];
    const std::string html = kernel_report_section(kernel, gpu(9, 0), "opencl", "run-2-kernel-1");
    EXPECT_THAT(html, HasSubstr("<h3 id=\"run-2-kernel-1\">kernel scale: 4 launches</h3>"));
    EXPECT_THAT(row_of(html, "registers"), HasSubstr("40 a work-item (from the toolkit's ptxas"));
    EXPECT_THAT(row_of(html, "largest block"), HasSubstr("1024, set by the device"));
    EXPECT_THAT(row_of(html, "ptxas -v"), HasSubstr("40 registers, 16 B stack, spills 8 B stored and 4 B loaded"));
    // The launch groups: grid, block, threads, dynamic local, launches.
    EXPECT_THAT(html,
                HasSubstr("<td class=\"number\">1000</td><td class=\"number\">256</td><td class=\"number\">256</td>"
                          "<td class=\"number\">0 B</td><td class=\"number\">2</td>"));
    EXPECT_THAT(html,
                HasSubstr("<td class=\"number\">1000</td><td class=\"number\">128</td><td class=\"number\">128</td>"
                          "<td class=\"number\">0 B</td><td class=\"number\">2 (1 recorded)</td>"));
    // The occupancy table, the second launch's driver figure marked.
    EXPECT_THAT(html, HasSubstr("<th>driver's blocks</th>"));
    EXPECT_THAT(html, HasSubstr("DISAGREES</td>"));
    EXPECT_THAT(html, HasSubstr("class=\"number differs\">" +
                                std::to_string(kernel.launches[1].occupancy.model->active_blocks + 1) + " DISAGREES"));
    EXPECT_THAT(html, HasSubstr("the driver's blocks differ from the model's"));
    EXPECT_THAT(html, HasSubstr("Compiled code:</strong> PTX, "));
    EXPECT_THAT(html, HasSubstr("SASS:</strong> 4 instructions (NOPs left out)"));
    EXPECT_THAT(row_of(html, "FMA f32 (FFMA)"), HasSubstr(">1</td>"));
    EXPECT_LT(html.find("Compiled code:"), html.find("SASS:"));
}

TEST(ExplainReport, ACpuKernelSaysWhyEachFigureIsAbsentAndEveryTextIsEscaped)
{
    ExplainedKernel kernel = kernel_named("sum<float>", std::nullopt);
    kernel.mix_absent = "the driver's binary is not PTX text (a CPU driver such as PoCL keeps an object file)";
    kernel.sass_absent = "no PTX (the compiled code's reason above)";
    DeviceProperties cpu;
    cpu.type = DeviceType::cpu;
    LaunchGroup launch{Range::grid_block(4, 64), 512, 1, 0, {}};
    launch.occupancy = model_occupancy(cpu, kernel.properties, 64, 512);
    kernel.launches.push_back(launch);
    const std::string html = kernel_report_section(kernel, cpu, "opencl", "run-1-kernel-1");
    EXPECT_THAT(html, HasSubstr("kernel sum&lt;float&gt;: 1 launch</h3>"));
    EXPECT_THAT(html, Not(HasSubstr("sum<float>")));
    EXPECT_THAT(row_of(html, "registers"), HasSubstr("not known (the driver does not say)"));
    EXPECT_THAT(html, HasSubstr("Occupancy:</strong> not applicable: work-groups run on CPU threads"));
    EXPECT_THAT(html, HasSubstr("Compiled code: none:</strong> " + chart::escape(kernel.mix_absent)));
    EXPECT_THAT(html, HasSubstr("SASS: none:</strong> " + chart::escape(kernel.sass_absent)));
    EXPECT_THAT(html, HasSubstr("<td class=\"number\">512 B</td>"));
}

} // namespace
} // namespace duet::cli
