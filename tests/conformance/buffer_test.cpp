// Buffers: typed buffers of several element types, views, shared ownership, and pitched 2D/3D
// allocations whose rows a kernel finds at the reported pitch.
#include <algorithm>

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

DUET_INSTANTIATE_FOR_EACH_DEVICE(BufferConformance);

} // namespace
} // namespace duet::test
