// Kernels: look-up by name, limits, scalar arguments of several types, dynamic local memory in a
// reduction, and the refused cases: unknown name, wrong argument count, arguments of the wrong kind
// (on programs built from source and loaded from the disk cache), damaged program binaries, a
// kernel of another device.
#include <algorithm>
#include <bit>
#include <filesystem>
#include <iostream>
#include <numeric>

#include "duet_test.hpp"

namespace duet::test {
namespace {

class KernelConformance : public DeviceTest {};

TEST_P(KernelConformance, KernelKnowsItsNameAndLimits)
{
    const Kernel kernel = test_kernel(device(), "scale");
    EXPECT_EQ(kernel.name(), "scale");
    EXPECT_GT(kernel.properties().max_block_size, 0u);
    EXPECT_LE(kernel.properties().max_block_size, props().max_block_size);
}

TEST_P(KernelConformance, PropertiesSayWhatSetsTheLargestBlock)
{
    const KernelProperties fixed = test_kernel(device(), "fixed_block").properties();
    EXPECT_EQ(fixed.max_block_size, 64u);
    EXPECT_EQ(fixed.max_block_limit, BlockLimit::declared) << to_string(fixed.max_block_limit);
    // OpenCL's reqd_work_group_size is exact and reported; CUDA's __launch_bounds__ is a maximum.
    const std::array<std::uint64_t, 3> declared =
        is_opencl() ? std::array<std::uint64_t, 3>{64, 1, 1} : std::array<std::uint64_t, 3>{};
    EXPECT_EQ(fixed.required_block, declared);

    const KernelProperties scale = test_kernel(device(), "scale").properties();
    EXPECT_NE(scale.max_block_limit, BlockLimit::declared) << to_string(scale.max_block_limit);
    EXPECT_EQ(scale.required_block, (std::array<std::uint64_t, 3>{}));
    EXPECT_LE(scale.max_block_size, props().max_block_size);
    EXPECT_EQ(scale.max_block_size == props().max_block_size, scale.max_block_limit == BlockLimit::device)
        << "max_block_size " << scale.max_block_size << ", set by " << to_string(scale.max_block_limit);
    if (is_cuda()) {
        EXPECT_GT(scale.registers, 0u) << "CU_FUNC_ATTRIBUTE_NUM_REGS";
        EXPECT_EQ(scale.driver_max_block_size, scale.max_block_size);
    }
}

// NVIDIA's OpenCL answers CL_KERNEL_WORK_GROUP_SIZE 256 for every kernel, yet runs larger blocks
// whose registers fit: duet's limit for such a kernel is above the driver's figure, and a block of
// that limit must then run and compute every element.
TEST_P(KernelConformance, ABlockAboveTheDriversFigureRuns)
{
    const Kernel fill = test_kernel(device(), "fill_value");
    const KernelProperties& properties = fill.properties();
    if (properties.driver_max_block_size >= properties.max_block_size) {
        GTEST_SKIP() << "the driver's own figure, " << properties.driver_max_block_size
                     << ", is this kernel's limit here";
    }
    EXPECT_EQ(properties.max_block_limit, BlockLimit::device) << to_string(properties.max_block_limit);
    const std::size_t block = std::min<std::uint64_t>(properties.max_block_size, props().max_block_dims[0]);
    const std::size_t n = block * 37 + 5;
    Buffer<float> out = device().alloc<float>(n);
    queue().fill(BufferView<float>(out), poison());
    queue().launch(fill, Range::cover(n, block), out, 3.0f, static_cast<std::uint32_t>(n));
    EXPECT_TRUE(bitwise_equal(std::vector<float>(n, 3.0f), download(queue(), out)));
}

// A block whose registers exceed the register file is Unsupported, naming them: refused by duet
// where it knows the kernel's registers, by the driver's enqueue (CL_OUT_OF_RESOURCES) on NVIDIA's
// OpenCL where its compiler's log did not give them. The queue works on afterwards.
TEST_P(KernelConformance, ABlockTheRegistersDoNotHoldIsUnsupportedNamingThem)
{
    const Kernel heavy = test_kernel(device(), "register_heavy");
    const KernelProperties& properties = heavy.properties();
    const bool driver_refuses = is_opencl() && props().registers_per_block != 0 && properties.registers == 0;
    if (properties.max_block_limit != BlockLimit::registers && !driver_refuses) {
        GTEST_SKIP() << "register_heavy's largest block here is set by " << to_string(properties.max_block_limit)
                     << " (" << properties.registers << " registers a work-item reported)";
    }
    const std::size_t n = 4096;
    Buffer<float> in = make_buffer(device(), queue(), random_floats(n, test_seed()));
    Buffer<float> out = device().alloc<float>(n);
    const std::size_t too_many = std::min<std::uint64_t>(props().max_block_size, props().max_block_dims[0]);
    auto error = expect_error<Unsupported>(
        [&] { queue().launch(heavy, Range::cover(n, too_many), in, out, static_cast<std::uint32_t>(n)); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "register_heavy");
        if (driver_refuses) {
            DUET_EXPECT_MENTIONS(*error, "CL_OUT_OF_RESOURCES");
        } else {
            EXPECT_LT(properties.max_block_size, too_many);
            DUET_EXPECT_MENTIONS(*error, dec(properties.registers) + " registers");
            DUET_EXPECT_MENTIONS(*error, dec(properties.max_block_size));
        }
    }
    // A block it holds runs, on the same queue: its limit, or where the driver decides, its figure.
    const std::size_t held = driver_refuses ? properties.driver_max_block_size : properties.max_block_size;
    queue().launch(heavy, Range::cover(n, held), in, out, static_cast<std::uint32_t>(n));
    queue().finish();
}

// A program from the disk cache (a binary: on NVIDIA's OpenCL no compiler log) keeps what sets its
// kernels' limits.
TEST_P(KernelConformance, AProgramFromItsBinaryKeepsItsKernelProperties)
{
    BuildOptions options;
    options.use_cache = false;
    const Program built = device().build(kernels::test_kernels(), options);
    const Program loaded =
        device().build(ProgramSource{"from_binary", {{ProgramFormat::native, built.binary()}}}, options);
    for (const char* name : {"fill_value", "fixed_block", "register_heavy"}) {
        const KernelProperties first = built.kernel(name).properties();
        const KernelProperties again = loaded.kernel(name).properties();
        EXPECT_EQ(again.max_block_size, first.max_block_size) << name;
        EXPECT_EQ(again.max_block_limit, first.max_block_limit) << name;
        EXPECT_EQ(again.registers, first.registers) << name;
        EXPECT_EQ(again.required_block, first.required_block) << name;
    }
}

TEST_P(KernelConformance, StaticLocalMemoryIsReported)
{
    const Kernel kernel = test_kernel(device(), "static_local");
    if (shows(known::pocl5_static_local_memory_zero)) {
        EXPECT_EQ(kernel.properties().static_local_memory, 0u) << "the known difference no longer shows";
    } else {
        EXPECT_GE(kernel.properties().static_local_memory, 64 * sizeof(float));
    }
    EXPECT_LE(kernel.properties().static_local_memory, props().local_memory_per_block);

    const std::size_t n = 1000;
    const std::size_t block = std::min<std::uint64_t>(128, kernel.properties().max_block_size);
    Buffer<float> out = device().alloc<float>(n);
    queue().fill(BufferView<float>(out), poison());
    queue().launch(kernel, Range::cover(n, block), out, static_cast<std::uint32_t>(n));
    std::vector<float> expected(n);
    for (std::size_t i = 0; i < n; ++i) {
        expected[i] = static_cast<float>((i % block) % 64);
    }
    EXPECT_TRUE(bitwise_equal(expected, download(queue(), out)));
}

TEST_P(KernelConformance, ScalarArgumentsOfEveryWidthArrive)
{
    const auto c = static_cast<std::int8_t>(-100);
    const auto s = static_cast<std::int16_t>(-30000);
    const std::int32_t i = -2000000000;
    const std::uint32_t u = 4000000000u;
    const std::int64_t l = -9000000000000000000ll;
    const std::uint64_t ul = 18000000000000000000ull;
    const float f = -1.5e-7f;
    Buffer<std::int64_t> out = make_buffer(device(), queue(), std::vector<std::int64_t>(7, 0x5a5a5a5a5a5a5a5all));
    queue().launch(test_kernel(device(), "scalars"), Range::grid_block(1, 1), out, c, s, i, u, l, ul, f);
    const std::vector<std::int64_t> got = download(queue(), out);
    EXPECT_EQ(got[0], c);
    EXPECT_EQ(got[1], s);
    EXPECT_EQ(got[2], i);
    EXPECT_EQ(got[3], static_cast<std::int64_t>(u));
    EXPECT_EQ(got[4], l);
    EXPECT_EQ(static_cast<std::uint64_t>(got[5]), ul);
    EXPECT_EQ(got[6], std::bit_cast<std::int32_t>(f));
}

TEST_P(KernelConformance, CachePreferenceIsAHintOrUnsupported)
{
    const Kernel kernel = test_kernel(device(), "reduce_sum");
    if (shows(known::no_cache_preference)) {
        const auto error =
            expect_error<Unsupported>([&] { kernel.set_cache_preference(CachePreference::prefer_shared); });
        ASSERT_TRUE(error);
        EXPECT_NE(error->message().find("L1"), std::string::npos) << error->message();
        return;
    }
    kernel.set_cache_preference(CachePreference::prefer_shared);
    // The hint changes no result: the reduction still sums correctly after it.
    const std::vector<float> values = random_integral_floats(1000, test_seed());
    Buffer<float> in = make_buffer(device(), queue(), values);
    Buffer<float> partial = device().alloc<float>(4);
    queue().launch(kernel, Range::cover(1000, 256), in, partial, LocalMemory{256 * sizeof(float)}, 1000u);
    const std::vector<float> sums = download(queue(), partial);
    EXPECT_EQ(sums[0], std::accumulate(values.begin(), values.begin() + 256, 0.0f));
    kernel.set_cache_preference(CachePreference::none);
}

TEST_P(KernelConformance, DriverOccupancyWhereTheApiHasOne)
{
    const Kernel kernel = test_kernel(device(), "reduce_sum");
    if (shows(known::no_driver_occupancy)) {
        const auto error = expect_error<Unsupported>([&] { (void)kernel.driver_occupancy(256, 1024); });
        ASSERT_TRUE(error);
        EXPECT_NE(error->message().find("cuOccupancyMaxActiveBlocksPerMultiprocessor"), std::string::npos)
            << error->message();
        return;
    }
    // A small block fits several times on a multiprocessor; one the size of its threads at most once.
    const unsigned small = kernel.driver_occupancy(64, 64 * sizeof(float));
    EXPECT_GE(small, 2u);
    const auto largest = static_cast<std::size_t>(kernel.properties().max_block_size);
    const unsigned large = kernel.driver_occupancy(largest, largest * sizeof(float));
    EXPECT_GE(large, 1u);
    EXPECT_LE(large, small);
    const auto error = expect_error<InvalidArgument>([&] { (void)kernel.driver_occupancy(largest + 1, 0); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find(std::to_string(largest + 1)), std::string::npos) << error->message();
}

TEST_P(KernelConformance, ParametersAreReportedAsTheDriverSeesThem)
{
    const Kernel kernel = test_kernel(device(), "reduce_sum");
    if (shows(known::no_parameter_kinds)) {
        const auto error = expect_error<Unsupported>([&] { (void)kernel.parameters(); });
        ASSERT_TRUE(error);
        EXPECT_NE(error->message().find("clGetKernelArgInfo"), std::string::npos) << error->message();
        return;
    }
    // reduce_sum(__global const float* in, __global float* partial, __local float* scratch, const uint n)
    using Address = KernelParameterInfo::Address;
    const auto parameters = kernel.parameters();
    ASSERT_EQ(parameters.size(), 4u);
    const std::vector<std::pair<Address, std::string>> expected = {{Address::global, "float*"},
                                                                   {Address::global, "float*"},
                                                                   {Address::local, "float*"},
                                                                   {Address::private_, "uint"}};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(parameters[i].address, expected[i].first) << "parameter " << i;
        EXPECT_EQ(parameters[i].type_name, expected[i].second) << "parameter " << i;
    }
}

TEST_P(KernelConformance, DynamicLocalMemoryServesAReduction)
{
    const Kernel kernel = test_kernel(device(), "reduce_sum");
    const std::size_t n = 100003; // odd, not a multiple of any block
    const std::vector<float> values = random_integral_floats(n, test_seed());
    Buffer<float> in = make_buffer(device(), queue(), values);
    bool ran = false;
    for (const std::size_t block : {std::size_t{1}, std::size_t{64}, std::size_t{128}, std::size_t{256}}) {
        if (block > kernel.properties().max_block_size || block > props().max_block_dims[0] ||
            block * sizeof(float) + kernel.properties().static_local_memory > props().local_memory_per_block) {
            continue; // this block does not fit the device; the others cover the kernel
        }
        SCOPED_TRACE("block " + dec(block));
        ran = true;
        const Range range = Range::cover(n, block);
        Buffer<float> partial = device().alloc<float>(range.grid.x);
        queue().fill(BufferView<float>(partial), poison());
        queue().launch(kernel, range, in, partial, LocalMemory{block * sizeof(float)}, static_cast<std::uint32_t>(n));
        const std::vector<float> sums = download(queue(), partial);
        std::vector<float> expected(range.grid.x, 0.0f);
        for (std::size_t g = 0; g < expected.size(); ++g) {
            const std::size_t end = std::min(n, (g + 1) * block);
            expected[g] = std::accumulate(values.begin() + g * block, values.begin() + end, 0.0f);
        }
        for (std::size_t g = 0; g < expected.size(); ++g) {
            ASSERT_NEAR(sums[g], expected[g], tolerance::reduction_absolute) << "group " << g;
        }
    }
    EXPECT_TRUE(ran) << "no block size fit the device";
}

TEST_P(KernelConformance, KernelOutlivesItsProgram)
{
    Kernel kernel;
    {
        const Program program = device().build(kernels::test_kernels());
        kernel = program.kernel("fill_value");
    }
    Buffer<float> out = device().alloc<float>(33);
    queue().launch(kernel, Range::cover(33, 8), out, 9.0f, 33u);
    EXPECT_TRUE(bitwise_equal(std::vector<float>(33, 9.0f), download(queue(), out)));
}

TEST_P(KernelConformance, OneKernelLaunchesManyTimesWithNewArguments)
{
    const Kernel kernel = test_kernel(device(), "fill_value");
    Buffer<float> a = device().alloc<float>(100);
    Buffer<float> b = device().alloc<float>(50);
    queue().launch(kernel, Range::cover(100, 32), a, 1.0f, 100u);
    queue().launch(kernel, Range::cover(50, 32), b, 2.0f, 50u);
    queue().launch(kernel, Range::cover(40, 32), a, 3.0f, 40u);
    std::vector<float> expected_a(100, 1.0f);
    std::fill(expected_a.begin(), expected_a.begin() + 40, 3.0f);
    EXPECT_TRUE(bitwise_equal(expected_a, download(queue(), a)));
    EXPECT_TRUE(bitwise_equal(std::vector<float>(50, 2.0f), download(queue(), b)));
}

// --- refused ---

TEST_P(KernelConformance, UnknownNameListsTheNamesThatExist)
{
    const Program& program = cached_program(device(), kernels::test_kernels());
    auto error = expect_error<NotFound>([&] { (void)program.kernel("no_such_kernel"); });
    if (error) {
        EXPECT_TRUE(mentions(error->what(), {"no_such_kernel"}));
        for (const std::string& name : test_kernel_names()) {
            EXPECT_TRUE(mentions(error->what(), {name})) << "the message does not list " << name;
        }
    }
}

TEST_P(KernelConformance, WrongArgumentCountIsRefusedAndNothingRuns)
{
    const Kernel kernel = test_kernel(device(), "fill_value");
    const std::vector<float> initial = random_floats(64, test_seed());
    Buffer<float> out = make_buffer(device(), queue(), initial);
    auto too_few = expect_error<InvalidArgument>([&] { queue().launch(kernel, Range::cover(64, 32), out, 1.0f); });
    if (too_few) {
        DUET_EXPECT_MENTIONS(*too_few, "3", "argument");
    }
    auto too_many =
        expect_error<InvalidArgument>([&] { queue().launch(kernel, Range::cover(64, 32), out, 1.0f, 64u, 64u); });
    if (too_many) {
        DUET_EXPECT_MENTIONS(*too_many, "3", "argument");
    }
    queue().finish();
    EXPECT_TRUE(bitwise_equal(initial, download(queue(), out)));
}

TEST_P(KernelConformance, TwoLocalMemoryArgumentsAreRefused)
{
    const Kernel kernel = test_kernel(device(), "reduce_sum");
    Buffer<float> in = make_buffer(device(), queue(), random_floats(64, test_seed()));
    const std::vector<float> initial = random_floats(1, test_seed() + 1);
    Buffer<float> partial = make_buffer(device(), queue(), initial);
    expect_error<InvalidArgument>(
        [&] { queue().launch(kernel, Range::cover(64, 64), in, partial, LocalMemory{256}, LocalMemory{256}); });
    EXPECT_TRUE(bitwise_equal(initial, download(queue(), partial)));
}

/// The test kernels built from source, bypassing the caches, so that the driver's own argument info
/// (address qualifiers) is what the checks use; the cached program has its own test below.
Kernel kernel_from_source(const Device& device, std::string_view name)
{
    BuildOptions options;
    options.use_cache = false;
    return device.build(kernels::test_kernels(), options).kernel(name);
}

TEST_P(KernelConformance, ArgumentsOfTheWrongKindAreRefusedAndNothingRuns)
{
    const Kernel fill = kernel_from_source(device(), "fill_value");   // (__global float*, float, uint)
    const Kernel reduce = kernel_from_source(device(), "reduce_sum"); // (__global, __global, __local, uint)
    const std::vector<float> initial = random_floats(64, test_seed());
    Buffer<float> out = make_buffer(device(), queue(), initial);
    Buffer<float> in = make_buffer(device(), queue(), random_floats(64, test_seed() + 1));
    const auto refused = [&](const char* what, const char* kernel, const char* index, const char* takes,
                             auto&& launch) {
        SCOPED_TRACE(what);
        if (auto error = expect_error<InvalidArgument>(launch)) {
            DUET_EXPECT_MENTIONS(*error, kernel);
            // Where kinds are known the argument and what it takes are named; elsewhere a wrong
            // count or size is.
            if (!shows(known::no_parameter_kinds)) {
                DUET_EXPECT_MENTIONS(*error, std::string("argument ") + index);
                DUET_EXPECT_MENTIONS(*error, std::string("takes ") + takes);
            }
        }
    };
    refused("a buffer where a value is taken", "fill_value", "1", "a value (float)",
            [&] { queue().launch(fill, Range::cover(64, 32), out, in, 64u); });
    refused("LocalMemory where no __local pointer is taken", "fill_value", "1", "a value (float)",
            [&] { queue().launch(fill, Range::cover(64, 32), out, LocalMemory{4}, 64u); });
    refused("a value where a __local pointer is taken", "reduce_sum", "2", "a __local pointer",
            [&] { queue().launch(reduce, Range::cover(64, 64), in, out, 1.0f, 64u); });
    queue().finish();
    EXPECT_TRUE(bitwise_equal(initial, download(queue(), out)));
}

TEST_P(KernelConformance, AValueWhereAPointerIsTakenIsRefused)
{
    if (shows(known::no_parameter_kinds)) {
        GTEST_SKIP() << known::no_parameter_kinds.reason; // the launch would take the value as an address
    }
    const Kernel fill = kernel_from_source(device(), "fill_value");
    const std::vector<float> initial = random_floats(64, test_seed());
    Buffer<float> out = make_buffer(device(), queue(), initial);
    // The size of a cl_mem: before kinds were checked PoCL took these bytes for one and crashed,
    // so the launch is tried in a child process first.
    const std::uint64_t not_a_buffer = 0x1000;
    const auto launch = [&] { queue().launch(fill, Range::cover(64, 32), not_a_buffer, 1.0f, 64u); };
    DUET_EXPECT_REFUSED_WITHOUT_CRASH(launch());
    if (HasFailure()) {
        return;
    }
    auto error = expect_error<InvalidArgument>(launch);
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "fill_value");
        DUET_EXPECT_MENTIONS(*error, "argument 0");
        DUET_EXPECT_MENTIONS(*error, "__global");
    }
    EXPECT_TRUE(bitwise_equal(initial, download(queue(), out)));
}

