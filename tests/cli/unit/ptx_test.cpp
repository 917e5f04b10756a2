// The instruction mix read from PTX, and the differences compare_mixes flags, on PTX nvcc wrote
// (tests/cli/data/ptx: the repository's kernels and mix_kernels.cu, with the command for each file).
// NVIDIA's OpenCL writes PTX of the same ISA, but only on a machine with its driver; so the
// "OpenCL" side of each comparison here is nvcc's PTX of the equivalent code or options.
#include "model/ptx.hpp"
#include <checks.hpp>

#include <duet/detail/file.hpp>
#include <duet/error.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <utility>

namespace duet::cli {
namespace {

using test::error_text;

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ptx_file(const std::string& name)
{
    std::string content;
    EXPECT_EQ(detail::read_regular_file(std::string(DUET_TEST_PTX_DIR) + "/" + name, 1 << 20, content), "") << name;
    return content;
}

InstructionMix mix_in(const std::string& file, const std::string& entry)
{
    return mix_of(ptx_file(file), entry);
}

std::vector<std::pair<std::string, std::uint64_t>> groups_of(const InstructionMix& mix)
{
    std::vector<std::pair<std::string, std::uint64_t>> groups;
    for (const MixGroup& group : mix.groups) {
        groups.emplace_back(group.name, group.count);
    }
    return groups;
}

std::vector<std::string> aspects_of(const std::vector<MixDifference>& differences)
{
    std::vector<std::string> aspects;
    for (const MixDifference& difference : differences) {
        aspects.push_back(difference.aspect);
    }
    return aspects;
}

TEST(PtxEntries, EveryEntryInTheModulesOrderAndNoFunction)
{
    EXPECT_THAT(ptx_entries(ptx_file("mix.ptx")),
                ElementsAre("axpb", "quotient", "wave", "copy_plain", "copy_restrict", "copy_float4", "scale_float",
                            "scale_double", "pick_local", "pick_register", "reverse_once", "reverse_twice"));
    // newton_matrix_a.ptx also defines the .func __internal_trig_reduction_slowpathd, which is no kernel.
    EXPECT_THAT(ptx_entries(ptx_file("newton_matrix_a.ptx")), ElementsAre("newton_matrix_a"));
    EXPECT_THAT(ptx_entries(ptx_file("vector_add.ptx")), ElementsAre("vector_add"));
}

// Counted by hand in vector_add.ptx: ld.param ×4; mov.u32 ×3 and cvta.to.global ×3; mad.lo, setp.ge.u32,
// mul.wide and add.s64 ×3; @%p1 bra; ld.global.f32 ×2, add.f32, st.global.f32, ret.
TEST(PtxMix, VectorAddCountedByHand)
{
    const InstructionMix mix = mix_in("vector_add.ptx", "vector_add");
    EXPECT_EQ(mix.entry, "vector_add");
    EXPECT_EQ(mix.total, 22u);
    EXPECT_THAT(groups_of(mix),
                ElementsAre(std::pair{"global load 32-bit", 2u}, std::pair{"global store 32-bit", 1u},
                            std::pair{"parameter load", 4u}, std::pair{"add/sub f32", 1u},
                            std::pair{"integer arithmetic and logic", 6u}, std::pair{"conditional branch (@p bra)", 1u},
                            std::pair{"return/exit", 1u}, std::pair{"move/select (mov, selp, cvta)", 6u}));
    EXPECT_TRUE(mix.functions.empty());
    EXPECT_TRUE(mix.unresolved.empty());
    EXPECT_EQ(mix.count("FMA f32"), 0u);
}

TEST(PtxMix, ContractionAndItsAbsence)
{
    const InstructionMix fused = mix_in("mix.ptx", "axpb");
    EXPECT_EQ(fused.count("FMA f32"), 1u); // fma.rn.f32
    EXPECT_EQ(fused.count("multiply f32") + fused.count("add/sub f32"), 0u);
    const InstructionMix separate = mix_in("mix_fmad_false.ptx", "axpb"); // --fmad=false
    EXPECT_EQ(separate.count("FMA f32"), 0u);
    EXPECT_EQ(separate.count("multiply f32"), 1u); // mul.rn.f32
    EXPECT_EQ(separate.count("add/sub f32"), 1u);  // add.rn.f32
    EXPECT_EQ(separate.total, fused.total + 1);
    // The tile loop of matmul_tiled16, unrolled: 16 FMAs, 32 shared loads, two barriers.
    const InstructionMix tiled = mix_in("matmul_tiled16.ptx", "matmul_tiled16");
    EXPECT_EQ(tiled.count("FMA f32"), 16u);
    EXPECT_EQ(tiled.count("shared load"), 32u);
    EXPECT_EQ(tiled.count("shared store"), 2u);
    EXPECT_EQ(tiled.count("block barrier (bar.sync, barrier.sync)"), 2u);
}

TEST(PtxMix, DivisionAndSquareRootByPrecision)
{
    const InstructionMix exact = mix_in("mix.ptx", "quotient");
    EXPECT_EQ(exact.count("divide f32 (div.rn)"), 1u);
    EXPECT_EQ(exact.count("square root f32 (sqrt.rn)"), 1u);
    const InstructionMix full = mix_in("mix_prec_false.ptx", "quotient"); // -prec-div=false -prec-sqrt=false
    EXPECT_EQ(full.count("divide f32 (div.full)"), 1u);
    EXPECT_EQ(full.count("square root f32 (sqrt.approx)"), 1u);
    EXPECT_EQ(full.count("divide f32 (div.rn)"), 0u);
    const InstructionMix fast = mix_in("mix_fast_math.ptx", "quotient"); // -use_fast_math
    EXPECT_EQ(fast.count("divide f32 (div.approx)"), 1u);
    EXPECT_EQ(fast.count("square root f32 (sqrt.approx)"), 1u);
}

TEST(PtxMix, GlobalAccessesByWidthAndReadOnlyPath)
{
    EXPECT_EQ(mix_in("mix.ptx", "copy_plain").count("global load 32-bit"), 1u);
    const InstructionMix read_only = mix_in("mix.ptx", "copy_restrict"); // const __restrict__: ld.global.nc.f32
    EXPECT_EQ(read_only.count("global load 32-bit .nc"), 1u);
    EXPECT_EQ(read_only.count("global load 32-bit"), 0u);
    const InstructionMix vector = mix_in("mix.ptx", "copy_float4"); // ld.global.v4.u32, st.global.v4.u32
    EXPECT_EQ(vector.count("global load 128-bit"), 1u);
    EXPECT_EQ(vector.count("global store 128-bit"), 1u);
    // The kernel's own loads, x[i] and x[j]: ld.global.nc.f64, 64 bits. sin and cos read CUDA's
    // math library's tables, .global arrays of the module, in six ld.global.nc.v2.f64 of
    // __cudart_sin_cos_coeffs and one ld.global.nc.u64 of __cudart_i2opi_d: table loads, not inputs.
    const InstructionMix newton = mix_in("newton_matrix_a.ptx", "newton_matrix_a");
    EXPECT_EQ(newton.count("global load 64-bit .nc"), 2u);
    EXPECT_EQ(newton.count("global load 128-bit .nc"), 0u);
    EXPECT_EQ(newton.count("table load (a .global array of the program, such as a math library's constants)"), 7u);
    EXPECT_EQ(newton.count("global store 64-bit"), 1u);
}

TEST(PtxMix, DoublesLocalMemoryAndBarriers)
{
    const InstructionMix doubles = mix_in("mix.ptx", "scale_double"); // x * 1.1: cvt.f64.f32, mul.f64, cvt.rn.f32.f64
    EXPECT_EQ(doubles.count("convert f32<->f64"), 2u);
    EXPECT_EQ(doubles.count("multiply f64"), 1u);
    EXPECT_EQ(doubles.count("multiply f32"), 0u);
    EXPECT_EQ(mix_in("mix.ptx", "scale_float").count("multiply f32"), 1u);
    const InstructionMix stack = mix_in("mix.ptx", "pick_local"); // float t[16] indexed at run time
    EXPECT_EQ(stack.count("local store"), 4u);                    // st.local.v4.f32
    EXPECT_EQ(stack.count("local load"), 1u);
    EXPECT_EQ(mix_in("mix.ptx", "reverse_twice").count("block barrier (bar.sync, barrier.sync)"), 3u);
}

// newton_matrix_a calls __internal_trig_reduction_slowpathd at two places: the function's body
// (155 instructions, its ret among them) counts once with the entry's 153, and the calls twice.
TEST(PtxMix, ACalledFunctionCountsOnce)
{
    const InstructionMix mix = mix_in("newton_matrix_a.ptx", "newton_matrix_a");
    EXPECT_THAT(mix.functions, ElementsAre("__internal_trig_reduction_slowpathd"));
    EXPECT_EQ(mix.count("call"), 2u);
    EXPECT_EQ(mix.total, 153u + 155u);
    EXPECT_EQ(mix.count("local store"), 2u); // the function's stack array
    EXPECT_EQ(mix.count("return/exit"), 2u);
}

TEST(PtxMix, GroupsInAFixedOrder)
{
    const InstructionMix mix = mix_in("newton_matrix_a.ptx", "newton_matrix_a");
    std::vector<std::string> names;
    for (const MixGroup& group : mix.groups) {
        names.push_back(group.name);
    }
    EXPECT_THAT(names,
                ElementsAre("global load 64-bit .nc", "global store 64-bit", "local load", "local store",
                            "parameter load", "parameter store",
                            "table load (a .global array of the program, such as a math library's constants)",
                            "FMA f64", "multiply f64", "other float f64 (compare, min, max, abs, neg)",
                            "integer arithmetic and logic", "convert float<->int",
                            "convert other (integer widths, f16, rounding)", "branch (bra)",
                            "conditional branch (@p bra)", "call", "return/exit", "move/select (mov, selp, cvta)"));
    std::uint64_t sum = 0;
    for (const MixGroup& group : mix.groups) {
        sum += group.count;
    }
    EXPECT_EQ(sum, mix.total);
}

// Forms nvcc wrote none of above, in a module written here to the PTX ISA's syntax: comments of both
// kinds, .loc lines without ';', sub-spaces (shared::cta), atomics, shuffles, a negated guard, a
// call to a function the module only declares.
TEST(PtxMix, FormsBeyondTheRepositorysKernels)
{
    const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};

.visible .entry forms(.param .u64 forms_param_0) .maxntid 256, 1, 1
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<4>;
    .loc 1 10 5
    ld.param.u64 %rd1, [forms_param_0]; /* a comment
    that spans lines */ ld.shared::cta.u32 %r1, [%r2];
    atom.global.add.u32 %r3, [%rd1], 1; // and one to the line's end
    red.shared.add.u32 [%r2], %r3;
    atom.add.f32 %f1, [%rd1], %f2;
    shfl.sync.bfly.b32 %r4, %r3, 1, 31, -1;
    vote.sync.ballot.b32 %r5, %p1, -1;
    ld.u32 %r6, [%rd1];
    st.u8 [%rd1], %r6;
    ld.const.f32 %f3, [%rd1];
    rcp.approx.ftz.f64 %fd1, %fd2;
    rsqrt.approx.f32 %f4, %f3;
    lg2.approx.f32 %f5, %f4;
    mul.rz.f32 %f6, %f5, %f4;
    cvt.rni.s32.f32 %r7, %f6;
    bar.warp.sync -1;
    membar.gl;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    }
$L__done:
    @!%p1 bra $L__done;
    bra.uni $L__done;
    exit;
}
)";
    EXPECT_THAT(ptx_entries(ptx), ElementsAre("forms"));
    const InstructionMix mix = mix_of(ptx, "forms");
    EXPECT_THAT(groups_of(mix),
                ElementsAre(std::pair{"generic load", 1u}, std::pair{"generic store", 1u}, std::pair{"shared load", 1u},
                            std::pair{"constant load", 1u}, std::pair{"parameter load", 1u},
                            std::pair{"parameter store", 1u}, std::pair{"global atomic (atom)", 1u},
                            std::pair{"atomic (atom)", 1u}, std::pair{"shared reduction (red)", 1u},
                            std::pair{"multiply f32", 1u}, std::pair{"reciprocal square root f32 (rsqrt.approx)", 1u},
                            std::pair{"special function f32 (sin, cos, ex2, lg2, tanh)", 1u},
                            std::pair{"reciprocal f64 (rcp.approx)", 1u}, std::pair{"convert float<->int", 1u},
                            std::pair{"warp barrier (bar.warp.sync)", 1u},
                            std::pair{"memory fence (membar, fence)", 1u}, std::pair{"branch (bra)", 1u},
                            std::pair{"conditional branch (@p bra)", 1u}, std::pair{"call", 1u},
                            std::pair{"return/exit", 1u}, std::pair{"warp shuffle/vote (shfl, vote)", 2u}));
    EXPECT_THAT(mix.unresolved, ElementsAre("vprintf"));
    EXPECT_TRUE(mix.functions.empty());
}

