// Queue: copies in every direction, fills, rectangular copies in 2D and 3D, ordering between two
// queues, finish; and every bad copy or fill refused before it touches the destination.
#include <algorithm>
#include <cstring>
#include <limits>

#include "duet_test.hpp"

namespace duet::test {
namespace {

using Bytes = std::vector<unsigned char>;

Bytes random_bytes(std::size_t n, std::uint64_t seed)
{
    return random_values<unsigned char>(n, seed);
}

RawBuffer make_raw(const Device& device, Queue& queue, const Bytes& bytes)
{
    RawBuffer raw = device.alloc_bytes(bytes.size());
    queue.write_bytes(raw, 0, bytes.data(), bytes.size());
    queue.finish();
    return raw;
}

// The host model of a rectangular copy (cudaMemcpy3D's layout).
std::size_t rect_offset(const RectSide& side, std::size_t row, std::size_t slice)
{
    return side.origin_bytes + (side.origin_row + row) * side.row_pitch +
           (side.origin_slice + slice) * side.rows_per_slice * side.row_pitch;
}

void model_rect(Bytes& dst, const RectSide& dst_side, const Bytes& src, const RectSide& src_side, const Extent& extent)
{
    for (std::size_t z = 0; z < extent.depth; ++z) {
        for (std::size_t y = 0; y < extent.height; ++y) {
            std::memcpy(dst.data() + rect_offset(dst_side, y, z), src.data() + rect_offset(src_side, y, z),
                        extent.width_bytes);
        }
    }
}

class QueueConformance : public DeviceTest {
protected:
    // A buffer of known random bytes, and a check that a refused call left it as it was.
    RawBuffer make_target(std::size_t bytes)
    {
        initial_ = random_bytes(bytes, test_seed() ^ 0x5eed);
        return make_raw(device(), queue(), initial_);
    }
    ::testing::AssertionResult untouched(const RawBuffer& target)
    {
        queue().finish();
        if (download_bytes(queue(), target) == initial_) {
            return ::testing::AssertionSuccess();
        }
        return ::testing::AssertionFailure() << "a refused call changed the destination buffer";
    }

    Bytes initial_;
};

TEST_P(QueueConformance, WriteThenReadRoundTrips)
{
    for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{255}, std::size_t{257}, std::size_t{65537},
                                (std::size_t{1} << 20) + 3}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const std::vector<float> values = random_floats(n, test_seed() + n);
        Buffer<float> buffer = device().alloc<float>(n);
        EXPECT_EQ(buffer.size(), n);
        upload(queue(), buffer, values);
        EXPECT_TRUE(bitwise_equal(values, download(queue(), buffer)));
    }
}

TEST_P(QueueConformance, WriteThroughAViewTouchesOnlyTheView)
{
    const std::vector<float> initial = random_floats(100, test_seed());
    const std::vector<float> patch = random_floats(33, test_seed() + 1);
    Buffer<float> buffer = make_buffer(device(), queue(), initial);
    queue().write(buffer.view(17, 33), std::span<const float>(patch));
    queue().finish();

    std::vector<float> expected = initial;
    std::copy(patch.begin(), patch.end(), expected.begin() + 17);
    EXPECT_TRUE(bitwise_equal(expected, download(queue(), buffer)));
}

TEST_P(QueueConformance, ReadThroughAViewReadsOnlyTheView)
{
    const std::vector<float> initial = random_floats(100, test_seed());
    Buffer<float> buffer = make_buffer(device(), queue(), initial);
    std::vector<float> out(10, poison());
    queue().read(std::span<float>(out), buffer.view(5, 10));
    queue().finish();
    EXPECT_TRUE(bitwise_equal(std::span<const float>(initial).subspan(5, 10), out));
}

