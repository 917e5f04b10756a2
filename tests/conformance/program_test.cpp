// Programs: built from source with defines, flags and include directories; a failed build throws
// BuildError with the compiler's log; binaries round-trip as ProgramFormat::native; and every
// OpenCL C program the build embeds is built on every OpenCL device, so none can rot.
#include <algorithm>
#include <fstream>

#include "duet_test.hpp"
#include "embedded_opencl_kernels.hpp"

namespace duet::test {
namespace {

class ProgramConformance : public DeviceTest {
protected:
    // Runs the one-int kernel of `program` and returns what it wrote.
    std::int32_t run_int(const Program& program, const std::string& name)
    {
        return test::run_int(queue(), program, name);
    }
};

TEST_P(ProgramConformance, DefinesReachTheCompiler)
{
    const TwoLanguageSource program("defined_value", nonce(), "DUET_TEST_VALUE * 2 + DUET_TEST_OTHER");
    BuildOptions options;
    options.defines = {{"DUET_TEST_VALUE", "21"}, {"DUET_TEST_OTHER", "1"}};
    EXPECT_EQ(run_int(device().build(program.source, options), "defined_value"), 43);

    // Other values: a different program, not the cached one.
    options.defines = {{"DUET_TEST_VALUE", "-4"}, {"DUET_TEST_OTHER", "3"}};
    EXPECT_EQ(run_int(device().build(program.source, options), "defined_value"), -5);
}

TEST_P(ProgramConformance, FlagsReachTheCompiler)
{
    const TwoLanguageSource program("flagged_value", nonce(), "DUET_FLAG_VALUE");
    BuildOptions options;
    options.flags = "-DDUET_FLAG_VALUE=77";
    EXPECT_EQ(run_int(device().build(program.source, options), "flagged_value"), 77);
}

TEST_P(ProgramConformance, IncludeDirectoriesAndHeaderChangesReachTheCompiler)
{
    TempDir dir;
    const auto write_header = [&](int value) {
        std::ofstream(dir.path() / "duet_test_include.h") << "#define DUET_INCLUDED_VALUE " << value << "\n";
    };
    const TwoLanguageSource program("included_value", nonce() + "#include \"duet_test_include.h\"\n",
                                    "DUET_INCLUDED_VALUE");
    BuildOptions options;
    options.include_dirs = {dir.path()};
    write_header(11);
    EXPECT_EQ(run_int(device().build(program.source, options), "included_value"), 11);
    // Included headers join the cache key: an edited header gives a new program.
    write_header(12);
    EXPECT_EQ(run_int(device().build(program.source, options), "included_value"), 12);
}

TEST_P(ProgramConformance, BuildFailureCarriesTheCompilerLog)
{
    const TwoLanguageSource program("broken", nonce(), "undeclared_duet_symbol + 1");
    auto error = expect_error<BuildError>([&] { (void)device().build(program.source); });
    if (error) {
        EXPECT_NE(error->log().find("undeclared_duet_symbol"), std::string::npos)
            << "the log does not name the offending identifier:\n"
            << error->log();
        EXPECT_EQ(error->backend(), device().backend());
    }
    // The failure is not cached as a success, and the device still builds good programs.
    EXPECT_THROW((void)device().build(program.source), BuildError);
    EXPECT_EQ(run_int(device().build(TwoLanguageSource("fine", nonce(), "5").source), "fine"), 5);
}

TEST_P(ProgramConformance, KernelNamesListEveryEntryPoint)
{
    const Program& program = cached_program(device(), kernels::test_kernels());
    std::vector<std::string> names = program.kernel_names();
    std::sort(names.begin(), names.end());
    std::vector<std::string> expected = test_kernel_names();
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(names, expected);
    EXPECT_TRUE(program.device() == device());
    for (const auto& name : expected) {
        EXPECT_TRUE(program.has_kernel(name)) << name;
    }
    EXPECT_FALSE(program.has_kernel("no_such_kernel"));
    EXPECT_FALSE(program.has_kernel(""));
}

TEST_P(ProgramConformance, BinaryRoundTripsAsNative)
{
    const Program& original = cached_program(device(), kernels::test_kernels());
    const std::string binary = original.binary();
    ASSERT_FALSE(binary.empty());
    const ProgramSource reloaded{"test_kernels_native", {{ProgramFormat::native, binary}}};
    const Program program = device().build(reloaded);

    std::vector<std::string> names = program.kernel_names();
    EXPECT_NE(std::find(names.begin(), names.end(), "scale"), names.end());
    const std::vector<float> values = random_floats(1001, test_seed());
    Buffer<float> in = make_buffer(device(), queue(), values);
    Buffer<float> out = device().alloc<float>(values.size());
    queue().fill(BufferView<float>(out), poison());
    queue().launch(program.kernel("scale"), Range::cover(values.size(), 64), in, out, 0.5f,
                   static_cast<std::uint32_t>(values.size()));
    std::vector<float> expected = values;
    for (float& v : expected) {
        v *= 0.5f;
    }
    EXPECT_TRUE(within_ulps(expected, download(queue(), out), tolerance::scale_ulps));
}

TEST_P(ProgramConformance, AssemblyIsPtxOrUnsupportedSayingWhy)
{
    // The embedded program (a fatbin and its shipped PTX on CUDA, source on OpenCL), a build from
    // source no cache has seen (NVRTC's own PTX), and that build again from the disk cache in a
    // fresh registry, as a new process would load it (a cubin, which keeps no PTX).
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    const TwoLanguageSource fresh("assembly_probe", nonce(), "7");
    const Registry registry(Registry::default_search_path());
    const std::vector<std::pair<std::string, Program>> programs{
        {"embedded", cached_program(device(), kernels::test_kernels())},
        {"from source", device().build(fresh.source)},
        {"from the disk cache", registry.select(device().selector()).build(fresh.source)}};
    for (const auto& [how, program] : programs) {
        if (shows(known::no_assembly_text)) {
            const auto error = expect_error<Unsupported>([&] { (void)program.assembly(); });
            ASSERT_TRUE(error) << how;
            EXPECT_TRUE(mentions(error->message(), {"not PTX"})) << error->message();
            continue;
        }
        const std::string ptx = program.assembly();
        EXPECT_NE(ptx.find(".version "), std::string::npos) << how;
        EXPECT_NE(ptx.find(".entry "), std::string::npos) << how;
        const std::string kernel = how == "embedded" ? "scale" : "assembly_probe";
        EXPECT_NE(ptx.find(kernel), std::string::npos) << how << ": no " << kernel;
    }
}

TEST_P(ProgramConformance, BuildOptionsAreWhatTheCompilerWasGiven)
{
    // A fatbin names nvcc's options at duet's build; a build from source the backend's whole set,
    // the caller's flag and the backend's own (NVRTC's architecture); so does that build loaded
    // again from the disk cache in a fresh registry.
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    const TwoLanguageSource fresh("options_probe", nonce(), "7");
    BuildOptions options;
    options.flags = is_opencl() ? "-cl-mad-enable" : "--fmad=true";
    const Program embedded = cached_program(device(), kernels::test_kernels());
    if (!is_opencl()) {
        EXPECT_TRUE(embedded.build_options().starts_with("nvcc -fatbin ")) << embedded.build_options();
    }
    const Registry registry(Registry::default_search_path());
    for (const Program& program :
         {device().build(fresh.source, options), registry.select(device().selector()).build(fresh.source, options)}) {
        const std::string given = program.build_options();
        EXPECT_NE(given.find(options.flags), std::string::npos) << given;
        if (!is_opencl()) {
            EXPECT_NE(given.find("--gpu-architecture=sm_"), std::string::npos) << given;
        }
    }
}

TEST_P(ProgramConformance, ProgramWithNoFormatTheBackendTakesIsRefused)
{
    // A CUDA fatbin for an OpenCL device, OpenCL C for a CUDA device: nothing to build from.
    const std::string bytes = "not a program";
    const ProgramFormat foreign = is_opencl() ? ProgramFormat::fatbin : ProgramFormat::opencl_c;
    const ProgramSource source{"foreign_only", {{foreign, bytes}}};
    try {
        (void)device().build(source);
        ADD_FAILURE() << "a program with only " << to_string(foreign) << " built on " << device().selector();
    } catch (const Error& error) {
        EXPECT_TRUE(mentions(error.what(), {"foreign_only", std::string(to_string(foreign))}));
    }
}

TEST_P(ProgramConformance, FormatNamesAreDistinct)
{
    EXPECT_NE(to_string(ProgramFormat::opencl_c), to_string(ProgramFormat::cuda_c));
    EXPECT_NE(to_string(ProgramFormat::fatbin), to_string(ProgramFormat::native));
    EXPECT_FALSE(to_string(ProgramFormat::native).empty());
}

// A default-constructed Program is no program: every use is refused, none crashes.
TEST(ProgramEmptyHandleDeathTest, EveryUseIsRefused)
{
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)Program{}.kernel("scale"));
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)Program{}.kernel_names());
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)Program{}.binary());
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)Program{}.device());
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(ProgramConformance);

