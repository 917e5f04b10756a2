// matmul beyond what the generic workload test can see: no variant writes past C, matrices the
// kernels' 32-bit indices cannot address are refused before anything runs, the sampled check of
// large products keeps the edge rows and catches a single wrong element, and the overlapped and
// forkjoin schedules report the figures they are judged by, consistently with their phases.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <tuple>

#include <duet/launch_log.hpp>

#include "duet_test.hpp"
#include "matmul.hpp"

namespace duet::test {
namespace {

using VariantCase = std::tuple<DeviceParam, std::string>;

/// A product to compute: A and B drawn from `seed` and `seed` + 1, and their CPU reference, made
/// once, against which any C is measured.
struct Product {
    Product(const matmul::Shape& product_shape, std::uint64_t seed)
        : shape(product_shape), a(random_floats(shape.m * shape.k, seed)),
          b(random_floats(shape.k * shape.n, seed + 1)), want(shape.m * shape.n),
          rows(matmul::rows_to_check(shape, 1, test_seed()))
    {
        matmul::reference(a, b, want, shape);
    }
    /// The largest error of C's first m × n elements on the rows the check takes.
    double error(std::span<const float> c) const
    {
        return matmul::max_error(c.first(shape.m * shape.n), want, a, b, rows, shape);
    }