// NVIDIA's OpenCL puts blocks of its own among the functions, closed by their braces with no ';'
// after them; a variable's braced initializer keeps its ';'.
TEST(PtxMix, ADirectiveThatEndsWithItsBracedBlockIsSkipped)
{
    const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.metadata_section nv.kernel.args
{
    .b32 3, 4
    "vector_add" "a; b"
}
.global .align 4 .b8 table[2] = {1, 2};

.visible .entry k(.param .u64 k_param_0)
{
    ld.param.u64 %rd1, [k_param_0];
    ret;
}
.metadata_section nv.kernel.info { .b8 1 }
)";
    EXPECT_THAT(ptx_entries(ptx), ElementsAre("k"));
    EXPECT_THAT(groups_of(mix_of(ptx, "k")),
                ElementsAre(std::pair{"parameter load", 1u}, std::pair{"return/exit", 1u}));
}

TEST(PtxMix, EveryEntrysMixFromOneReadingIsEachOnesOwn)
{
    const std::string mix = ptx_file("mix.ptx");
    const auto entries = ptx_entries(mix);
    const auto mixes = entry_mixes(mix);
    ASSERT_EQ(mixes.size(), entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const InstructionMix alone = mix_of(mix, entries[i]);
        EXPECT_EQ(mixes[i].entry, entries[i]);
        EXPECT_EQ(mixes[i].total, alone.total) << entries[i];
        EXPECT_EQ(groups_of(mixes[i]), groups_of(alone)) << entries[i];
        EXPECT_EQ(mixes[i].functions, alone.functions) << entries[i];
    }
}

