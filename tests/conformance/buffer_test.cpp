// Buffers: typed buffers of several element types, views, shared ownership, and pitched 2D/3D
// allocations whose rows a kernel finds at the reported pitch.
#include <algorithm>
#include <iostream>
#include <optional>

#include "duet_test.hpp"

namespace duet::test {
namespace {

struct Triple {
    std::int32_t a;
    float b;
    std::uint32_t c;
};

class BufferConformance : public DeviceTest {};

TEST_P(BufferConformance, TypedBufferKnowsItsSizeAndDevice)
{
    Buffer<double> buffer = device().alloc<double>(1001);
    EXPECT_EQ(buffer.size(), 1001u);
    EXPECT_EQ(buffer.raw().bytes(), 1001u * sizeof(double));
    EXPECT_TRUE(buffer.raw().device() == device());
    EXPECT_NE(buffer.raw().native(), nullptr);
    EXPECT_TRUE(static_cast<bool>(buffer.raw()));
    EXPECT_FALSE(static_cast<bool>(RawBuffer{}));
}

template <class T> void round_trip(const Device& device, Queue& queue, const std::vector<T>& values)
{
    Buffer<T> buffer = make_buffer(device, queue, values);
    EXPECT_EQ(buffer.size(), values.size());
    EXPECT_TRUE(same_bytes(values, download(queue, buffer)));
}

TEST_P(BufferConformance, ElementTypesRoundTrip)
{
    round_trip(device(), queue(), random_values<std::uint8_t>(1, test_seed()));
    round_trip(device(), queue(), random_values<std::int16_t>(7, test_seed()));
    round_trip(device(), queue(), random_values<std::int32_t>(255, test_seed()));
    round_trip(device(), queue(), random_values<std::uint64_t>(257, test_seed()));
    std::vector<double> doubles(1000, 0.0);
    const std::vector<float> floats = random_floats(doubles.size(), test_seed());
    std::transform(floats.begin(), floats.end(), doubles.begin(), [](float f) { return f * 1e-3; });
    round_trip(device(), queue(), doubles);
    std::vector<Triple> triples(513);
    const auto ints = random_values<std::int32_t>(triples.size() * 2, test_seed());
    for (std::size_t i = 0; i < triples.size(); ++i) {
        triples[i] = {ints[2 * i], floats[i % floats.size()], static_cast<std::uint32_t>(ints[2 * i + 1])};
    }
    round_trip(device(), queue(), triples);
}

TEST_P(BufferConformance, CopiesShareTheAllocation)
{
    const std::vector<float> values = random_floats(100, test_seed());
    Buffer<float> original = device().alloc<float>(100);
    const Buffer<float> alias = original; // NOLINT: the copy is the point
    upload(queue(), original, values);
    EXPECT_EQ(alias.raw().native(), original.raw().native());
    EXPECT_TRUE(bitwise_equal(values, download(queue(), alias)));
}

TEST_P(BufferConformance, BufferOutlivesTheQueueThatFilledIt)
{
    const std::vector<float> values = random_floats(1000, test_seed());
    Buffer<float> buffer = device().alloc<float>(values.size());
    {
        Queue temporary = device().create_queue();
        upload(temporary, buffer, values);
    }
    EXPECT_TRUE(bitwise_equal(values, download(queue(), buffer)));
}

TEST_P(BufferConformance, ViewsAddressTheirElements)
{
    const std::vector<float> values = random_floats(300, test_seed());
    Buffer<float> buffer = make_buffer(device(), queue(), values);
    const BufferView<float> view = buffer.view(11, 150);
    EXPECT_EQ(view.offset, 11u);
    EXPECT_EQ(view.count, 150u);
    std::vector<float> out(150, poison());
    queue().read(std::span<float>(out), view);
    queue().finish();
    EXPECT_TRUE(bitwise_equal(std::span<const float>(values).subspan(11, 150), out));

    const BufferView<float> whole = buffer;
    EXPECT_EQ(whole.offset, 0u);
    EXPECT_EQ(whole.count, 300u);
}

TEST_P(BufferConformance, PitchedRowsArePaddedToTheAlignment)
{
    const std::size_t alignment = props().base_address_alignment;
    ASSERT_GT(alignment, 0u);
    for (const std::size_t width :
         {std::size_t{1}, std::size_t{3}, std::size_t{17}, std::size_t{1000}, std::size_t{1025}}) {
        for (const std::size_t height : {std::size_t{1}, std::size_t{7}}) {
            for (const std::size_t depth : {std::size_t{1}, std::size_t{3}}) {
                SCOPED_TRACE(dec(width) + " x " + dec(height) + " x " + dec(depth));
                PitchedBuffer<float> buffer = device().alloc_pitched<float>(width, height, depth);
                EXPECT_EQ(buffer.width(), width);
                EXPECT_EQ(buffer.height(), height);
                EXPECT_EQ(buffer.depth(), depth);
                EXPECT_GE(buffer.pitch(), width * sizeof(float));
                EXPECT_EQ(buffer.pitch() % alignment, 0u) << "pitch " << buffer.pitch();
                EXPECT_GE(buffer.raw().bytes(), buffer.pitch() * height * depth);
            }
        }
    }
}

TEST_P(BufferConformance, PitchedWriteReadRoundTrips)
{
    for (const auto& [width, height, depth] :
         std::initializer_list<std::array<std::size_t, 3>>{{1, 1, 1}, {13, 7, 1}, {257, 5, 3}, {1000, 33, 1}}) {
        SCOPED_TRACE(dec(width) + " x " + dec(height) + " x " + dec(depth));
        const std::vector<float> values = random_floats(width * height * depth, test_seed() + width);
        PitchedBuffer<float> buffer = device().alloc_pitched<float>(width, height, depth);
        queue().write(buffer, std::span<const float>(values));
        std::vector<float> out(values.size(), poison());
        queue().read(std::span<float>(out), buffer);
        queue().finish();
        EXPECT_TRUE(bitwise_equal(values, out));
    }
}

TEST_P(BufferConformance, KernelFindsPitchedRowsAtThePitch)
{
    const std::size_t width = 37;
    const std::size_t rows = 19;
    const std::vector<float> values = random_floats(width * rows, test_seed());
    PitchedBuffer<float> buffer = device().alloc_pitched<float>(width, rows);
    queue().write(buffer, std::span<const float>(values));
    const Kernel kernel = test_kernel(device(), "pitched_scale");
    queue().launch(kernel, Range::cover(2, Dim3{width, rows, 1}, Dim3{8, 4, 1}), buffer,
                   static_cast<std::uint32_t>(buffer.pitch()), static_cast<std::uint32_t>(width),
                   static_cast<std::uint32_t>(rows), 2.0f);
    std::vector<float> out(values.size(), poison());
    queue().read(std::span<float>(out), buffer);
    queue().finish();
    std::vector<float> expected = values;
    for (float& v : expected) {
        v *= 2.0f;
    }
    EXPECT_TRUE(within_ulps(expected, out, tolerance::scale_ulps));
}

TEST_P(BufferConformance, PitchedCountMismatchIsRefused)
{
    PitchedBuffer<float> buffer = device().alloc_pitched<float>(10, 10);
    const std::vector<float> too_few = random_floats(99, test_seed());
    expect_error<InvalidArgument>([&] { queue().write(buffer, std::span<const float>(too_few)); });
}

// A default-constructed RawBuffer holds nothing: its size is 0 and the rest is refused, never a crash.
TEST(BufferEmptyHandleDeathTest, EveryUseIsRefused)
{
    EXPECT_EQ(RawBuffer{}.bytes(), 0u);
    EXPECT_EQ(Buffer<float>{}.size(), 0u);
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)RawBuffer{}.device());
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)RawBuffer{}.native());
}