    matmul::Shape shape;
    std::vector<float> a, b;
    std::vector<double> want;
    std::vector<std::size_t> rows;
};

/// C = A × B for `shape` through `launcher`, into a C followed by poisoned elements: C within the
/// tolerance of the reference, and every element past it untouched. `what` names the kernel.
void expect_product_and_nothing_past_c(const Device& device, const matmul::Launcher& launcher,
                                       const matmul::Shape& shape, const std::string& what)
{
    const std::size_t spare = 29;
    const Product product(shape, test_seed());
    Queue queue = device.create_queue();
    Buffer<float> c = device.alloc<float>(shape.m * shape.n + spare);
    queue.fill(c, poison());
    launcher.run(queue, make_buffer(device, queue, product.a), make_buffer(device, queue, product.b), c, shape);
    const std::vector<float> got = download(queue, c);
    EXPECT_LE(product.error(got), matmul::tolerance(shape)) << what << ": " << matmul::tolerance_reason(false);
    EXPECT_TRUE(bitwise_equal(std::vector<float>(spare, poison()), std::span<const float>(got).last(spare)))
        << what << " wrote past C";
}

/// The launcher, or none and `reason` set where the device cannot run it (the test then skips).
std::unique_ptr<matmul::Launcher> launcher_or_reason(const Device& device, const std::string& variant,
                                                     const matmul::BlockedTiles& tiles, std::string& reason)
{
    try {
        return std::make_unique<matmul::Launcher>(device, variant, tiles);
    } catch (const Unsupported& error) {
        reason = error.what();
        return nullptr;
    }
}

class MatmulLauncher : public ::testing::TestWithParam<VariantCase> {
protected:
    std::unique_ptr<matmul::Launcher> launcher(const Device& device, const std::string& variant)
    {
        return launcher_or_reason(device, variant, {}, reason_);
    }
    std::string reason_;
};

TEST_P(MatmulLauncher, WritesNothingPastC)
{
    const auto& [param, variant] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    const Device& device = *param.device;
    const auto run = launcher(device, variant);
    if (!run) {
        GTEST_SKIP() << reason_;
    }
    // Not a multiple of any tile in any dimension.
    expect_product_and_nothing_past_c(device, *run, {33, 17, 65}, variant);
}

TEST_P(MatmulLauncher, RefusesMatricesItsIndicesCannotAddress)
{
    const auto& [param, variant] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    const Device& device = *param.device;
    const auto run = launcher(device, variant);
    if (!run) {
        GTEST_SKIP() << reason_;
    }
    // A is 65536 × 65536 = 2^32 elements; the check comes before the buffer sizes are looked at.
    const matmul::Shape shape{65536, 1, 65536};
    Queue queue = device.create_queue();
    const std::vector<float> initial = random_floats(16, test_seed());
    Buffer<float> a = make_buffer(device, queue, initial);
    Buffer<float> c = make_buffer(device, queue, initial);
    auto error = expect_error<InvalidArgument>([&] { run->run(queue, a, a, c, shape); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "2^32");
    }
    EXPECT_TRUE(bitwise_equal(initial, download(queue, c)));
}

std::string variant_case_name(const ::testing::TestParamInfo<VariantCase>& info)
{
    return std::get<0>(info.param).name + "_" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(Devices, MatmulLauncher,
                         ::testing::Combine(::testing::ValuesIn(device_params()),
                                            ::testing::ValuesIn(matmul::variants())),
                         variant_case_name);

using TilesCase = std::tuple<DeviceParam, matmul::BlockedTiles>;

class MatmulBlockedTiles : public ::testing::TestWithParam<TilesCase> {};

// Every size a tuner may pick computes C, and nothing past it, with edges ragged in every
// dimension and more than one tile each way.
TEST_P(MatmulBlockedTiles, EveryCandidateAgreesAndWritesNothingPastC)
{
    const auto& [param, tiles] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    std::string reason;
    const auto run = launcher_or_reason(*param.device, "blocked", tiles, reason);
    if (!run) {
        GTEST_SKIP() << reason;
    }
    expect_product_and_nothing_past_c(*param.device, *run, {tiles.bm + 37, 2 * tiles.bn + 5, 3 * tiles.bk + 3},
                                      tiles.name());
}

// K split: slices empty (K shorter than the slices: they add nothing), short and ragged, and slices
// that end on float4s (n and k multiples of 4: the float4 loads, and the float4 stores into every
// slice of the workspace).
TEST_P(MatmulBlockedTiles, SplitProductsAddUpOverEmptyRaggedAndFloat4Slices)
{
    const auto& [param, tiles] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    if (tiles.split_k == 1) {
        GTEST_SKIP() << tiles.name() << " does not split K";
    }
    std::string reason;
    const auto run = launcher_or_reason(*param.device, "blocked", tiles, reason);
    if (!run) {
        GTEST_SKIP() << reason;
    }
    expect_product_and_nothing_past_c(*param.device, *run, {33, 17, 5}, tiles.name() + " with k = 5");
    expect_product_and_nothing_past_c(*param.device, *run, {36, 68, 20}, tiles.name() + " with k = 20");
    expect_product_and_nothing_past_c(*param.device, *run,
                                      {tiles.bm + 4, 2 * tiles.bn + 8, 4 * tiles.bk * tiles.split_k + 4},
                                      tiles.name() + " over several tiles");
}

/// One launcher with K split in two, on each device, for the cases of several products at once.
class MatmulSplitK : public DeviceTest {
protected:
    void SetUp() override
    {
        DeviceTest::SetUp();
        if (!IsSkipped() && !HasFailure()) {
            launcher_ =
                std::make_unique<matmul::Launcher>(device(), "blocked", matmul::BlockedTiles{64, 64, 16, 8, 8, 1, 2});
        }
    }
    std::unique_ptr<matmul::Launcher> launcher_;
};

// From two threads on one queue: each product's two kernels stay together on the queue's one
// workspace, every product into a C of its own.
TEST_P(MatmulSplitK, OneLauncherFromTwoThreadsOnOneQueueGivesEveryProduct)
{
    const Device& device = this->device();
    constexpr std::size_t products = 100;
    Queue queue = device.create_queue();
    const Product product[] = {{{64, 64, 64}, test_seed()}, {{64, 64, 64}, test_seed() + 2}};
    std::vector<Buffer<float>> inputs, c[2];
    for (std::size_t t = 0; t < 2; ++t) {
        inputs.push_back(make_buffer(device, queue, product[t].a));
        inputs.push_back(make_buffer(device, queue, product[t].b));
        for (std::size_t p = 0; p < products; ++p) {
            c[t].push_back(device.alloc<float>(product[t].shape.m * product[t].shape.n));
        }
    }
    queue.finish();
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 2; ++t) {
        threads.emplace_back([&, t] {
            for (std::size_t p = 0; p < products; ++p) {
                launcher_->run(queue, inputs[2 * t], inputs[2 * t + 1], c[t][p], product[t].shape);
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    for (std::size_t t = 0; t < 2; ++t) {
        std::size_t wrong = 0;
        for (std::size_t p = 0; p < products; ++p) {
            wrong += product[t].error(download(queue, c[t][p])) > matmul::tolerance(product[t].shape) ? 1 : 0;
        }
        EXPECT_EQ(wrong, 0u) << "thread " << t << ": products past the tolerance, of " << products;
    }
}

// On two queues at once: each queue's partial products have a workspace of their own (the second
// product would fit in the first's, and overwrite its partial products).
TEST_P(MatmulSplitK, OneLauncherOnTwoQueuesAtOnceGivesEachItsProduct)
{
    const Device& device = this->device();
    // One shape, two products: PoCL 5.0 keeps a kernel's compiled work-group functions by grid
    // width, but releases them by kernel and work-group size alone, so two launches of one kernel
    // at different grid widths in flight at once can release each other's and abort it
    // (pocl_release_dlhandle_cache: `found->ref_count > 0`; seen on a 16-core host).
    const Product product[] = {{{130, 150, 170}, test_seed()}, {{130, 150, 170}, test_seed() + 2}};
    Queue queues[] = {device.create_queue(), device.create_queue()};
    std::vector<Buffer<float>> inputs, c;
    for (std::size_t q = 0; q < 2; ++q) {
        inputs.push_back(make_buffer(device, queues[q], product[q].a));
        inputs.push_back(make_buffer(device, queues[q], product[q].b));
        c.push_back(device.alloc<float>(product[q].shape.m * product[q].shape.n));
    }
    for (std::size_t q = 0; q < 2; ++q) {
        launcher_->run(queues[q], inputs[2 * q], inputs[2 * q + 1], c[q], product[q].shape);
    }
    for (std::size_t q = 0; q < 2; ++q) {
        EXPECT_LE(product[q].error(download(queues[q], c[q])), matmul::tolerance(product[q].shape))
            << "queue " << q << ": " << matmul::tolerance_reason(false);
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(MatmulSplitK);

// The footprint that refuses runs counts the split-K workspaces where a GPU's tuner may split: the
// largest split's m × n floats for each queue that runs products, none past 2048 on a side.
TEST(MatmulSplitKFootprint, TheWorkspacesCountForEachQueueWhereAGpuMaySplitAndNowhereElse)
{
    EXPECT_EQ(matmul::split_workspace_bytes({1024, 1024, 64}), 4u * 1024 * 1024 * sizeof(float));
    EXPECT_EQ(matmul::split_workspace_bytes({2048, 100, 8}), 4u * 2048 * 100 * sizeof(float));
    EXPECT_EQ(matmul::split_workspace_bytes({2049, 100, 8}), 0u);
    // Tiles named by the setting: their own split's, at any size, and none without a split.
    EXPECT_EQ(matmul::split_workspace_bytes({4096, 4096, 64}, "128x128x8/8x8@2/k4"), 4u * 4096 * 4096 * sizeof(float));
    EXPECT_EQ(matmul::split_workspace_bytes({1024, 1024, 64}, "64x64x16/8x8/k2"), 2u * 1024 * 1024 * sizeof(float));
    EXPECT_EQ(matmul::split_workspace_bytes({1024, 1024, 64}, "128x128x8/8x8"), 0u);
    const auto devices = all_devices();
    if (devices.empty()) {
        GTEST_SKIP() << "no device";
    }
    const auto matmul_workload = WorkloadRegistry::global().find("matmul");
    const auto footprint = [&](const std::string& schedule) {
        const Settings settings(matmul_workload->info(),
                                {{"m", "64"}, {"n", "48"}, {"k", "32"}, {"batch", "3"}, {"schedule", schedule}});
        return matmul_workload->footprint(
            {devices.front(), "tiled16", settings, true, test_seed(), workload::Timing::once()});
    };
    // The same arrays either way; the overlapped schedule runs its three products on three queues.
    EXPECT_EQ(footprint("overlapped").device_bytes - footprint("sequential").device_bytes,
              2 * matmul::split_workspace_bytes({64, 48, 32}));
}

std::string tiles_case_name(const ::testing::TestParamInfo<TilesCase>& info)
{
    const matmul::BlockedTiles& tiles = std::get<1>(info.param);
    return std::get<0>(info.param).name + "_" + sanitize(tiles.name());
}

INSTANTIATE_TEST_SUITE_P(Devices, MatmulBlockedTiles,
                         ::testing::Combine(::testing::ValuesIn(device_params()),
                                            ::testing::ValuesIn(matmul::blocked_candidates())),
                         tiles_case_name);

// The tuner times each size class on its own: a product of too few tiles for the SMs wants other
// tiles than one of many waves.
TEST(MatmulBlockedTilesRule, AGpuTunesEachSizeClassAndAnotherDeviceOneSize)
{
    using matmul::Shape;
    EXPECT_EQ(matmul::tuning_size(DeviceType::gpu, Shape{512, 512, 512}), 1024u);
    EXPECT_EQ(matmul::tuning_size(DeviceType::gpu, Shape{1024, 1024, 4096}), 1024u);
    EXPECT_EQ(matmul::tuning_size(DeviceType::gpu, Shape{1025, 64, 64}), 2048u);
    EXPECT_EQ(matmul::tuning_size(DeviceType::gpu, Shape{64, 2048, 64}), 2048u);
    EXPECT_EQ(matmul::tuning_size(DeviceType::gpu, Shape{4096, 4096, 4096}), 4096u);
    EXPECT_EQ(matmul::tuning_size(DeviceType::gpu, Shape{8192, 8192, 8192}), 4096u);
    EXPECT_EQ(matmul::tuning_size(DeviceType::cpu, Shape{8192, 8192, 8192}), 256u);
    // Every candidate builds: the smaller tiles for small products share their loads out evenly too.
    for (const auto& tiles : matmul::blocked_candidates()) {
        EXPECT_FALSE(tiles.invalid_reason()) << tiles.name() << ": " << tiles.invalid_reason().value_or("");
    }
}

// A CPU device's search builds each distinct kernel once: no split of K (a GPU's, at 2048³ and
// below), no `@2`, which only CUDA and NVIDIA's OpenCL read as a register ceiling, and no thread
// tile of 128 results, which is for a GPU's register file.
TEST(MatmulBlockedTilesRule, ACpuSearchTriesNeitherSplitsNorRegisterCeilingsNorGpuThreadTiles)
{
    std::size_t cpus = 0;
    for (const Device& device : all_devices()) {
        if (device.properties().type != DeviceType::cpu) {
            continue;
        }
        ++cpus;
        const auto tried = matmul::search_candidates(device, 256);
        EXPECT_FALSE(tried.empty());
        for (const auto& tiles : matmul::blocked_candidates()) {
            const bool expected = tiles.split_k == 1 && tiles.blocks_per_sm == 1 && tiles.tm * tiles.tn <= 64;
            EXPECT_EQ(std::count(tried.begin(), tried.end(), tiles), expected ? 1 : 0)
                << device.selector() << ": " << tiles.name();
        }
    }
    if (cpus == 0) {
        GTEST_SKIP() << "no CPU device";
    }
}

// What the cache keeps is the name: each reads back as the same tiles, and nothing else reads.
TEST(MatmulBlockedTilesRule, NamesReadBackAsTheSameTiles)
{
    for (const auto& tiles : matmul::blocked_candidates()) {
        EXPECT_EQ(matmul::parse_tiles(tiles.name()), std::optional<matmul::BlockedTiles>(tiles)) << tiles.name();
    }
    EXPECT_EQ(matmul::parse_tiles("32x64x4/2x4"), std::optional<matmul::BlockedTiles>({32, 64, 4, 2, 4}));
    EXPECT_EQ(matmul::parse_tiles("128x128x16/8x8@2"), std::optional<matmul::BlockedTiles>({128, 128, 16, 8, 8, 2}));
    EXPECT_EQ(matmul::parse_tiles("64x64x16/8x8/k2"), std::optional<matmul::BlockedTiles>({64, 64, 16, 8, 8, 1, 2}));
    EXPECT_EQ(matmul::parse_tiles("128x128x8/8x8@2/k4"),
              std::optional<matmul::BlockedTiles>({128, 128, 8, 8, 8, 2, 4}));
    for (const char* text : {"", "128x128x8/8", "128x128x8/8x8x", "128x128x8x8x8", "ax128x8/8x8", "128x128x8/8x8 ",
                             "128x128x8/8x8@", "128x128x8/8x8@1", "128x128x8/8x8@2x", "@2", "128x128x8/8x8/k",
                             "128x128x8/8x8/k1", "128x128x8/8x8/k2@2", "128x128x8/8x8/k2x", "/k2"}) {
        EXPECT_FALSE(matmul::parse_tiles(text)) << "'" << text << "'";
    }
}

TEST(MatmulBlockedTilesRule, SizesTheKernelCannotTakeAreRefusedNamingTheRule)
{
    const auto devices = all_devices();
    if (devices.empty()) {
        GTEST_SKIP() << "no device";
    }
    // 7 does not divide 128; 128 × 8 elements of A do not share out over 48 × 16 threads; no SM
    // is held to 5 blocks; K is not split in 17.
    for (const matmul::BlockedTiles& tiles :
         {matmul::BlockedTiles{128, 128, 8, 7, 8}, matmul::BlockedTiles{96, 128, 8, 2, 8},
          matmul::BlockedTiles{128, 128, 8, 8, 8, 5}, matmul::BlockedTiles{128, 128, 8, 8, 8, 1, 17}}) {
        auto error = expect_error<InvalidArgument>([&] { matmul::Launcher(devices.front(), "blocked", tiles); });
        if (error) {
            DUET_EXPECT_MENTIONS(*error, tiles.name());
        }
    }
}

TEST(MatmulLauncherVariants, AnUnknownVariantIsNotFoundListingTheOthers)
{
    const auto devices = all_devices();
    if (devices.empty()) {
        GTEST_SKIP() << "no device";
    }
    auto error = expect_error<NotFound>([&] { matmul::Launcher(devices.front(), "tiled64"); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "tiled64", "tiled16", "naive", "blas");
    }
}

// --- the check: which rows it compares, and that it fails a wrong element ---

TEST(MatmulCheck, ProductsBelowTheLimitAreCheckedWhole)
{
    const matmul::Shape shape{300, 200, 100};
    const auto rows = matmul::rows_to_check(shape, 3, test_seed());
    ASSERT_EQ(rows.size(), shape.m);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i], i);
    }
}

TEST(MatmulCheck, LargeProductsKeepTheEdgeRowsOfASample)
{
    const matmul::Shape shape{4096, 4096, 4096};
    const std::size_t batch = 2;
    const auto rows = matmul::rows_to_check(shape, batch, test_seed());
    ASSERT_LT(rows.size(), shape.m);
    EXPECT_EQ(rows.front(), 0u);
    EXPECT_EQ(rows.back(), shape.m - 1);
    EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
    EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end()) << "a row is listed twice";
    const double work = static_cast<double>(rows.size()) * shape.n * shape.k * batch;
    EXPECT_LE(work, matmul::full_check_limit);
    EXPECT_GT(work, matmul::full_check_limit / 2);
}

TEST(MatmulCheck, OneWrongOrUnwrittenElementFails)
{
    const matmul::Shape shape{20, 30, 40};
    const auto a = random_floats(shape.m * shape.k, test_seed());
    const auto b = random_floats(shape.k * shape.n, test_seed() + 1);
    std::vector<double> want(shape.m * shape.n);
    matmul::reference(a, b, want, shape);
    std::vector<float> c(want.begin(), want.end());
    const auto rows = matmul::rows_to_check(shape, 1, test_seed());
    const double tolerance = matmul::tolerance(shape);
    EXPECT_LE(matmul::max_error(c, want, a, b, rows, shape), tolerance) << "the reference rounded to float";

    // Σ|a·b| is at most 40 × 4 here, so 0.01 is over 6e-5 of it: above the tolerance of 9.5e-6.
    c[7 * shape.n + 11] += 0.01f;
    EXPECT_GT(matmul::max_error(c, want, a, b, rows, shape), tolerance);
    c[7 * shape.n + 11] = poison();
    EXPECT_EQ(matmul::max_error(c, want, a, b, rows, shape), std::numeric_limits<double>::infinity());
}

// --- the overlapped and forkjoin schedules' figures ---

class MatmulSchedules : public DeviceTest {
protected:
    // Four checked products of a size no tile divides on `schedule`, and its extras by name, each
    // of `names` there and positive.
    std::map<std::string, double> run_schedule(const std::string& schedule, std::initializer_list<const char*> names)
    {
        const auto workload = WorkloadRegistry::global().find("matmul");
        const auto info = workload->info();
        const std::map<std::string, std::string> values{
            {"m", "64"}, {"n", "48"}, {"k", "80"}, {"batch", "4"}, {"schedule", schedule}};
        result = run_within_limits(*workload, {device(), "tiled16", Settings(info, values), true, test_seed(), {}});
        EXPECT_TRUE(result.verified);
        EXPECT_LE(result.max_error, result.tolerance) << result.tolerance_reason;
        EXPECT_EQ(result.output.size(), 4u * 64 * 48);
        std::map<std::string, double> extras(result.extras.begin(), result.extras.end());
        for (const char* name : names) {
            EXPECT_TRUE(extras.count(name)) << "no extra named " << name;
            EXPECT_GT(extras[name], 0.0) << name;
        }
        return extras;
    }
    Measurement result;
};

TEST_P(MatmulSchedules, OverlappedReportsThePhasesAloneAndTheRatios)
{
    auto extras =
        run_schedule("overlapped", {"copy_ms", "kernel_only_ms", "overlapped_ms", "overlapped_over_max_copy_kernel",
                                    "sequential_ms", "overlapped_over_sequential", "total_gflops", "cpu_speedup"});
    // h2d and d2h are the copies alone, kernel the kernels alone, total the overlapped run.
    EXPECT_DOUBLE_EQ(extras["copy_ms"], result.h2d_ms + result.d2h_ms);
    EXPECT_DOUBLE_EQ(extras["kernel_only_ms"], result.kernel_ms);
    EXPECT_DOUBLE_EQ(extras["overlapped_ms"], result.total_ms);
    EXPECT_DOUBLE_EQ(extras["overlapped_over_max_copy_kernel"],
                     result.total_ms / std::max(extras["copy_ms"], extras["kernel_only_ms"]));
    EXPECT_DOUBLE_EQ(extras["overlapped_over_sequential"], result.total_ms / extras["sequential_ms"]);
    EXPECT_DOUBLE_EQ(extras["cpu_speedup"], result.reference_ms / result.total_ms);
}

TEST_P(MatmulSchedules, ForkjoinReportsItsTimeAgainstSequentialAndOverlapped)
{
    auto extras = run_schedule("forkjoin", {"forkjoin_ms", "sequential_ms", "overlapped_ms", "forkjoin_over_sequential",
                                            "forkjoin_over_overlapped", "total_gflops"});
    // Its result is checked above: without the join, PoCL's reads overtook the products here and
    // read poison. h2d, kernel and d2h are the phases alone, as for overlapped; total is the fork
    // to the last read.
    EXPECT_GT(result.h2d_ms, 0.0);
    EXPECT_GT(result.kernel_ms, 0.0);
    EXPECT_GT(result.d2h_ms, 0.0);
    EXPECT_DOUBLE_EQ(extras["forkjoin_ms"], result.total_ms);
    EXPECT_DOUBLE_EQ(extras["forkjoin_over_sequential"], result.total_ms / extras["sequential_ms"]);
    EXPECT_DOUBLE_EQ(extras["forkjoin_over_overlapped"], result.total_ms / extras["overlapped_ms"]);
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(MatmulSchedules);

// --- the blocked variant's `tiles` setting: two APIs compared at the same tiles ---

// "auto" first (the tuner's), then every candidate, each by the name that reads back as it.
TEST(MatmulTilesSetting, AutoAndEveryCandidateByName)
{
    const auto choices = matmul::tile_choices();
    ASSERT_EQ(choices.size(), matmul::blocked_candidates().size() + 1);
    EXPECT_EQ(choices.front(), "auto");
    for (std::size_t i = 1; i < choices.size(); ++i) {
        EXPECT_EQ(matmul::parse_tiles(choices[i]), std::optional(matmul::blocked_candidates()[i - 1])) << choices[i];
    }
}

class MatmulTiles : public DeviceTest {};

// 32x64x16/4x4 launches blocks of 64 / 4 × 32 / 4 = 16 × 8 threads, which no tuner's choice on a
// CPU device (its one size class, 256³) would: the blocks launched say the setting was built, and
// the product agrees with the reference on sizes no tile divides; /k2 adds its second kernel. N of
// 66 takes the kernel for any shape, N of 68 (K and N multiples of 4) the one with the float4 paths
// alone.
TEST_P(MatmulTiles, ASettingBuildsThoseTilesInsteadOfTheTunersChoice)
{
    const auto workload = WorkloadRegistry::global().find("matmul");
    const auto info = workload->info();
    for (const char* tiles : {"32x64x16/4x4", "64x64x16/8x8/k2"}) {
        for (const auto& [n, entry, other] : {std::tuple{"66", "matmul_blocked", "matmul_blocked_aligned"},
                                              std::tuple{"68", "matmul_blocked_aligned", "matmul_blocked"}}) {
            SCOPED_TRACE(std::string(tiles) + ", n = " + n);
            const std::map<std::string, std::string> values{{"m", "70"}, {"n", n}, {"k", "52"}, {"tiles", tiles}};
            std::vector<LaunchRecord> launches;
            Measurement result;
            {
                const LaunchLog log(device());
                result =
                    run_within_limits(*workload, {device(), "blocked", Settings(info, values), true, test_seed(), {}});
                launches = log.launches();
            }
            EXPECT_TRUE(result.verified);
            EXPECT_LE(result.max_error, result.tolerance) << result.tolerance_reason;
            const auto want = *matmul::parse_tiles(tiles);
            const auto launched = [&](const std::string& name) {
                return std::count_if(launches.begin(), launches.end(),
                                     [&](const LaunchRecord& launch) { return launch.kernel.name() == name; });
            };
            ASSERT_GT(launched(entry), 0);
            EXPECT_EQ(launched(other), 0);
            for (const auto& launch : launches) {
                if (launch.kernel.name() == entry) {
                    EXPECT_EQ(launch.range.block.x, want.bn / want.tn);
                    EXPECT_EQ(launch.range.block.y, want.bm / want.tm);
                }
            }
            EXPECT_EQ(launched("matmul_sum_splits") > 0, want.split_k > 1);
        }
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(MatmulTiles);

} // namespace
} // namespace duet::test