TEST_P(QueueConformance, CopyBetweenBuffersHonoursBothOffsets)
{
    const std::vector<float> a = random_floats(257, test_seed());
    const std::vector<float> b = random_floats(300, test_seed() + 1);
    Buffer<float> src = make_buffer(device(), queue(), a);
    Buffer<float> dst = make_buffer(device(), queue(), b);
    queue().copy(dst.view(5, 250), src.view(3, 250));
    queue().finish();

    std::vector<float> expected = b;
    std::copy(a.begin() + 3, a.begin() + 253, expected.begin() + 5);
    EXPECT_TRUE(bitwise_equal(expected, download(queue(), dst)));
    EXPECT_TRUE(bitwise_equal(a, download(queue(), src))) << "the copy changed its source";
}

TEST_P(QueueConformance, CopyWithinOneBuffer)
{
    const std::vector<float> a = random_floats(1000, test_seed());
    Buffer<float> buffer = make_buffer(device(), queue(), a);
    queue().copy(buffer.view(600, 399), buffer.view(1, 399));
    queue().finish();
    std::vector<float> expected = a;
    std::copy(a.begin() + 1, a.begin() + 400, expected.begin() + 600);
    EXPECT_TRUE(bitwise_equal(expected, download(queue(), buffer)));
}

template <class T> void check_fill(Queue& queue, const Device& device, T value, std::size_t n)
{
    const std::vector<T> initial = random_values<T>(n, test_seed() + sizeof(T));
    Buffer<T> buffer = make_buffer(device, queue, initial);
    queue.fill(buffer.view(3, n - 10), value);
    queue.finish();
    std::vector<T> expected = initial;
    std::fill(expected.begin() + 3, expected.end() - 7, value);
    EXPECT_TRUE(same_bytes(expected, download(queue, buffer))) << "pattern of " << sizeof(T) << " bytes";
}

TEST_P(QueueConformance, FillWritesItsPatternOverTheRangeOnly)
{
    check_fill<std::uint8_t>(queue(), device(), 0xa5, 1001);
    check_fill<std::uint16_t>(queue(), device(), 0xbeef, 1001);
    check_fill<std::uint32_t>(queue(), device(), 0xdeadbeefu, 65539);

    // A float NaN payload survives the fill bit for bit (the agreement tests poison outputs so).
    const std::vector<float> initial = random_floats(77, test_seed());
    Buffer<float> buffer = make_buffer(device(), queue(), initial);
    queue().fill(BufferView<float>(buffer), poison());
    queue().finish();
    EXPECT_TRUE(bitwise_equal(std::vector<float>(77, poison()), download(queue(), buffer)));
}

TEST_P(QueueConformance, FillWithAnEightBytePattern)
{
    check_fill<std::uint64_t>(queue(), device(), 0x0123456789abcdefull, 1001);
}

// --- rectangular copies ---

struct RectCase {
    const char* name;
    RectSide device_side; // inside a device buffer of device_bytes
    RectSide host_side;
    Extent extent;
    std::size_t device_bytes;
    std::size_t host_bytes;
};

std::vector<RectCase> rect_cases()
{
    return {
        // 2D: 13 rows of 37 bytes, device rows 64 apart from (5, 2), host rows 40 apart from (1, 3).
        {"2D", {5, 2, 0, 64, 20}, {1, 3, 0, 40, 17}, {37, 13, 1}, 64 * 20, 40 * 17},
        // 3D: 3 slices of 5 rows of 21 bytes, origins in every dimension.
        {"3D", {3, 1, 1, 48, 7}, {2, 2, 0, 24, 9}, {21, 5, 3}, 48 * 7 * 4, 24 * 9 * 3},
        // One full-width row: pitch equal to the width.
        {"dense", {0, 0, 0, 16, 4}, {0, 0, 0, 16, 4}, {16, 4, 2}, 16 * 4 * 2, 16 * 4 * 2},
    };
}

TEST_P(QueueConformance, WriteRectPlacesEachRowAtItsPitch)
{
    for (const RectCase& c : rect_cases()) {
        SCOPED_TRACE(c.name);
        const Bytes host = random_bytes(c.host_bytes, test_seed() + 1);
        RawBuffer target = make_target(c.device_bytes);
        queue().write_rect(target, c.device_side, host.data(), c.host_side, c.extent);
        queue().finish();
        Bytes expected = initial_;
        model_rect(expected, c.device_side, host, c.host_side, c.extent);
        EXPECT_TRUE(download_bytes(queue(), target) == expected);
    }
}

