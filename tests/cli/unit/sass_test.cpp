// The SASS side of duet explain without a GPU: `ptxas -v`'s figures read from what ptxas says, SASS
// listings counted by opcode group, the toolkit's ptxas run on PTX that nvcc wrote
// (tests/cli/data/ptx) in a private folder that is removed, a tool that hangs killed at its
// limit, and a CUDA and an OpenCL program's build options paired and printed side by side.
#include "model/explain.hpp"
#include "model/sass.hpp"
#include "render/explain.hpp"

#include <duet/detail/file.hpp>
#include <duet/error.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "environment.hpp"

namespace duet::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace fs = std::filesystem;

std::string ptx_file(const std::string& name)
{
    std::string content;
    EXPECT_EQ(detail::read_regular_file(std::string(DUET_TEST_PTX_DIR) + "/" + name, 1 << 20, content), "") << name;
    return content;
}

std::string path_variable()
{
    const char* path = std::getenv("PATH");
    return path != nullptr ? path : "";
}

/// An executable shell script `name` in `folder`.
void script(const fs::path& folder, const std::string& name, const std::string& body)
{
    const auto path = folder / name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
}

// The shape of `ptxas -v`'s log, as ptxas 13.0 wrote it for tests/cli/data/ptx/newton_matrix_a.ptx
// and mix.ptx (a kernel with a stack frame, and one with shared memory).
constexpr const char* ptxas_log = "ptxas info    : 272 bytes gmem\n"
                                  "ptxas info    : Compiling entry function 'newton_matrix_a' for 'sm_90'\n"
                                  "ptxas info    : Function properties for newton_matrix_a\n"
                                  "    40 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
                                  "ptxas info    : Used 30 registers, used 0 barriers, 40 bytes cumulative stack size\n"
                                  "ptxas info    : Compile time = 25.178 ms\n"
                                  "ptxas info    : Compiling entry function 'reverse_twice' for 'sm_90'\n"
                                  "ptxas info    : Function properties for reverse_twice\n"
                                  "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                                  "ptxas info    : Used 12 registers, used 1 barriers, 1024 bytes smem\n";

TEST(SassPtxas, EachEntrysRegistersStackSpillsAndSharedMemory)
{
    const auto kernels = ptxas_kernels(ptxas_log);
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels[0].name, "newton_matrix_a");
    EXPECT_EQ(kernels[0].registers, 30u);
    EXPECT_EQ(kernels[0].stack_bytes, 40u);
    EXPECT_EQ(kernels[0].spill_store_bytes, 8u);
    EXPECT_EQ(kernels[0].spill_load_bytes, 4u);
    EXPECT_EQ(kernels[0].shared_bytes, 0u);
    EXPECT_EQ(kernels[1].name, "reverse_twice");
    EXPECT_EQ(kernels[1].registers, 12u);
    EXPECT_EQ(kernels[1].shared_bytes, 1024u);
    EXPECT_THAT(ptxas_kernels("ptxas fatal   : Unresolved extern function 'f'\n"), IsEmpty());
}

TEST(SassListing, InstructionsGroupByOpcodeWithTheirWidthsAndNopsLeftOut)
{
    EXPECT_EQ(sass_group("LDG.E.128.CONSTANT R4, desc[UR4][R2.64]")->name, "global load (LDG) 128-bit .CONSTANT");
    EXPECT_EQ(sass_group("@!P0 LDG.E R2, desc[UR4][R2.64]")->name, "global load (LDG) 32-bit");
    EXPECT_EQ(sass_group("STG.E.U8 desc[UR4][R2.64], R5")->name, "global store (STG) 8-bit");
    EXPECT_EQ(sass_group("STS.64 [R0], R4")->name, "shared store (STS) 64-bit");
    EXPECT_EQ(sass_group("UIADD3 UR4, UR4, 0x1, URZ")->name, sass_group("IADD3 R0, R0, 0x1, RZ")->name);
    EXPECT_EQ(sass_group("@P0 EXIT")->name, "exit (EXIT)");
    EXPECT_EQ(sass_group("MUFU.RCP R5, R3")->name, "special function (MUFU: rcp, rsq, sqrt, ex2, lg2, sin, cos)");
    EXPECT_EQ(sass_group("FOO R1")->name, "other (FOO, ...)");
    EXPECT_FALSE(sass_group("NOP").has_value());
    // Memory first, then floating point, then integer: the order is the groups', not the code's.
    EXPECT_LT(sass_group("STL [R1], R0")->rank, sass_group("FFMA R0, R1, R2, R3")->rank);
    EXPECT_LT(sass_group("FFMA R0, R1, R2, R3")->rank, sass_group("IMAD R0, R1, R2, R3")->rank);
}