TEST(PtxErrors, AnAbsentEntryNamesTheEntriesThatExist)
{
    const std::string mix = ptx_file("mix.ptx");
    const std::string message = error_text<NotFound>([&] { mix_of(mix, "saxpy"); });
    EXPECT_THAT(message, AllOf(HasSubstr("no .entry 'saxpy' in the PTX"),
                               HasSubstr("its entries: axpb, quotient, wave, copy_plain"), HasSubstr("reverse_twice")));
    // A .func is not a kernel.
    EXPECT_THAT(
        error_text<NotFound>([] { mix_in("newton_matrix_a.ptx", "__internal_trig_reduction_slowpathd"); }),
        AllOf(HasSubstr("no .entry '__internal_trig_reduction_slowpathd'"), HasSubstr("its entries: newton_matrix_a")));
    EXPECT_THAT(error_text<NotFound>([] { mix_of(".version 8.0\n.target sm_90\n", "k"); }),
                HasSubstr("it defines no .entry"));
}

TEST(PtxErrors, TextThatIsNotPtxNamesItsLine)
{
    // CUDA source, not what nvcc made of it: its first word, on line 3 below two comment lines.
    EXPECT_THAT(error_text<InvalidArgument>([] { ptx_entries(ptx_file("mix_kernels.cu")); }),
                HasSubstr("line 3: 'extern' where a PTX module begins with .version"));
    EXPECT_THAT(error_text<InvalidArgument>([] { ptx_entries(""); }), HasSubstr("the text holds no PTX"));

    std::string truncated = ptx_file("vector_add.ptx");
    truncated.erase(truncated.rfind('}'));
    EXPECT_THAT(error_text<InvalidArgument>([&] { mix_of(truncated, "vector_add"); }),
                HasSubstr("line 21: the body of vector_add opened here never closes"));

    std::string garbled = ptx_file("vector_add.ptx");
    garbled.replace(garbled.find("add.f32"), 7, "= 3 + ");
    EXPECT_THAT(error_text<InvalidArgument>([&] { mix_of(garbled, "vector_add"); }),
                HasSubstr("line 46: '=' is not a PTX instruction"));

    EXPECT_THAT(error_text<InvalidArgument>([] { ptx_entries(".version 8.0\nint main() { return 0; }\n"); }),
                HasSubstr("line 2: 'int' is not a PTX directive"));
    EXPECT_THAT(error_text<InvalidArgument>([] { ptx_entries(".version 8.0\n.entry k()\n{\n ret\n}\n"); }),
                HasSubstr("line 4: the instruction 'ret' has no closing ';'"));
}