TEST_P(KernelConformance, AValueWhereAPointerIsTakenIsRefusedOnACachedProgram)
{
    if (shows(known::no_parameter_kinds)) {
        GTEST_SKIP() << known::no_parameter_kinds.reason;
    }
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    {
        // A registry of its own, so that no program this process built answers from memory.
        const Registry first(Registry::default_search_path());
        (void)first.select(device().selector()).build(kernels::test_kernels());
    }
    const std::vector<std::filesystem::path> entries = files_below(cache.path());
    ASSERT_FALSE(entries.empty()) << "building with DUET_CACHE_DIR=" << cache.path() << " wrote no cache entry";
    const auto written = std::filesystem::last_write_time(entries[0]);

    // A later run: the program comes from the disk cache, as a driver binary.
    const Registry later(Registry::default_search_path());
    const Device again = later.select(device().selector());
    const Kernel fill = again.build(kernels::test_kernels()).kernel("fill_value");
    EXPECT_EQ(std::filesystem::last_write_time(entries[0]), written)
        << "the second build rebuilt the program instead of loading the cached one";
    EXPECT_EQ(fill.parameters().size(), 3u) << "a cached program reports its parameters too";
    Queue queue = again.create_queue();
    const std::vector<float> initial = random_floats(64, test_seed());
    Buffer<float> out = make_buffer(again, queue, initial);
    const std::uint64_t not_a_buffer = 0x1000;
    const auto launch = [&] { queue.launch(fill, Range::cover(64, 32), not_a_buffer, 1.0f, 64u); };
    DUET_EXPECT_REFUSED_WITHOUT_CRASH(launch());
    if (HasFailure()) {
        return;
    }
    if (auto error = expect_error<InvalidArgument>(launch)) {
        DUET_EXPECT_MENTIONS(*error, "fill_value");
        DUET_EXPECT_MENTIONS(*error, "argument 0");
        DUET_EXPECT_MENTIONS(*error, "__global");
        DUET_EXPECT_MENTIONS(*error, "float*");
    }
    // The kinds still let a right call through.
    queue.launch(fill, Range::cover(64, 32), out, 2.0f, 64u);
    EXPECT_TRUE(bitwise_equal(std::vector<float>(64, 2.0f), download(queue, out)));
}

