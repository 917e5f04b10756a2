// reduce beyond what the generic workload test sees (floats of one sign, through the kit): the
// double kernels jacobi and newton judge convergence with, over three passes and with mixed
// signs; a reduction reused for a smaller n; the result buffer's other elements left alone; and
// what is refused (bad sizes, atomic on doubles) refused before anything runs.
#include <cmath>
#include <numeric>
#include <string>
#include <tuple>

#include "duet_test.hpp"
#include "reduce.hpp"
#include <duet/workload/kit.hpp>

namespace duet::test {
namespace {

struct VariantParam {
    std::string name;
    reduce::Variant variant;
};

void PrintTo(const VariantParam& variant, std::ostream* os)
{
    *os << variant.name;
}

const VariantParam variants[] = {
    {"atomic", reduce::Variant::atomic}, {"tree", reduce::Variant::tree}, {"warp", reduce::Variant::warp}};

using ReduceCase = std::tuple<DeviceParam, VariantParam>;

class ReduceLauncher : public ::testing::TestWithParam<ReduceCase> {};

/// Skips, with the device's reason, a variant it cannot run on T.
#define REQUIRE_VARIANT(T, device, variant)                                                                            \
    do {                                                                                                               \
        if (const auto reason = reduce::Reduction<T>::refusal(device, variant)) {                                      \
            GTEST_SKIP() << *reason;                                                                                   \
        }                                                                                                              \
    } while (false)

TEST_P(ReduceLauncher, DoublesOfMixedSignOverThreePasses)
{
    const auto& [param, variant] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    const Device& device = *param.device;
    REQUIRE_VARIANT(double, device, variant.variant);
    Queue queue = device.create_queue();
    // span² + 3: a pass leaves span + 1 results, the next 2, the third one.
    const std::size_t n = reduce::span * reduce::span + 3;
    const std::vector<double> input =
        workload::random_values(workload::ElementType::f64, n, test_seed()).template as<double>();
    const Buffer<double> in = make_buffer(device, queue, input);
    const Buffer<double> result = device.alloc<double>(1);

    for (const auto operation : {reduce::Operation::sum, reduce::Operation::max}) {
        reduce::Reduction<double>(device, variant.variant, operation, n).enqueue(queue, in, n, result);
        const double got = download(queue, result)[0];
        const double want = reduce::reference<double>(operation, input);
        if (operation == reduce::Operation::max) {
            EXPECT_EQ(got, want) << "max";
            continue;
        }
        // Mixed signs: the bound is relative to the sum of magnitudes, not to the sum.
        const double magnitudes =
            std::accumulate(input.begin(), input.end(), 0.0, [](double sum, double x) { return sum + std::fabs(x); });
        EXPECT_LE(std::fabs(got - want), reduce::gamma<double>(reduce::rounding_depth(n)) * magnitudes)
            << "sum: got " << got << ", want " << want;
    }
}

TEST_P(ReduceLauncher, ReusedForASmallerNAndTouchesOnlyTheResult)
{
    const auto& [param, variant] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    const Device& device = *param.device;
    REQUIRE_VARIANT(float, device, variant.variant);
    Queue queue = device.create_queue();
    const std::size_t capacity = 100003;
    // Integers: every partial sum is exact, so any order gives the reference's bits.
    const std::vector<float> input = random_integral_floats(capacity, test_seed());
    const Buffer<float> in = make_buffer(device, queue, input);
    const Buffer<float> result = device.alloc<float>(3);
    const reduce::Reduction<float> reduction(device, variant.variant, reduce::Operation::sum, capacity);

    for (const std::size_t n : {capacity, std::size_t{4097}, std::size_t{1}}) {
        queue.fill(result, poison());
        reduction.enqueue(queue, in, n, result);
        const std::vector<float> got = download(queue, result);
        EXPECT_EQ(got[0], reduce::reference<float>(reduce::Operation::sum, std::span(input).first(n))) << "n = " << n;
        EXPECT_TRUE(bitwise_equal(std::vector<float>(2, poison()), std::span<const float>(got).last(2)))
            << "n = " << n << ": the reduction wrote past result[0]";
    }
}

// Both of the atomic max's branches (integer max for non-negative floats, unsigned min for
// negative ones) and zeros of either sign, on every variant.
TEST_P(ReduceLauncher, FloatMaxOfEverySign)
{
    const auto& [param, variant] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    const Device& device = *param.device;
    REQUIRE_VARIANT(float, device, variant.variant);
    Queue queue = device.create_queue();
    const std::size_t n = 100003;
    const std::vector<float> mixed = random_floats(n, test_seed());
    std::vector<float> positive = mixed;
    std::vector<float> negative_and_zero = mixed;
    for (std::size_t i = 0; i < n; ++i) {
        positive[i] = std::fabs(mixed[i]);
        negative_and_zero[i] = -std::fabs(mixed[i]);
    }
    negative_and_zero[n / 3] = -0.0f;
    negative_and_zero[2 * n / 3] = 0.0f;
    const reduce::Reduction<float> reduction(device, variant.variant, reduce::Operation::max, n);
    const Buffer<float> result = device.alloc<float>(1);
    for (const std::vector<float>& input : {mixed, positive, negative_and_zero}) {
        reduction.enqueue(queue, make_buffer(device, queue, input), n, result);
        EXPECT_EQ(download(queue, result)[0], reduce::reference<float>(reduce::Operation::max, input));
    }
}

std::string case_name(const ::testing::TestParamInfo<ReduceCase>& info)
{
    return std::get<0>(info.param).name + "_" + std::get<1>(info.param).name;
}

INSTANTIATE_TEST_SUITE_P(Devices, ReduceLauncher,
                         ::testing::Combine(::testing::ValuesIn(device_params()), ::testing::ValuesIn(variants)),
                         case_name);

class ReduceRefusals : public DeviceTest {};

TEST_P(ReduceRefusals, AtomicOnDoublesIsUnsupportedOnEveryDevice)
{
    const auto error = expect_error<Unsupported>(
        [&] { reduce::Reduction<double>(device(), reduce::Variant::atomic, reduce::Operation::sum, 10); });
    ASSERT_TRUE(error);
    DUET_EXPECT_MENTIONS(*error, "floats only");
}

TEST_P(ReduceRefusals, SizesOutsideTheCapacityNameTheLimit)
{
    for (const std::size_t capacity : {std::size_t{0}, reduce::max_n + 1}) {
        const auto error = expect_error<InvalidArgument>(
            [&] { reduce::Reduction<float>(device(), reduce::Variant::tree, reduce::Operation::sum, capacity); });
        ASSERT_TRUE(error);
        DUET_EXPECT_MENTIONS(*error, dec(reduce::max_n));
    }
    const reduce::Reduction<float> reduction(device(), reduce::Variant::tree, reduce::Operation::sum, 100);
    const Buffer<float> in = device().alloc<float>(50);
    const Buffer<float> result = device().alloc<float>(1);
    for (const std::size_t n : {std::size_t{0}, std::size_t{51}, std::size_t{101}}) {
        const auto error = expect_error<InvalidArgument>([&] { reduction.enqueue(queue(), in, n, result); });
        ASSERT_TRUE(error) << "n = " << n;
        DUET_EXPECT_MENTIONS(*error, "capacity of 100", "input's 50");
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(ReduceRefusals);

} // namespace
} // namespace duet::test
