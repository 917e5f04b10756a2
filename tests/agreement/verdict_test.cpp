// The verdict's foundations on every device: the kit's runner tells an element never written from
// one that holds the poison by chance (integers, or a write that gives the poison back) through its
// check pass, and leaves such elements out of every comparison; ULPs are shown at the tolerance's
// scale, where they mean something, beside the raw distance.
#include <duet/workload/kit.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "duet_test.hpp"

namespace duet::test {
namespace {

using namespace duet::workload;

std::size_t size_n(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

/// y = x for n elements of T, the launch `copy` given; the reference copies all of x. The output
/// is laid out in rows of 7.
template <class T> Spec copy_spec(std::function<void(Queue&, const DeviceBuffers&, std::size_t)> copy)
{
    constexpr ElementType type = element_type_of<T>;
    Spec spec;
    spec.info = {.name = "verdict_copy",
                 .description = "y = x",
                 .variants = {"default"},
                 .parameters = {integer_parameter("n", 1001, 1, 1 << 20, "elements")}};
    spec.buffers = {input("x", size_n, type), output("y", size_n, type)};
    spec.buffers[1].shape = [](const Settings&) { return Shape{7}; };
    spec.prepare = [copy](const Device&, const Settings& settings, const std::string&) -> Launch {
        const std::size_t n = size_n(settings);
        return [copy, n](Queue& queue, const DeviceBuffers& buffers) { copy(queue, buffers, n); };
    };
    spec.reference = [](const Settings&, const HostArrays& arrays) {
        std::ranges::copy(arrays.in<T>("x"), arrays.out<T>("y").begin());
    };
    spec.bytes = [](const Settings& settings) { return 2.0 * sizeof(T) * static_cast<double>(size_n(settings)); };
    spec.tolerance = [](const Settings&) { return Tolerance{0, "a copy is exact"}; };
    return spec;
}

Measurement run_spec(const Device& device, Spec spec)
{
    const SpecWorkload workload(std::move(spec));
    return workload.run(
        {device, "default", Settings(workload.info(), {{"n", "1001"}}), true, test_seed(), Timing::once()});
}

class KitVerdict : public DeviceTest {};

TEST_P(KitVerdict, AnElementNoPassWroteIsNeverWrittenNotADifference)
{
    // All but the last element: 1000 = row 142, column 6 in rows of 7.
    const Measurement result =
        run_spec(device(), copy_spec<float>([](Queue& queue, const DeviceBuffers& buffers, std::size_t n) {
                     queue.copy(buffers.get<float>("y").view(0, n - 1), buffers.get<float>("x").view(0, n - 1));
                 }));
    EXPECT_TRUE(result.writes.checked);
    EXPECT_EQ(result.writes.judged, 1001u);
    EXPECT_EQ(result.writes.unwritten, 1u);
    EXPECT_EQ(result.writes.describe(result.output_shape),
              "1 of 1001 elements of 'y' was never written (row 142, column 6)");
    EXPECT_FALSE(result.matches_reference());
    // Left out of the comparison rather than counted a NaN difference.
    EXPECT_EQ(result.agreement.skipped, 1u);
    EXPECT_EQ(result.agreement.count, 1000u);
    EXPECT_EQ(result.agreement.differing, 0u);
    EXPECT_EQ(result.max_error, 0.0);
}

TEST_P(KitVerdict, AnIntegerOutputNobodyWroteIsNeverWrittenThoughItEqualsTheReference)
{
    // The reference leaves y as the poison too: equal integers, which only the check pass tells
    // from results.
    Spec spec = copy_spec<std::int32_t>([](Queue&, const DeviceBuffers&, std::size_t) {});
    spec.reference = [](const Settings&, const HostArrays&) {};
    const Measurement result = run_spec(device(), std::move(spec));
    EXPECT_EQ(result.writes.unwritten, 1001u);
    EXPECT_EQ(result.writes.describe(result.output_shape),
              "1001 of 1001 elements of 'y' were never written (first at row 0, column 0, last at row 142, column 6)");
    EXPECT_FALSE(result.matches_reference());
}

TEST_P(KitVerdict, AWritePastTheEndThatGivesThePoisonBackIsCaught)
{
    // What `y = a * x + y` does past y's end on a device that keeps a NaN's payload: the poison,
    // written back. Only the check pass's other poison shows the write.
    const auto error = expect_error<Error>([&] {
        run_spec(device(), copy_spec<float>([](Queue& queue, const DeviceBuffers& buffers, std::size_t) {
                     queue.fill(buffers.get<float>("y"), workload::poison<float>());
                 }));
    });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("wrote past the end of 'y': the first element past it holds nan"),
              std::string::npos)
        << error->message();
    EXPECT_NE(error->message().find("not the poison 1.44743096e-30"), std::string::npos) << error->message();
}

TEST_P(KitVerdict, ACorrectRunHasEveryElementWritten)
{
    const Measurement result =
        run_spec(device(), copy_spec<std::uint8_t>([](Queue& queue, const DeviceBuffers& buffers, std::size_t n) {
                     queue.copy(buffers.get<std::uint8_t>("y").view(0, n), buffers.get<std::uint8_t>("x").view(0, n));
                 }));
    EXPECT_TRUE(result.matches_reference());
    EXPECT_EQ(result.writes.unwritten, 0u);
    EXPECT_TRUE(result.writes.mask.empty());
    EXPECT_EQ(result.writes.describe(result.output_shape), "all 1001 poisoned elements were written");
    EXPECT_EQ(result.samples.size(), 1u) << "the check pass is not timed";
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(KitVerdict);

TEST(KitVerdictPoison, TheCheckPoisonIsAFiniteValueOfItsOwnForEveryType)
{
    EXPECT_TRUE(std::isfinite(check_poison<float>()));
    EXPECT_TRUE(std::isnormal(check_poison<float>()));
    EXPECT_TRUE(std::isnormal(check_poison<double>()));
    EXPECT_NE(check_poison<float>() * 2.5f + check_poison<float>(), check_poison<float>());
    EXPECT_NE(check_poison<std::int32_t>(), workload::poison<std::int32_t>());
    EXPECT_NE(check_poison<std::uint32_t>(), workload::poison<std::uint32_t>());
    EXPECT_NE(check_poison<std::int64_t>(), workload::poison<std::int64_t>());
    EXPECT_NE(check_poison<std::uint8_t>(), workload::poison<std::uint8_t>());
}

TEST(KitVerdictUlps, NearZeroTheShownUlpsAreAtTheToleranceScaleAndTheRawOnesStay)
{
    // An SGEMM-like element near zero: 1e-6 off by 1e-9 is ~9000 of its own ULPs and far below
    // one ULP of 1, the scale of the tolerance; 2 off by one ULP is one either way.
    const std::vector<float> want{1e-6f, 2.0f, -0.25f};
    const std::vector<float> got{1e-6f + 1e-9f, std::nextafter(2.0f, 3.0f), -0.25f};
    const Agreement agreement = compare(got, want, 1e-6);
    EXPECT_GT(agreement.max_ulps, 1000u);
    EXPECT_EQ(agreement.max_ulps_index, 0u);
    EXPECT_EQ(agreement.max_scaled_ulps, 1u);
    EXPECT_EQ(agreement.beyond_tolerance, 0u);
    EXPECT_EQ(agreement.describe(), "2 of 3 elements differ, by at most 1 ULPs (index 0); largest relative error "
                                    "1.2e-07 (index 1)");
    // 3 ULPs of 1.5 away from 1.5: a relative error of 2 epsilons, as a tolerance counts it.
    const float three_up = std::nextafter(std::nextafter(std::nextafter(1.5f, 2.0f), 2.0f), 2.0f);
    EXPECT_EQ(compare(std::vector<float>{three_up}, std::vector<float>{1.5f}, 0).max_scaled_ulps, 2u);
    // Integers: the difference, as raw; NaN stays NaN.
    EXPECT_EQ(compare(std::vector<std::int32_t>{7}, std::vector<std::int32_t>{2}, 0).max_scaled_ulps, 5u);
    EXPECT_EQ(compare(std::vector<double>{std::nan("")}, std::vector<double>{1e-300}, 0).max_scaled_ulps, UINT64_MAX);
}

TEST(KitVerdictUlps, ElementsLeftOutAreNotCompared)
{
    const std::vector<float> want{1.0f, 2.0f, 3.0f};
    const std::vector<float> got{1.0f, std::nanf(""), 3.0f};
    const Agreement agreement = compare(got, want, 0, {}, {false, true, false});
    EXPECT_EQ(agreement.count, 2u);
    EXPECT_EQ(agreement.skipped, 1u);
    EXPECT_EQ(agreement.max_error, 0.0);
    EXPECT_EQ(agreement.describe(), "all 2 elements are identical");
    EXPECT_THROW(compare(got, want, 0, {}, {true}), InvalidArgument);
}

} // namespace
} // namespace duet::test