TEST_P(QueueConformance, ReadRectGathersEachRowFromItsPitch)
{
    for (const RectCase& c : rect_cases()) {
        SCOPED_TRACE(c.name);
        RawBuffer source = make_target(c.device_bytes);
        Bytes host = random_bytes(c.host_bytes, test_seed() + 2);
        Bytes expected = host;
        queue().read_rect(host.data(), c.host_side, source, c.device_side, c.extent);
        queue().finish();
        model_rect(expected, c.host_side, initial_, c.device_side, c.extent);
        EXPECT_TRUE(host == expected);
    }
}

TEST_P(QueueConformance, CopyRectBetweenDeviceBuffers)
{
    for (const RectCase& c : rect_cases()) {
        SCOPED_TRACE(c.name);
        const Bytes source_bytes = random_bytes(c.host_bytes, test_seed() + 3);
        RawBuffer source = make_raw(device(), queue(), source_bytes);
        RawBuffer target = make_target(c.device_bytes);
        queue().copy_rect(target, c.device_side, source, c.host_side, c.extent);
        queue().finish();
        Bytes expected = initial_;
        model_rect(expected, c.device_side, source_bytes, c.host_side, c.extent);
        EXPECT_TRUE(download_bytes(queue(), target) == expected);
    }
}

// --- ordering ---

TEST_P(QueueConformance, RecordAndWaitOrderTwoQueues)
{
    // A slow kernel on the first queue writes 7s; the second queue waits for its event, then
    // copies: without the wait it would copy the old values.
    const std::size_t n = is_cpu() ? (std::size_t{1} << 14) : (std::size_t{1} << 20);
    const std::uint32_t iterations = is_cpu() ? 3000 : 20000;
    const Kernel spin = test_kernel(device(), "spin");
    const std::size_t block = std::min<std::uint64_t>(64, spin.properties().max_block_size);

    const std::vector<float> initial = random_floats(n, test_seed());
    Buffer<float> data = make_buffer(device(), queue(), initial);
    Buffer<float> copy = device().alloc<float>(n);

    Queue second = device().create_queue();
    queue().launch(spin, Range::cover(n, block), data, 7.0f, iterations, static_cast<std::uint32_t>(n));
    const Event done = queue().record();
    second.wait(done);
    second.copy(copy.view(0, n), data.view(0, n));
    second.finish();
    EXPECT_TRUE(done.complete());
    EXPECT_TRUE(bitwise_equal(std::vector<float>(n, 7.0f), download(second, copy)));
}

TEST_P(QueueConformance, FinishReleasesTheHostMemoryOfEarlierCopies)
{
    const std::vector<float> expected = random_floats(4097, test_seed());
    Buffer<float> buffer = device().alloc<float>(expected.size());
    {
        auto temporary = std::make_unique<std::vector<float>>(expected);
        queue().write(BufferView<float>(buffer), std::span<const float>(*temporary));
        queue().finish();
        std::fill(temporary->begin(), temporary->end(), 0.0f); // after finish, the copy no longer reads it
    }
    EXPECT_TRUE(bitwise_equal(expected, download(queue(), buffer)));
}

TEST_P(QueueConformance, NativeQueueIsStable)
{
    void* first = queue().native();
    EXPECT_NE(first, nullptr);
    EXPECT_EQ(first, queue().native());
    EXPECT_TRUE(queue().device() == device());
}

// --- bad input: refused before anything is enqueued, destination unchanged ---

TEST_P(QueueConformance, WritePastTheEndIsRefused)
{
    RawBuffer target = make_target(256);
    const Bytes source = random_bytes(512, test_seed());
    for (const auto& [offset, bytes] : {std::pair<std::size_t, std::size_t>{200, 100},
                                        {256, 1},
                                        {0, 257},
                                        {std::numeric_limits<std::size_t>::max() - 2, 8}}) {
        SCOPED_TRACE("offset " + dec(offset) + ", " + dec(bytes) + " bytes");
        auto error = expect_error<InvalidArgument>([&] { queue().write_bytes(target, offset, source.data(), bytes); });
        if (error) {
            // The buffer's size, or, where offset + size wraps around, the overflow.
            DUET_EXPECT_MENTIONS(*error, dec(256), "overflow");
        }
    }
    EXPECT_TRUE(untouched(target));
}