TEST_P(KernelConformance, DamagedOrForeignProgramBinariesAreRefused)
{
    if (shows(known::binaries_checked_by_the_driver)) {
        GTEST_SKIP() << known::binaries_checked_by_the_driver.reason;
    }
    BuildOptions options;
    options.use_cache = false;
    const std::string binary = device().build(kernels::test_kernels(), options).binary();
    ASSERT_GT(binary.size(), 64u);
    std::vector<std::pair<std::string, std::string>> cases = {{"empty", ""}, {"not a binary", "not a program binary"}};
    std::string first_byte_changed = binary;
    first_byte_changed[0] = static_cast<char>(first_byte_changed[0] ^ 0x01);
    cases.emplace_back("first byte changed", first_byte_changed);
    // Inside the header, the recorded kernels and their argument kinds, and the driver's binary.
    for (const std::size_t cut : {std::size_t{4}, std::size_t{16}, std::size_t{24}, std::size_t{40}, std::size_t{100},
                                  std::size_t{300}, binary.size() / 2, binary.size() - 1}) {
        cases.emplace_back("cut to " + dec(cut) + " of " + dec(binary.size()) + " bytes", binary.substr(0, cut));
    }
    cases.emplace_back("one byte too long", binary + '\0');
    const auto build = [&](const std::string& bytes) {
        (void)device().build(ProgramSource{"damaged_binary", {{ProgramFormat::native, bytes}}});
    };

    // In a child process first: PoCL aborts on some of these when they reach it.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            for (const auto& [what, bytes] : cases) {
                try {
                    build(bytes);
                    std::_Exit(1);
                } catch (const InvalidArgument&) {
                } catch (...) {
                    std::_Exit(2);
                }
            }
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "")
        << "every damaged binary must be refused with duet::InvalidArgument (child exit 1: one built, 2: another "
           "exception, a signal: it crashed)";
    if (HasFailure()) {
        return;
    }
    for (const auto& [what, bytes] : cases) {
        SCOPED_TRACE(what);
        if (auto error = expect_error<InvalidArgument>([&] { build(bytes); })) {
            DUET_EXPECT_MENTIONS(*error, "binary");
        }
    }
}

