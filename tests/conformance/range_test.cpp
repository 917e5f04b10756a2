// Launch geometry: Range::cover's arithmetic, 1D/2D/3D launches covering exactly their items,
// and every range that breaks a device or kernel limit refused before the launch, naming it.
#include <algorithm>
#include <limits>

#include "duet_test.hpp"

namespace duet::test {
namespace {

// --- arithmetic, no device needed ---

TEST(RangeMath, CoverRoundsUpToWholeBlocks)
{
    EXPECT_EQ(Range::cover(1, 64).grid.x, 1u);
    EXPECT_EQ(Range::cover(64, 64).grid.x, 1u);
    EXPECT_EQ(Range::cover(65, 64).grid.x, 2u);
    EXPECT_EQ(Range::cover(1000003, 256).grid.x, 3907u);
    EXPECT_EQ(Range::cover(7, 1).grid.x, 7u);
    EXPECT_EQ(Range::cover(0, 64).grid.x, 0u);
    EXPECT_EQ(Range::cover(100, 0).grid.x, 0u) << "a zero block must give an empty range, not a division by zero";

    const Range r = Range::cover(257, 64);
    EXPECT_EQ(r.dims, 1u);
    EXPECT_EQ(r.block.x, 64u);
    EXPECT_EQ(r.grid.y, 1u);
    EXPECT_EQ(r.grid.z, 1u);
    EXPECT_EQ(r.block.y, 1u);
    EXPECT_EQ(r.block.z, 1u);
    EXPECT_EQ(r.global().x, 320u);
    EXPECT_EQ(r.global().y, 1u);
}

TEST(RangeMath, CoverInThreeDimensions)
{
    const Range r = Range::cover(3, Dim3{17, 5, 3}, Dim3{8, 4, 2});
    EXPECT_EQ(r.dims, 3u);
    EXPECT_EQ(r.grid.x, 3u);
    EXPECT_EQ(r.grid.y, 2u);
    EXPECT_EQ(r.grid.z, 2u);
    const Dim3 global = r.global();
    EXPECT_EQ(global.x, 24u);
    EXPECT_EQ(global.y, 8u);
    EXPECT_EQ(global.z, 4u);
}

TEST(RangeMath, GridBlockKeepsWhatItIsGiven)
{
    const Range r = Range::grid_block(2, Dim3{3, 4, 1}, Dim3{16, 8, 1});
    EXPECT_EQ(r.dims, 2u);
    EXPECT_EQ(r.grid.x, 3u);
    EXPECT_EQ(r.grid.y, 4u);
    EXPECT_EQ(r.block.x, 16u);
    EXPECT_EQ(r.block.y, 8u);
    const Range one = Range::grid_block(5, 32);
    EXPECT_EQ(one.dims, 1u);
    EXPECT_EQ(one.global().x, 160u);
}

// --- launches ---

class RangeConformance : public DeviceTest {
protected:
    // Runs index_3d over an nx × ny × nz box and checks each cell was visited once, at its place.
    void check_cover(std::uint32_t dims, Dim3 items, Dim3 block)
    {
        SCOPED_TRACE(dec(dims) + "D, items " + dec(items.x) + "x" + dec(items.y) + "x" + dec(items.z) + ", block " +
                     dec(block.x) + "x" + dec(block.y) + "x" + dec(block.z));
        const std::size_t cells = items.x * items.y * items.z;
        Buffer<std::uint32_t> coords = make_buffer(device(), queue(), std::vector<std::uint32_t>(cells, ~0u));
        Buffer<std::uint32_t> hits = make_buffer(device(), queue(), std::vector<std::uint32_t>(cells, 0u));
        Buffer<std::uint32_t> mismatches = make_buffer(device(), queue(), std::vector<std::uint32_t>(1, 0u));
        queue().launch(test_kernel(device(), "index_3d"), Range::cover(dims, items, block), coords, hits, mismatches,
                       static_cast<std::uint32_t>(items.x), static_cast<std::uint32_t>(items.y),
                       static_cast<std::uint32_t>(items.z));
        const auto got_coords = download(queue(), coords);
        const auto got_hits = download(queue(), hits);
        EXPECT_EQ(download(queue(), mismatches).at(0), 0u) << "global id != group * block + local";
        std::size_t wrong = 0;
        for (std::size_t z = 0; z < items.z; ++z) {
            for (std::size_t y = 0; y < items.y; ++y) {
                for (std::size_t x = 0; x < items.x; ++x) {
                    const std::size_t cell = (z * items.y + y) * items.x + x;
                    const auto expected = static_cast<std::uint32_t>(x | (y << 10) | (z << 20));
                    if (got_hits[cell] != 1 || got_coords[cell] != expected) {
                        if (wrong++ < 5) {
                            ADD_FAILURE() << "cell (" << x << ", " << y << ", " << z << "): " << got_hits[cell]
                                          << " visits, coordinates 0x" << std::hex << got_coords[cell];
                        }
                    }
                }
            }
        }
        EXPECT_EQ(wrong, 0u);
    }