TEST_P(QueueConformance, ReadPastTheEndIsRefused)
{
    RawBuffer source = make_target(256);
    Bytes host = random_bytes(512, test_seed());
    const Bytes before = host;
    auto error = expect_error<InvalidArgument>([&] { queue().read_bytes(host.data(), source, 250, 10); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, dec(256));
    }
    queue().finish();
    EXPECT_TRUE(host == before) << "a refused read wrote host memory";
}

TEST_P(QueueConformance, CopyPastEitherEndIsRefused)
{
    RawBuffer target = make_target(256);
    RawBuffer source = make_raw(device(), queue(), random_bytes(128, test_seed()));
    auto past_source = expect_error<InvalidArgument>([&] { queue().copy_bytes(target, 0, source, 64, 65); });
    if (past_source) {
        DUET_EXPECT_MENTIONS(*past_source, dec(128));
    }
    auto past_target = expect_error<InvalidArgument>([&] { queue().copy_bytes(target, 200, source, 0, 100); });
    if (past_target) {
        DUET_EXPECT_MENTIONS(*past_target, dec(256));
    }
    EXPECT_TRUE(untouched(target));
}

TEST_P(QueueConformance, FillPastTheEndIsRefused)
{
    RawBuffer target = make_target(256);
    const std::uint32_t pattern = 0x01020304;
    auto error = expect_error<InvalidArgument>([&] { queue().fill_bytes(target, 128, 132, &pattern, 4); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, dec(256));
    }
    EXPECT_TRUE(untouched(target));
}

TEST_P(QueueConformance, FillOffsetOrSizeNotAMultipleOfThePatternIsRefused)
{
    RawBuffer target = make_target(256);
    const std::uint32_t pattern = 0x01020304;
    expect_error<InvalidArgument>([&] { queue().fill_bytes(target, 2, 8, &pattern, 4); });
    expect_error<InvalidArgument>([&] { queue().fill_bytes(target, 0, 10, &pattern, 4); });
    EXPECT_TRUE(untouched(target));
}

TEST_P(QueueConformance, NullHostPointerIsRefused)
{
    RawBuffer target = make_target(256);
    auto write = expect_error<InvalidArgument>([&] { queue().write_bytes(target, 0, nullptr, 16); });
    if (write) {
        DUET_EXPECT_MENTIONS(*write, "null");
    }
    auto read = expect_error<InvalidArgument>([&] { queue().read_bytes(nullptr, target, 0, 16); });
    if (read) {
        DUET_EXPECT_MENTIONS(*read, "null");
    }
    const RectSide side{0, 0, 0, 16, 4};
    expect_error<InvalidArgument>([&] { queue().write_rect(target, side, nullptr, side, Extent{16, 4, 1}); });
    expect_error<InvalidArgument>([&] { queue().read_rect(nullptr, side, target, side, Extent{16, 4, 1}); });
    const std::uint32_t* no_pattern = nullptr;
    expect_error<InvalidArgument>([&] { queue().fill_bytes(target, 0, 16, no_pattern, 4); });
    EXPECT_TRUE(untouched(target));
}

TEST_P(QueueConformance, EmptyBufferHandleIsRefused)
{
    const Bytes host = random_bytes(16, test_seed());
    expect_error<InvalidArgument>([&] { queue().write_bytes(RawBuffer{}, 0, host.data(), host.size()); });
}

