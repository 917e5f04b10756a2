// stencil1d beyond what the generic workload test can see: neither kernel writes past n, and the
// shared kernel's radius limit is the device's own (the largest radius it reports launches, the
// next one is refused with InvalidArgument naming the limit, before anything runs).
#include <algorithm>
#include <string>
#include <tuple>

#include "duet_test.hpp"
#include "stencil1d.hpp"
#include <duet/workload/kit.hpp>

namespace duet::test {
namespace {

struct VariantParam {
    std::string name;
    stencil1d::Variant variant;
};

void PrintTo(const VariantParam& variant, std::ostream* os)
{
    *os << variant.name;
}

const VariantParam variants[] = {{"naive", stencil1d::Variant::naive}, {"shared", stencil1d::Variant::shared}};

using StencilCase = std::tuple<DeviceParam, VariantParam>;

class Stencil1dLauncher : public ::testing::TestWithParam<StencilCase> {};

TEST_P(Stencil1dLauncher, WritesNothingPastN)
{
    const auto& [param, variant] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    const Device& device = *param.device;
    Queue queue = device.create_queue();
    // Not a multiple of the block or of the shared kernel's span, with a halo reaching past n.
    const std::size_t n = 1003;
    const std::size_t spare = 77;
    const std::size_t radius = 5;
    const std::vector<float> input = random_floats(n + spare, test_seed());
    Buffer<float> in = make_buffer(device, queue, input);
    Buffer<float> out = device.alloc<float>(n + spare);
    queue.fill(out, poison());
    stencil1d::Launcher(device).run(queue, variant.variant, in, out, n, radius, 64);
    const std::vector<float> got = download(queue, out);

    std::vector<float> want(n);
    stencil1d::reference(std::span<const float>(input).first(n), want, radius);
    EXPECT_LE(workload::compare(std::vector<float>(got.begin(), got.begin() + n), want, stencil1d::tolerance).max_error,
              stencil1d::tolerance)
        << stencil1d::tolerance_reason;
    EXPECT_TRUE(bitwise_equal(std::vector<float>(spare, poison()), std::span<const float>(got).last(spare)))
        << "stencil1d wrote past n";
}

std::string case_name(const ::testing::TestParamInfo<StencilCase>& info)
{
    return std::get<0>(info.param).name + "_" + std::get<1>(info.param).name;
}

INSTANTIATE_TEST_SUITE_P(Devices, Stencil1dLauncher,
                         ::testing::Combine(::testing::ValuesIn(device_params()), ::testing::ValuesIn(variants)),
                         case_name);

class Stencil1dRadiusLimit : public DeviceTest {};

TEST_P(Stencil1dRadiusLimit, TheLargestReportedRadiusLaunches)
{
    const stencil1d::Launcher launcher(device());
    const std::size_t block = 64;
    // The kernels' own index limit may be below the device's.
    const std::size_t radius = std::min<std::size_t>(launcher.max_shared_radius(block), std::size_t{1} << 22);
    ASSERT_GT(radius, 0u);
    // n <= 2R: every element is copied through, so the widest tile costs no 2R+1-term sums.
    const std::size_t n = 1000;
    const std::vector<float> input = random_floats(n, test_seed());
    Buffer<float> in = make_buffer(device(), queue(), input);
    Buffer<float> out = device().alloc<float>(n);
    queue().fill(out, poison());
    launcher.run(queue(), stencil1d::Variant::shared, in, out, n, radius, block);
    EXPECT_TRUE(bitwise_equal(input, download(queue(), out)));
}

TEST_P(Stencil1dRadiusLimit, ALargerRadiusIsRefusedNamingTheLimit)
{
    const stencil1d::Launcher launcher(device());
    const std::size_t block = 256;
    const std::size_t limit = launcher.max_shared_radius(block);
    const std::size_t n = 1000;
    const std::vector<float> initial = random_floats(n, test_seed());
    Buffer<float> in = make_buffer(device(), queue(), initial);
    Buffer<float> out = make_buffer(device(), queue(), initial);
    auto error = expect_error<InvalidArgument>(
        [&] { launcher.run(queue(), stencil1d::Variant::shared, in, out, n, limit + 1, block); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, dec(limit));
    }
    EXPECT_TRUE(bitwise_equal(initial, download(queue(), out)));
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(Stencil1dRadiusLimit);

} // namespace
} // namespace duet::test