TEST(SassListing, CuobjdumpsAndNvdisasmsListingsCountPerFunction)
{
    // cuobjdump -sass's layout (each instruction's second encoding word on a line of its own),
    // as cuda-gdb's disassembler documents it.
    const std::string cuobjdump =
        "\n\tcode for sm_90\n"
        "\t\tFunction : scale\n"
        "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90\"\n"
        "        /*0000*/                   LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */\n"
        "                                                            /* 0x000fe40000000800 */\n"
        "        /*0010*/                   S2R R0, SR_TID.X ;       /* 0x0000000000007919 */\n"
        "        /*0020*/                   ISETP.GE.AND P0, PT, R0, UR4, PT ; /* 0x0 */\n"
        "        /*0030*/              @P0 EXIT ;                    /* 0x000000000000094d */\n"
        "        /*0040*/                   LDG.E R2, desc[UR4][R2.64] ;\n"
        "        /*0050*/                   FFMA R5, R2, R2, 1 ;\n"
        "        /*0060*/                   FFMA R5, R5, R2, 1 ;\n"
        "        /*0070*/                   STG.E desc[UR4][R2.64], R5 ;\n"
        "        /*0080*/                   EXIT ;\n"
        "        /*0090*/                   BRA 0x90;\n"
        "        /*00a0*/                   NOP;\n"
        "\t\t..........\n"
        "\t\tFunction : empty\n"
        "        /*0000*/                   EXIT ;\n";
    const auto mixes = sass_mixes(cuobjdump);
    ASSERT_EQ(mixes.size(), 2u);
    EXPECT_EQ(mixes[0].function, "scale");
    EXPECT_EQ(mixes[0].total, 10u);
    EXPECT_EQ(mixes[0].count("FMA f32 (FFMA)"), 2u);
    EXPECT_EQ(mixes[0].count("exit (EXIT)"), 2u);
    EXPECT_EQ(mixes[0].count("global load (LDG) 32-bit"), 1u);
    std::vector<std::string> names;
    for (const auto& group : mixes[0].groups) {
        names.push_back(group.name);
    }
    EXPECT_THAT(names, ElementsAre("global load (LDG) 32-bit", "global store (STG) 32-bit", "constant load (LDC, ULDC)",
                                   "FMA f32 (FFMA)", "integer arithmetic and logic (IMAD, IADD3, LOP3, ISETP, ...)",
                                   "branch (BRA, BRX)", "exit (EXIT)", "move/select (MOV, SEL, S2R, CS2R)"));
    EXPECT_EQ(mixes[1].function, "empty");
    EXPECT_EQ(mixes[1].total, 1u);

    // nvdisasm names a function by its section's label, and lists data sections' bytes too.
    const auto nvdisasm = sass_mixes("\t.section\t.text.scale,\"ax\",@progbits\n"
                                     ".text.scale:\n"
                                     "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
                                     ".L_x_0:\n"
                                     "        /*0010*/                   EXIT ;\n"
                                     "        /*0020*/ \t.byte\t0xff, 0xff\n");
    ASSERT_EQ(nvdisasm.size(), 1u);
    EXPECT_EQ(nvdisasm[0].function, "scale");
    EXPECT_EQ(nvdisasm[0].total, 2u);
}

TEST(SassTools, FoundOnThePathWithPtxasVersionAndWhatIsMissingNamed)
{
    const test::TempDir bin;
    EXPECT_EQ(find_sass_tools(bin.path().string()).absent, "ptxas/cuobjdump not on PATH");
    script(bin.path(), "ptxas", "echo 'Cuda compilation tools, release 13.0, V13.0.88'");
    const auto without_disassembler = find_sass_tools("/nonexistent:" + bin.path().string());
    EXPECT_EQ(without_disassembler.ptxas, bin.path() / "ptxas");
    EXPECT_EQ(without_disassembler.ptxas_version, "V13.0.88");
    EXPECT_EQ(without_disassembler.absent, "cuobjdump not on PATH");
    script(bin.path(), "nvdisasm", "exit 0");
    const auto with_nvdisasm = find_sass_tools(bin.path().string());
    EXPECT_EQ(with_nvdisasm.disassembler, bin.path() / "nvdisasm");
    EXPECT_EQ(with_nvdisasm.absent, "");
}