TEST_P(QueueConformance, ViewPastTheEndOrCountMismatchIsRefused)
{
    const std::vector<float> initial = random_floats(64, test_seed());
    Buffer<float> buffer = make_buffer(device(), queue(), initial);
    const std::vector<float> ten = random_floats(10, test_seed() + 1);
    auto past = expect_error<InvalidArgument>([&] { queue().write(buffer.view(60, 10), std::span<const float>(ten)); });
    if (past) {
        DUET_EXPECT_MENTIONS(*past, dec(64 * sizeof(float)), dec(64));
    }
    auto mismatch =
        expect_error<InvalidArgument>([&] { queue().write(buffer.view(0, 9), std::span<const float>(ten)); });
    if (mismatch) {
        DUET_EXPECT_MENTIONS(*mismatch, "9", "10");
    }
    EXPECT_TRUE(bitwise_equal(initial, download(queue(), buffer)));
}

TEST_P(QueueConformance, RectWhosePitchIsSmallerThanItsRowIsRefused)
{
    RawBuffer target = make_target(64 * 16);
    const Bytes host = random_bytes(64 * 16, test_seed());
    const Extent extent{40, 8, 1};
    const RectSide good{0, 0, 0, 64, 16};
    const RectSide narrow{0, 0, 0, 32, 16}; // 32-byte rows cannot hold 40 bytes
    auto device_side =
        expect_error<InvalidArgument>([&] { queue().write_rect(target, narrow, host.data(), good, extent); });
    if (device_side) {
        DUET_EXPECT_MENTIONS(*device_side, "pitch", dec(32));
    }
    auto host_side =
        expect_error<InvalidArgument>([&] { queue().write_rect(target, good, host.data(), narrow, extent); });
    if (host_side) {
        DUET_EXPECT_MENTIONS(*host_side, "pitch", dec(32));
    }
    expect_error<InvalidArgument>([&] { queue().copy_rect(target, narrow, target, good, extent); });

    Bytes out = random_bytes(64 * 16, test_seed() + 1);
    const Bytes before = out;
    expect_error<InvalidArgument>([&] { queue().read_rect(out.data(), narrow, target, good, extent); });
    queue().finish();
    EXPECT_TRUE(out == before);
    EXPECT_TRUE(untouched(target));
}

TEST_P(QueueConformance, RectPastTheEndOfTheBufferIsRefused)
{
    RawBuffer target = make_target(64 * 16);
    const Bytes host = random_bytes(64 * 32, test_seed());
    const RectSide host_side{0, 0, 0, 64, 32};
    // 17 rows of 64 bytes need 1088 bytes; the buffer has 1024.
    auto rows = expect_error<InvalidArgument>([&] {
        queue().write_rect(target, RectSide{0, 0, 0, 64, 32}, host.data(), host_side, Extent{64, 17, 1});
    });
    if (rows) {
        DUET_EXPECT_MENTIONS(*rows, dec(64 * 16));
    }
    // More rows than a slice holds.
    auto slice_rows = expect_error<InvalidArgument>([&] {
        queue().write_rect(target, RectSide{0, 0, 0, 64, 16}, host.data(), host_side, Extent{64, 17, 1});
    });
    if (slice_rows) {
        DUET_EXPECT_MENTIONS(*slice_rows, dec(16));
    }
    // The origin pushes the last row over the end.
    expect_error<InvalidArgument>([&] {
        queue().write_rect(target, RectSide{8, 15, 0, 64, 16}, host.data(), host_side, Extent{60, 1, 1});
    });
    // Slices whose rows_per_slice is smaller than the extent's height overlap.
    auto slices = expect_error<InvalidArgument>([&] {
        queue().write_rect(target, RectSide{0, 0, 0, 64, 2}, host.data(), host_side, Extent{64, 4, 2});
    });
    if (slices) {
        DUET_EXPECT_MENTIONS(*slices, "slice", "rows_per_slice", dec(2));
    }
    EXPECT_TRUE(untouched(target));
}

// --- sizes that overflow size_t: refused naming the numbers, nothing enqueued ---

/// 2^62 + 1 elements: times 4 bytes it wraps to 4, so an unchecked product addresses element 1.
constexpr std::size_t wrapping_count = (std::size_t{1} << 62) + 1;