/// Bytes of which two buffers fit the device's global memory and three do not, within its largest
/// allocation. Such buffers are never touched here, so drivers that commit memory lazily (PoCL)
/// give no real memory to them.
std::size_t third_of_memory(const DeviceProperties& p)
{
    const std::uint64_t largest = p.max_allocation != 0 ? p.max_allocation : p.global_memory;
    return static_cast<std::size_t>(std::min<std::uint64_t>(largest, p.global_memory / 3 + 1));
}

/// Calls `alloc` (which returns a buffer's RawBuffer) until it throws OutOfMemory, at most `tries`
/// times; checks that the buffers held never total more than the device's global memory.
template <class Alloc>
std::optional<OutOfMemory> allocate_until_refused(const DeviceProperties& p, std::vector<RawBuffer>& held, Alloc alloc)
{
    std::uint64_t total = 0;
    for (int tries = 0; tries < 8; ++tries) {
        try {
            held.push_back(alloc());
        } catch (const OutOfMemory& error) {
            return error;
        }
        total += held.back().bytes();
        EXPECT_LE(total, p.global_memory) << "buffers past the device's global memory were given";
    }
    ADD_FAILURE() << held.size() << " buffers of " << total << " bytes in all, and still no OutOfMemory";
    return std::nullopt;
}

TEST_P(BufferConformance, BuffersTogetherPastGlobalMemoryAreOutOfMemory)
{
    const std::uint64_t limit = props().global_memory;
    ASSERT_GT(limit, 0u);
    const std::size_t chunk = third_of_memory(props());
    std::vector<RawBuffer> held;
    const auto refusal = allocate_until_refused(props(), held, [&] { return device().alloc_bytes(chunk); });
    ASSERT_TRUE(refusal);
    // The driver may refuse first where other processes hold memory; then the core had no need to.
    if (refusal->call() == "Device::alloc") {
        DUET_EXPECT_MENTIONS(*refusal, dec(chunk));
        DUET_EXPECT_MENTIONS(*refusal, dec(held.size() * std::uint64_t{chunk}));
        DUET_EXPECT_MENTIONS(*refusal, dec(limit));
    } else {
        std::cout << "the driver refused before the core: " << refusal->what() << "\n";
    }
    if (!held.empty()) {
        // A released buffer counts no more: its bytes can be allocated again.
        held.pop_back();
        held.push_back(device().alloc_bytes(chunk));
    }
}

TEST_P(BufferConformance, PitchedBuffersCountTheirPaddedBytes)
{
    const std::uint64_t limit = props().global_memory;
    ASSERT_GT(limit, 0u);
    // One-byte rows padded to the pitch: their padded size is a third of the memory, their
    // unpadded size a small part of it.
    const std::size_t pitch = device().alloc_pitched<std::uint8_t>(1, 1).pitch();
    if (pitch == 1) {
        GTEST_SKIP() << "this device pads no rows; BuffersTogetherPastGlobalMemoryAreOutOfMemory covers it";
    }
    const std::size_t rows = third_of_memory(props()) / pitch + 1;
    std::vector<RawBuffer> held;
    const auto refusal =
        allocate_until_refused(props(), held, [&] { return device().alloc_pitched<std::uint8_t>(1, rows).raw(); });
    ASSERT_TRUE(refusal);
    if (refusal->call() == "Device::alloc_pitched") {
        DUET_EXPECT_MENTIONS(*refusal, dec(pitch * rows));
        DUET_EXPECT_MENTIONS(*refusal, dec(limit));
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(BufferConformance);

} // namespace
} // namespace duet::test