TEST(PtxCompare, FmaContractionOnOneSide)
{
    const auto differences = compare_mixes(mix_in("mix.ptx", "axpb"), mix_in("mix_fmad_false.ptx", "axpb"));
    ASSERT_THAT(aspects_of(differences), ElementsAre("FMA contraction"));
    EXPECT_EQ(differences[0].cuda, 1u);
    EXPECT_EQ(differences[0].opencl, 0u);
    EXPECT_THAT(
        differences[0].hypothesis,
        AllOf(HasSubstr("CUDA fuses multiplies and adds (1 FMA instructions) where OpenCL has 0 FMAs and 2 separate"),
              HasSubstr("contraction is on for CUDA only")));
    EXPECT_THAT(differences[0].test, AllOf(HasSubstr("-cl-mad-enable"), HasSubstr("-cl-fast-relaxed-math"),
                                           HasSubstr("fma()"), HasSubstr("--fmad=false")));
    // The other way round names the other side.
    const auto swapped = compare_mixes(mix_in("mix_fmad_false.ptx", "axpb"), mix_in("mix.ptx", "axpb"));
    ASSERT_EQ(swapped.size(), 1u);
    EXPECT_THAT(swapped[0].hypothesis, HasSubstr("contraction is on for OpenCL only"));
}