TEST_P(QueueConformance, TypedOffsetsAndCountsWhoseBytesOverflowAreRefused)
{
    const std::vector<float> initial = random_floats(64, test_seed());
    Buffer<float> buffer = make_buffer(device(), queue(), initial);
    Buffer<float> other = make_buffer(device(), queue(), random_floats(64, test_seed() + 1));
    const std::vector<float> one = random_floats(1, test_seed() + 2);
    std::vector<float> out(1, poison());
    const std::string count = dec(wrapping_count);
    const auto refused = [&](const char* what, auto&& call) {
        SCOPED_TRACE(what);
        if (auto error = expect_error<InvalidArgument>(call)) {
            DUET_EXPECT_MENTIONS(*error, count);
            DUET_EXPECT_MENTIONS(*error, "overflow");
        }
    };
    refused("write at the offset", [&] { queue().write(buffer.view(wrapping_count, 1), std::span<const float>(one)); });
    refused("read at the offset", [&] { queue().read(std::span<float>(out), buffer.view(wrapping_count, 1)); });
    refused("copy to the offset", [&] { queue().copy(buffer.view(wrapping_count, 1), other.view(0, 1)); });
    refused("copy from the offset", [&] { queue().copy(buffer.view(0, 1), other.view(wrapping_count, 1)); });
    refused("copy of the count", [&] { queue().copy(buffer.view(0, wrapping_count), other.view(0, wrapping_count)); });
    refused("fill at the offset", [&] { queue().fill(buffer.view(wrapping_count, 1), 7.0f); });
    refused("fill of the count", [&] { queue().fill(buffer.view(0, wrapping_count), 7.0f); });
    queue().finish();
    EXPECT_TRUE(bitwise_equal(initial, download(queue(), buffer))) << "a refused call wrote the buffer";
    EXPECT_TRUE(bitwise_equal(std::vector<float>(1, poison()), out)) << "a refused read wrote host memory";
}

TEST_P(QueueConformance, PitchedDimensionsWhoseProductOverflowsAreRefused)
{
    // A PitchedBuffer is a plain value: one made up by hand must not wrap its element count to 0.
    const std::size_t huge = std::size_t{1} << 32;
    RawBuffer target = make_target(1024);
    const PitchedBuffer<float> made_up(target, 64, huge, huge, 1);
    const std::vector<float> none;
    auto error = expect_error<InvalidArgument>([&] { queue().write(made_up, std::span<const float>(none)); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, dec(huge));
        DUET_EXPECT_MENTIONS(*error, "overflow");
    }
    EXPECT_TRUE(untouched(target));
}

TEST_P(QueueConformance, RectOriginsWhoseEndOverflowsAreRefused)
{
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    RawBuffer target = make_target(64 * 16 * 2);
    Bytes host = random_bytes(64 * 16 * 2, test_seed());
    const Bytes host_before = host;
    const RectSide fits{0, 0, 0, 64, 16}; // two slices of 16 rows of 64 bytes
    const auto refused = [&](const char* what, const char* names, auto&& call) {
        SCOPED_TRACE(what);
        if (auto error = expect_error<InvalidArgument>(call)) {
            DUET_EXPECT_MENTIONS(*error, names);
            DUET_EXPECT_MENTIONS(*error, "overflow");
        }
    };
    // origin_slice + depth - 1 wraps to 0 on the device side: the last slice seemed to be the first.
    const RectSide device_wraps{0, 0, max, 64, 16};
    refused("write_rect, device origin_slice", "origin_slice", [&] {
        queue().write_rect(target, device_wraps, host.data(), fits, Extent{64, 16, 2});
    });
    refused("read_rect, device origin_slice", "origin_slice", [&] {
        queue().read_rect(host.data(), fits, target, device_wraps, Extent{64, 16, 2});
    });
    refused("copy_rect, source origin_slice", "origin_slice", [&] {
        queue().copy_rect(target, fits, target, device_wraps, Extent{64, 16, 2});
    });
    // The host side has no size, yet its last slice must still be addressable.
    const RectSide host_far{0, 0, max, 64, 16};
    refused("write_rect, host origin_slice", "slice", [&] {
        queue().write_rect(target, fits, host.data(), host_far, Extent{64, 16, 1});
    });
    refused("read_rect, host origin_slice", "slice", [&] {
        queue().read_rect(host.data(), host_far, target, fits, Extent{64, 16, 1});
    });
    refused("write_rect, origin_row", "origin_row", [&] {
        queue().write_rect(target, RectSide{0, max, 0, 64, 16}, host.data(), fits, Extent{64, 1, 1});
    });
    refused("read_rect, origin_bytes", "origin_bytes", [&] {
        queue().read_rect(host.data(), RectSide{max, 0, 0, 64, 16}, target, fits, Extent{64, 1, 1});
    });
    queue().finish();
    EXPECT_TRUE(host == host_before) << "a refused read wrote host memory";
    EXPECT_TRUE(untouched(target));
}

