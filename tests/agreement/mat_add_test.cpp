// mat_add beyond what the generic workload test can see: the padding between rows keeps its
// poison (the kernels index rows by the pitch, never write past the width), and buffers of
// different shapes, or a volume given to the 2D kernel, are refused before anything runs.
#include <bit>
#include <cstdint>
#include <cstring>

#include "duet_test.hpp"
#include "mat_add.hpp"

namespace duet::test {
namespace {

struct Shape {
    std::size_t width, height, depth;
};

class MatAddLauncher : public DeviceTest {
protected:
    PitchedBuffer<float> poisoned(const Shape& shape)
    {
        auto buffer = device().alloc_pitched<float>(shape.width, shape.height, shape.depth);
        const float value = poison();
        queue().fill_bytes(buffer.raw(), 0, buffer.raw().bytes(), &value, sizeof value);
        return buffer;
    }

    /// Uploads `values` (dense) into a poisoned pitched buffer: its padding stays poison.
    PitchedBuffer<float> upload(const Shape& shape, const std::vector<float>& values)
    {
        auto buffer = poisoned(shape);
        queue().write(buffer, values);
        queue().finish();
        return buffer;
    }

    /// Checks c's every row: the width against a + b, the padding still poison.
    void expect_sum_and_untouched_padding(const PitchedBuffer<float>& c, const std::vector<float>& a,
                                          const std::vector<float>& b)
    {
        const std::vector<unsigned char> bytes = download_bytes(queue(), c.raw());
        const std::size_t row_floats = c.pitch() / sizeof(float);
        const std::size_t rows = c.height() * c.depth();
        std::vector<float> pitched(row_floats * rows);
        ASSERT_GE(bytes.size(), pitched.size() * sizeof(float));
        std::memcpy(pitched.data(), bytes.data(), pitched.size() * sizeof(float));
        std::vector<float> want(a.size());
        mat_add::reference(a, b, want);
        for (std::size_t row = 0; row < rows; ++row) {
            const std::span<const float> line(pitched.data() + row * row_floats, row_floats);
            EXPECT_TRUE(
                bitwise_equal(std::span<const float>(want).subspan(row * c.width(), c.width()), line.first(c.width())))
                << "row " << row;
            EXPECT_TRUE(bitwise_equal(std::vector<float>(row_floats - c.width(), poison()), line.subspan(c.width())))
                << "padding of row " << row << " was written";
        }
    }
};

TEST_P(MatAddLauncher, TwoDimensionsLeaveThePaddingAlone)
{
    const Shape shape{7, 5, 1};
    const auto a = random_floats(35, test_seed());
    const auto b = random_floats(35, test_seed() + 1);
    const auto da = upload(shape, a), db = upload(shape, b), dc = poisoned(shape);
    mat_add::Launcher(device()).run_2d(queue(), da, db, dc, {4, 2, 1});
    expect_sum_and_untouched_padding(dc, a, b);
}

TEST_P(MatAddLauncher, ThreeDimensionsLeaveThePaddingAlone)
{
    const Shape shape{7, 5, 3};
    const auto a = random_floats(105, test_seed());
    const auto b = random_floats(105, test_seed() + 1);
    const auto da = upload(shape, a), db = upload(shape, b), dc = poisoned(shape);
    mat_add::Launcher(device()).run_3d(queue(), da, db, dc, {4, 2, 2});
    expect_sum_and_untouched_padding(dc, a, b);
}

TEST_P(MatAddLauncher, RefusesBuffersOfDifferentShapes)
{
    const auto a = poisoned({7, 5, 1}), wider = poisoned({9, 5, 1}), c = poisoned({7, 5, 1});
    const mat_add::Launcher launcher(device());
    auto error = expect_error<InvalidArgument>([&] { launcher.run_2d(queue(), a, wider, c, {8, 8, 1}); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "9 x 5");
    }
    expect_error<InvalidArgument>([&] { launcher.run_3d(queue(), a, wider, c, {8, 8, 1}); });
    const std::vector<unsigned char> bytes = download_bytes(queue(), c.raw());
    for (std::size_t at = 0; at + sizeof(float) <= bytes.size(); at += sizeof(float)) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, bytes.data() + at, sizeof bits);
        ASSERT_EQ(bits, std::bit_cast<std::uint32_t>(poison())) << "byte " << at << " of c was written";
    }
}

TEST_P(MatAddLauncher, TheTwoDimensionalKernelRefusesAVolume)
{
    const auto a = poisoned({7, 5, 3}), b = poisoned({7, 5, 3}), c = poisoned({7, 5, 3});
    auto error = expect_error<InvalidArgument>([&] {
        mat_add::Launcher(device()).run_2d(queue(), a, b, c, {8, 8, 1});
    });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "depth 1");
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(MatAddLauncher);

} // namespace
} // namespace duet::test