TEST(PtxCompare, DivisionAndSquareRootPrecision)
{
    const auto differences = compare_mixes(mix_in("mix.ptx", "quotient"), mix_in("mix_prec_false.ptx", "quotient"));
    ASSERT_THAT(aspects_of(differences), ElementsAre("division and square root precision"));
    EXPECT_EQ(differences[0].cuda, 0u);
    EXPECT_EQ(differences[0].opencl, 2u); // div.full.f32, sqrt.approx.f32
    EXPECT_THAT(differences[0].hypothesis, HasSubstr("OpenCL divides or takes square roots approximately"));
    EXPECT_THAT(differences[0].test,
                AllOf(HasSubstr("-cl-fp32-correctly-rounded-divide-sqrt"), HasSubstr("native_divide"),
                      HasSubstr("-prec-div=false"), HasSubstr("-prec-sqrt=false"), HasSubstr("-use_fast_math")));
}

TEST(PtxCompare, ReadOnlyLoadsOnOneSide)
{
    const auto differences = compare_mixes(mix_in("mix.ptx", "copy_restrict"), mix_in("mix.ptx", "copy_plain"));
    ASSERT_THAT(aspects_of(differences), ElementsAre("read-only loads"));
    EXPECT_EQ(differences[0].cuda, 1u);
    EXPECT_EQ(differences[0].opencl, 0u);
    EXPECT_THAT(differences[0].test, AllOf(HasSubstr("const __restrict__"), HasSubstr("const restrict")));
}

TEST(PtxCompare, WiderGlobalAccessesOnOneSide)
{
    const auto differences = compare_mixes(mix_in("mix.ptx", "copy_plain"), mix_in("mix.ptx", "copy_float4"));
    ASSERT_THAT(aspects_of(differences), ElementsAre("global load width", "global store width"));
    EXPECT_EQ(differences[0].cuda, 32u);
    EXPECT_EQ(differences[0].opencl, 128u);
    EXPECT_THAT(differences[0].hypothesis, HasSubstr("OpenCL moves up to 128 bits per global load, CUDA at most 32"));
    EXPECT_THAT(differences[0].test, AllOf(HasSubstr("float4"), HasSubstr("vload4")));
}