// --- objects of another device ---

// A moved-from Queue holds no queue: every use is refused, none crashes.
TEST_P(QueueConformance, AMovedFromQueueRefusesEveryUse)
{
    Queue moved = device().create_queue();
    const Queue taken = std::move(moved);
    Buffer<float> buffer = device().alloc<float>(16);
    std::vector<float> host(16, 1.0f);
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { (void)moved.device(); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { moved.write(buffer, host); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { moved.read(std::span<float>(host), buffer); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { moved.fill(buffer, 2.0f); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { (void)moved.record(); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { moved.finish(); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { (void)moved.native(); }));
    if (auto error = expect_error<InvalidArgument>([&] { moved.finish(); })) {
        DUET_EXPECT_MENTIONS(*error, "moved from");
    }
    EXPECT_TRUE(taken.device() == device()) << "the queue moved to is whole";
}

TEST_P(QueueConformance, BufferOfAnotherDeviceIsRefused)
{
    const std::vector<Device> others = other_devices();
    if (others.empty()) {
        GTEST_SKIP() << no_other_device_reason();
    }
    RawBuffer target = make_target(256);
    const Bytes host = random_bytes(256, test_seed() + 1);
    for (const Device& other : others) {
        SCOPED_TRACE("buffer of " + other.selector());
        Queue other_queue = other.create_queue();
        const Bytes foreign_bytes = random_bytes(256, test_seed());
        RawBuffer foreign = make_raw(other, other_queue, foreign_bytes);
        auto write = expect_error<InvalidArgument>([&] { queue().write_bytes(foreign, 0, host.data(), 256); });
        if (write) {
            DUET_EXPECT_MENTIONS(*write, other.selector());
        }
        // A copy reaches another device of the same backend (peer_copy_test.cpp), not another backend's.
        if (other.backend() != device().backend()) {
            expect_error<InvalidArgument>([&] { queue().copy_bytes(target, 0, foreign, 0, 256); });
            expect_error<InvalidArgument>([&] { queue().copy_bytes(foreign, 0, target, 0, 256); });
        }
        const std::uint32_t pattern = 7;
        expect_error<InvalidArgument>([&] { queue().fill_bytes(foreign, 0, 256, &pattern, 4); });
        EXPECT_TRUE(download_bytes(other_queue, foreign) == foreign_bytes) << "the foreign buffer was written";
    }
    EXPECT_TRUE(untouched(target));
}

TEST_P(QueueConformance, EventOfAnotherBackendIsRefused)
{
    // An event of another device of the same backend is waited for (peer_copy_test.cpp).
    std::vector<Device> others = other_devices();
    std::erase_if(others, [&](const Device& other) { return other.backend() == device().backend(); });
    if (others.empty()) {
        GTEST_SKIP() << "needs a device of another backend than " << device().selector() << "; "
                     << no_other_device_reason();
    }
    for (const Device& other : others) {
        SCOPED_TRACE("event of " + other.selector());
        Queue other_queue = other.create_queue();
        const Event foreign = other_queue.record();
        expect_error<InvalidArgument>([&] { queue().wait(foreign); });
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(QueueConformance);

} // namespace
} // namespace duet::test