TEST_P(KernelConformance, KernelOfAnotherDeviceIsRefused)
{
    const std::vector<Device> others = other_devices();
    if (others.empty()) {
        GTEST_SKIP() << no_other_device_reason();
    }
    const std::vector<float> initial = random_floats(64, test_seed());
    Buffer<float> out = make_buffer(device(), queue(), initial);
    for (const Device& other : others) {
        SCOPED_TRACE("kernel of " + other.selector());
        const Kernel foreign = test_kernel(other, "fill_value");
        auto error =
            expect_error<InvalidArgument>([&] { queue().launch(foreign, Range::cover(64, 32), out, 1.0f, 64u); });
        if (error) {
            DUET_EXPECT_MENTIONS(*error, other.selector());
        }
    }
    EXPECT_TRUE(bitwise_equal(initial, download(queue(), out)));
}

TEST_P(KernelConformance, BufferOfAnotherDeviceAsAnArgumentIsRefused)
{
    const std::vector<Device> others = other_devices();
    if (others.empty()) {
        GTEST_SKIP() << no_other_device_reason();
    }
    for (const Device& other : others) {
        SCOPED_TRACE("buffer of " + other.selector());
        Queue other_queue = other.create_queue();
        const std::vector<float> initial = random_floats(64, test_seed());
        Buffer<float> foreign = make_buffer(other, other_queue, initial);
        expect_error<InvalidArgument>(
            [&] { queue().launch(test_kernel(device(), "fill_value"), Range::cover(64, 32), foreign, 1.0f, 64u); });
        EXPECT_TRUE(bitwise_equal(initial, download(other_queue, foreign))) << "the foreign buffer was written";
    }
}

TEST_P(KernelConformance, EmptyKernelHandleIsRefused)
{
    Buffer<float> out = device().alloc<float>(64);
    expect_error<InvalidArgument>([&] { queue().launch(Kernel{}, Range::cover(64, 32), out, 1.0f, 64u); });
}

// A default-constructed Kernel is no kernel: every use is refused, none crashes.
TEST(KernelEmptyHandleDeathTest, EveryUseIsRefused)
{
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)Kernel{}.name());
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)Kernel{}.properties());
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(KernelConformance);

} // namespace
} // namespace duet::test