TEST(PtxCompare, DoublesOnOneSide)
{
    const auto differences = compare_mixes(mix_in("mix.ptx", "scale_float"), mix_in("mix.ptx", "scale_double"));
    ASSERT_THAT(aspects_of(differences), ElementsAre("double precision"));
    EXPECT_EQ(differences[0].cuda, 0u);
    EXPECT_EQ(differences[0].opencl, 3u); // mul.f64 and two conversions
    EXPECT_THAT(differences[0].hypothesis, HasSubstr("2 of them f32<->f64 conversions"));
    EXPECT_THAT(differences[0].test, HasSubstr("-cl-single-precision-constant"));
}

TEST(PtxCompare, LocalMemoryOnOneSide)
{
    const auto differences = compare_mixes(mix_in("mix.ptx", "pick_register"), mix_in("mix.ptx", "pick_local"));
    ASSERT_THAT(aspects_of(differences), ElementsAre("local memory"));
    EXPECT_EQ(differences[0].opencl, 5u);
    EXPECT_THAT(differences[0].test, AllOf(HasSubstr("__launch_bounds__"), HasSubstr("--maxrregcount=N"),
                                           HasSubstr("reqd_work_group_size"), HasSubstr("-cl-nv-maxrregcount=N")));
}

TEST(PtxCompare, DifferentBarrierCounts)
{
    const auto differences = compare_mixes(mix_in("mix.ptx", "reverse_once"), mix_in("mix.ptx", "reverse_twice"));
    ASSERT_THAT(aspects_of(differences), ElementsAre("barriers"));
    EXPECT_EQ(differences[0].cuda, 1u);
    EXPECT_EQ(differences[0].opencl, 3u);
}

// sinf under -use_fast_math is sin.approx.f32; without it, a polynomial whose slow path reduces
// the argument in double through a stack array, reading 2/pi's bits from the math library's table
// (a .global array of the module, not an input: no read-only-loads difference): all four
// differences are real.
TEST(PtxCompare, ApproximateSpecialFunctionsOnOneSide)
{
    const auto differences = compare_mixes(mix_in("mix_fast_math.ptx", "wave"), mix_in("mix.ptx", "wave"));
    ASSERT_THAT(aspects_of(differences),
                ElementsAre("library tables", "double precision", "local memory", "approximate special functions"));
    EXPECT_EQ(differences[0].cuda, 0u);
    EXPECT_EQ(differences[0].opencl, 1u);
    EXPECT_THAT(differences[0].hypothesis, HasSubstr("math libraries implement functions such as sin"));
    EXPECT_EQ(differences[3].cuda, 1u);
    EXPECT_EQ(differences[3].opencl, 0u);
    EXPECT_THAT(differences[3].test,
                AllOf(HasSubstr("-use_fast_math"), HasSubstr("-cl-fast-relaxed-math"), HasSubstr("native_sin()")));
}

TEST(PtxCompare, EqualMixesAndDifferencesThatDoNotMatterFlagNothing)
{
    for (const char* file : {"vector_add.ptx", "stencil1d_naive.ptx", "matmul_tiled16.ptx", "newton_matrix_a.ptx",
                             "mix.ptx", "mix_fmad_false.ptx", "mix_prec_false.ptx", "mix_fast_math.ptx"}) {
        const std::string ptx = ptx_file(file);
        for (const std::string& entry : ptx_entries(ptx)) {
            const InstructionMix mix = mix_of(ptx, entry);
            EXPECT_THAT(compare_mixes(mix, mix), ElementsAre()) << file << " " << entry;
        }
    }
    // More integer arithmetic on one side (pick_register's index is i * 16 + 3) is no hint of a cause.
    EXPECT_THAT(compare_mixes(mix_in("mix.ptx", "copy_plain"), mix_in("mix.ptx", "pick_register")), ElementsAre());
}

} // namespace
} // namespace duet::cli