// --- every embedded .cl on every OpenCL device ---

class EmbeddedOpenCLKernels : public ::testing::TestWithParam<DeviceParam> {};

TEST_P(EmbeddedOpenCLKernels, EveryEmbeddedProgramBuilds)
{
    DUET_REQUIRE_DEVICE(GetParam());
    const Device& device = *GetParam().device;
    const auto& programs = embedded_opencl_programs();
    EXPECT_EQ(programs.size(), static_cast<std::size_t>(DUET_EMBEDDED_OPENCL_COUNT));
    EXPECT_TRUE(std::any_of(programs.begin(), programs.end(), [](const auto& p) { return p.name == "vector_add"; }))
        << "the worked example is not among the embedded programs";
    for (const EmbeddedProgram& embedded : programs) {
        SCOPED_TRACE(embedded.name + " from " + embedded.path);
        const ProgramSource& source = embedded.source();
        ASSERT_EQ(source.images.size(), 1u);
        EXPECT_EQ(source.images[0].format, ProgramFormat::opencl_c);
        std::ifstream file(embedded.path, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        EXPECT_EQ(std::string(source.images[0].data), text) << "the embedded bytes differ from the file";
        try {
            BuildOptions options;
            options.use_cache = false; // compile it now, whatever an earlier run cached
            const Program program = device.build(source, options);
            const std::vector<std::string> names = program.kernel_names();
            EXPECT_FALSE(names.empty()) << "no kernels in " << embedded.path;
            for (const std::string& name : names) {
                EXPECT_EQ(program.kernel(name).name(), name);
            }
        } catch (const BuildError& error) {
            ADD_FAILURE() << embedded.path << " does not build on " << device.selector() << ":\n" << error.log();
        }
    }
}

INSTANTIATE_TEST_SUITE_P(OpenCLDevices, EmbeddedOpenCLKernels, ::testing::ValuesIn(backend_params("opencl")),
                         ParamName());

} // namespace
} // namespace duet::test