TEST(SassTools, AToolPastItsLimitIsKilledAndItsFailureIsAReason)
{
    const test::TempDir bin;
    const test::TempDir temporary;
    const test::ScopedEnv tmpdir("TMPDIR", temporary.path().string());
    script(bin.path(), "ptxas", "echo 'Cuda compilation tools, release 13.0, V13.0.88'");
    const auto tools = find_sass_tools(bin.path().string());
    script(bin.path(), "ptxas", "sleep 20");
    try {
        compile_sass(tools, ptx_file("vector_add.ptx"), 9, 0, std::chrono::seconds(1));
        ADD_FAILURE() << "a ptxas that sleeps past the limit returned";
    } catch (const Error& error) {
        EXPECT_THAT(error.message(), HasSubstr("ptxas ran past its limit of 1 s: killed"));
    }
    script(bin.path(), "ptxas", "echo 'ptxas fatal   : Unknown option' >&2; exit 3");
    try {
        compile_sass(tools, ptx_file("vector_add.ptx"), 9, 0);
        ADD_FAILURE() << "a failing ptxas returned";
    } catch (const Error& error) {
        EXPECT_THAT(error.message(),
                    HasSubstr("ptxas -arch=sm_90 failed: exit status 3: ptxas fatal   : Unknown option"));
    }
    EXPECT_THAT(test::files_below(temporary.path()), IsEmpty());
    EXPECT_TRUE(fs::is_empty(temporary.path())) << "the private folders are removed";
}

TEST(SassTools, TheToolkitsPtxasCompilesNvccsPtxInAFolderItRemoves)
{
    const auto tools = find_sass_tools(path_variable() + ":/usr/local/cuda/bin");
    if (tools.ptxas.empty()) {
        GTEST_SKIP() << "no ptxas on PATH or in /usr/local/cuda/bin";
    }
    const test::TempDir temporary;
    const test::ScopedEnv tmpdir("TMPDIR", temporary.path().string());
    const auto sass = compile_sass(tools, ptx_file("mix.ptx"), 9, 0);
    EXPECT_EQ(sass.architecture, "sm_90");
    EXPECT_THAT(sass.ptxas_version, ::testing::StartsWith("V"));
    // Every entry nvcc wrote is compiled; the two that reverse through shared memory declare 1 KiB.
    EXPECT_EQ(sass.kernels.size(), ptx_entries(ptx_file("mix.ptx")).size());
    for (const auto& kernel : sass.kernels) {
        EXPECT_GT(kernel.registers, 0u) << kernel.name;
    }
    ASSERT_NE(sass.kernel("reverse_twice"), nullptr);
    EXPECT_EQ(sass.kernel("reverse_twice")->shared_bytes, 1024u);
    EXPECT_EQ(sass.kernel("axpb")->shared_bytes, 0u);
    if (tools.disassembler.empty()) {
        EXPECT_EQ(sass.listing_absent, "cuobjdump not on PATH");
    } else {
        ASSERT_NE(sass.mix("reverse_twice"), nullptr) << sass.listing_absent;
        EXPECT_EQ(sass.mix("reverse_twice")->count("block barrier (BAR)"), 3u);
    }
    EXPECT_TRUE(fs::is_empty(temporary.path())) << "the private folder is removed";
}

TEST(ExplainBuildOptions, APairsProgramsAreMatchedThroughTheirKernelsAndPrintedSideBySide)
{
    std::vector<ExplainedKernel> cuda(2), opencl(2);
    cuda[0].name = "first";
    cuda[1].name = "second";
    cuda[1].program = 1;
    opencl[0].name = "second";
    opencl[1].name = "first";
    const auto twins = pair_kernels(cuda, opencl);
    const auto programs = pair_programs(cuda, opencl, twins);
    ASSERT_EQ(programs.size(), 2u);
    EXPECT_EQ(programs[0].cuda, 0u);
    EXPECT_EQ(programs[0].opencl, 0u);
    EXPECT_THAT(programs[0].kernels, ElementsAre("first"));
    EXPECT_EQ(programs[1].cuda, 1u);
    EXPECT_EQ(programs[1].opencl, 0u);

    std::vector<ExplainedProgram> cuda_programs(2), opencl_programs(1);
    cuda_programs[0].build_options = "nvcc -arch=sm_90 -O3";
    cuda_programs[1].build_options_absent = "the backend has no program_options";
    opencl_programs[0].build_options = " -cl-mad-enable -cl-kernel-arg-info";
    std::ostringstream out;
    print_program_twins(out, programs, cuda_programs, opencl_programs);
    EXPECT_EQ(out.str(), "\n  build options of the program of first:\n"
                         "    CUDA   nvcc -arch=sm_90 -O3\n"
                         "    OpenCL -cl-mad-enable -cl-kernel-arg-info\n"
                         "\n  build options of the program of second:\n"
                         "    CUDA   not known: the backend has no program_options\n"
                         "    OpenCL -cl-mad-enable -cl-kernel-arg-info\n");
}

} // namespace
} // namespace duet::cli