    // Tries `range` with fill_value over a buffer of random data and expects it refused with E,
    // the message naming one of `limits`, and the buffer untouched.
    template <class E = InvalidArgument>
    void expect_refused(const Range& range, std::initializer_list<std::string> limits, bool with_local = false,
                        std::size_t local_bytes = 0)
    {
        const std::vector<float> initial = random_floats(256, test_seed());
        Buffer<float> out = make_buffer(device(), queue(), initial);
        std::optional<E> error;
        if (with_local) {
            error = expect_error<E>([&] {
                queue().launch(test_kernel(device(), "reduce_sum"), range, out, out, LocalMemory{local_bytes}, 256u);
            });
        } else {
            error =
                expect_error<E>([&] { queue().launch(test_kernel(device(), "fill_value"), range, out, 1.0f, 256u); });
        }
        if (error) {
            EXPECT_TRUE(mentions(error->what(), limits));
        }
        queue().finish();
        EXPECT_TRUE(bitwise_equal(initial, download(queue(), out))) << "a refused launch ran";
    }

    std::string kernel_limit(const char* name) { return dec(test_kernel(device(), name).properties().max_block_size); }
};

TEST_P(RangeConformance, OneDimensionalLaunchCoversItsItemsOnce)
{
    check_cover(1, {1, 1, 1}, {1, 1, 1});
    check_cover(1, {1000, 1, 1}, {64, 1, 1});
    check_cover(1, {4097, 1, 1}, {256, 1, 1});
}

TEST_P(RangeConformance, TwoDimensionalLaunchCoversItsItemsOnce)
{
    check_cover(2, {37, 19, 1}, {8, 4, 1});
    check_cover(2, {1, 300, 1}, {1, 16, 1});
}

TEST_P(RangeConformance, ThreeDimensionalLaunchCoversItsItemsOnce)
{
    check_cover(3, {17, 9, 5}, {4, 4, 2});
    check_cover(3, {3, 3, 70}, {1, 1, 8});
}

TEST_P(RangeConformance, BlockOfTheKernelsLimitLaunches)
{
    // The limit itself is allowed: validation is not off by one.
    const Kernel kernel = test_kernel(device(), "fill_value");
    const std::size_t block = std::min<std::uint64_t>(kernel.properties().max_block_size, props().max_block_dims[0]);
    const std::size_t n = block * 3 + 1;
    Buffer<float> out = device().alloc<float>(n);
    queue().launch(kernel, Range::cover(n, block), out, 4.0f, static_cast<std::uint32_t>(n));
    EXPECT_TRUE(bitwise_equal(std::vector<float>(n, 4.0f), download(queue(), out)));
}

// A limit of the device is Unsupported (another device may launch the range), naming the limit; a
// block that the kernel's own declaration rules out is the caller's error on every device, so
// InvalidArgument, and comes first where both apply.
TEST_P(RangeConformance, BlockAboveTheDeviceMaximumIsUnsupported)
{
    const std::uint64_t max = props().max_block_size;
    expect_refused<Unsupported>(
        Range::grid_block(1, max + 1),
        {"max_block_size " + dec(max), "max_block_dims[0] = " + dec(props().max_block_dims[0])});
}

// A block the device takes but this kernel's registers, or its driver, rule out is a limit of this
// device too; where the kernel's limit is the device's, the device's refusal comes first.
TEST_P(RangeConformance, BlockAboveTheKernelMaximumIsRefused)
{
    const KernelProperties kernel = test_kernel(device(), "fill_value").properties();
    const std::uint64_t kernel_max = kernel.max_block_size;
    const std::initializer_list<std::string> limits{dec(kernel_max), dec(props().max_block_size),
                                                    dec(props().max_block_dims[0])};
    if (kernel.max_block_limit == BlockLimit::declared) {
        expect_refused(Range::grid_block(1, kernel_max + 1), limits);
    } else {
        expect_refused<Unsupported>(Range::grid_block(1, kernel_max + 1), limits);
    }
}

TEST_P(RangeConformance, BlockDimensionAboveItsMaximumIsUnsupported)
{
    for (const int d : {1, 2}) {
        SCOPED_TRACE("dimension " + dec(d));
        const std::uint64_t max = props().max_block_dims[d];
        Dim3 block{1, 1, 1};
        (d == 1 ? block.y : block.z) = max + 1;
        // The per-dimension limit, or where the block is also above the device's whole maximum, that.
        expect_refused<Unsupported>(
            Range::grid_block(3, {1, 1, 1}, block),
            {"max_block_dims[" + dec(d) + "] = " + dec(max), "max_block_size " + dec(props().max_block_size)});
    }
}

TEST_P(RangeConformance, GridAboveItsMaximumIsUnsupported)
{
    bool tried = false;
    for (const int d : {0, 1, 2}) {
        const std::uint64_t max = props().max_grid_dims[d];
        if (max >= std::numeric_limits<std::size_t>::max()) {
            continue; // no grid above it exists; the overflow case covers this dimension
        }
        SCOPED_TRACE("dimension " + dec(d));
        tried = true;
        Dim3 grid{1, 1, 1};
        (d == 0 ? grid.x : d == 1 ? grid.y : grid.z) = max + 1;
        expect_refused<Unsupported>(Range::grid_block(3, grid, {1, 1, 1}),
                                    {"max_grid_dims[" + dec(d) + "] = " + dec(max)});
    }
    if (!tried) {
        GTEST_SKIP() << "every max_grid_dims is SIZE_MAX here; GlobalSizeOverflowIsRefused covers it";
    }
}

TEST_P(RangeConformance, GlobalSizeOverflowIsRefused)
{
    // grid × block wraps around size_t: must be refused, never launched with the wrapped size.
    const std::size_t block = 2;
    const std::size_t grid = std::numeric_limits<std::size_t>::max() / 2 + 1;
    expect_refused(Range::grid_block(grid, block), {"overflow", dec(props().max_grid_dims[0]), "global", "grid"});
}

TEST_P(RangeConformance, LocalMemoryAboveTheLimitIsUnsupported)
{
    // Above both the default and the opt-in limit: no block of this device can grant it.
    const std::uint64_t limit = std::max(props().local_memory_per_block, props().local_memory_per_block_optin);
    expect_refused<Unsupported>(Range::grid_block(1, 64), {"local_memory_per_block " + dec(limit)}, true, limit + 1);
}

// A LocalMemory so large that adding the kernel's static bytes would wrap around is refused all the
// same (static_local has 256 static bytes), before the launch reaches the driver.
TEST_P(RangeConformance, LocalMemoryThatWrapsWithTheStaticBytesIsUnsupported)
{
    const Kernel kernel = test_kernel(device(), "static_local");
    if (kernel.properties().static_local_memory == 0) {
        // PoCL 5.0 (Ubuntu 24.04) answers CL_KERNEL_LOCAL_MEM_SIZE 0 for it; PoCL 3.1 answers 256.
        GTEST_SKIP() << "the API reports no static local memory for kernel 'static_local', so no size wraps with it";
    }
    Buffer<float> out = device().alloc<float>(64);
    const std::size_t wraps = std::numeric_limits<std::size_t>::max() - kernel.properties().static_local_memory + 1;
    if (auto error = expect_error<Unsupported>(
            [&] { queue().launch(kernel, Range::grid_block(1, 64), out, LocalMemory{wraps}, 64u); })) {
        DUET_EXPECT_MENTIONS(*error, "local_memory_per_block");
    }
}

TEST_P(RangeConformance, EmptyRangeIsRefused)
{
    expect_refused(Range::grid_block(0, 64), {"empty", "zero", "0"});
    expect_refused(Range::grid_block(4, 0), {"empty", "zero", "0"});
    expect_refused(Range::grid_block(2, {4, 0, 1}, {8, 8, 1}), {"empty", "zero", "0"});
    expect_refused(Range::grid_block(3, {4, 4, 4}, {8, 8, 0}), {"empty", "zero", "0"});
}

TEST_P(RangeConformance, DimensionCountOutsideOneToThreeIsRefused)
{
    expect_refused(Range::grid_block(0, {4, 1, 1}, {8, 1, 1}), {"dims", "dimension", "3"});
    expect_refused(Range::grid_block(4, {4, 1, 1}, {8, 1, 1}), {"dims", "dimension", "3"});
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(RangeConformance);

} // namespace
} // namespace duet::test
