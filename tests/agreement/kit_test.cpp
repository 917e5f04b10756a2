// The workload kit's runner on every device: a write past an output's end is caught by its
// sentinels, an output nobody wrote fails as never written, the timing rule is followed, extra
// phases stay apart; and the statistics, ULP agreement and parameter rules it is built on.
#include <duet/workload/kit.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>

#include "duet_test.hpp"
#include "vector_add.hpp"

namespace duet::test {
namespace {

using namespace duet::workload;

std::size_t size_n(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

/// c = a + b through vector_add's launcher, unless `launch` is given instead.
Spec vector_add_spec(std::function<void(Queue&, const DeviceBuffers&, std::size_t)> launch = {})
{
    Spec spec;
    spec.info = {.name = "kit_test",
                 .description = "c = a + b",
                 .variants = {"default"},
                 .parameters = {integer_parameter("n", 1000, 1, 1 << 20, "floats")}};
    spec.buffers = {input("a", size_n), input("b", size_n), output("c", size_n)};
    spec.prepare = [launch](const Device& device, const Settings& settings, const std::string&) -> Launch {
        const auto launcher = std::make_shared<vector_add::Launcher>(device);
        const std::size_t n = size_n(settings);
        if (launch) {
            return [launch, n](Queue& queue, const DeviceBuffers& buffers) { launch(queue, buffers, n); };
        }
        return [launcher, n](Queue& queue, const DeviceBuffers& buffers) {
            launcher->run(queue, buffers.get("a"), buffers.get("b"), buffers.get("c"), n);
        };
    };
    spec.reference = [](const Settings&, const HostArrays& arrays) {
        vector_add::reference(arrays.in("a"), arrays.in("b"), arrays.out("c"));
    };
    spec.bytes = [](const Settings& settings) { return 12.0 * static_cast<double>(size_n(settings)); };
    spec.tolerance = [](const Settings&) { return Tolerance{0, "exact"}; };
    return spec;
}

RunRequest request_for(const Device& device, const WorkloadInfo& info, Timing timing = Timing::once())
{
    return {device, "default", Settings(info, {{"n", "1001"}}), true, test_seed(), timing};
}

class KitRunner : public DeviceTest {};

TEST_P(KitRunner, RunsAndChecksASpec)
{
    const SpecWorkload workload(vector_add_spec());
    const Measurement result = workload.run(request_for(device(), workload.info()));
    EXPECT_TRUE(result.matches_reference());
    EXPECT_EQ(result.agreement.count, 1001u);
    EXPECT_EQ(result.agreement.differing, 0u);
    EXPECT_EQ(result.output.size(), 1001u);
}

TEST_P(KitRunner, AnInputIsDrawnAsItsSpecSays)
{
    Spec spec = vector_add_spec();
    spec.buffers[0].draw = [](std::size_t n, std::uint64_t) { return std::vector<float>(n, 3.0f); };
    spec.reference = [](const Settings&, const HostArrays& arrays) {
        for (float value : arrays.in("a")) {
            EXPECT_EQ(value, 3.0f);
        }
        vector_add::reference(arrays.in("a"), arrays.in("b"), arrays.out("c"));
    };
    const SpecWorkload workload(std::move(spec));
    EXPECT_TRUE(workload.run(request_for(device(), workload.info())).matches_reference());
}

TEST_P(KitRunner, AWritePastAnOutputsEndIsCaught)
{
    // The whole allocation, sentinels included: what a kernel without its bounds check does.
    const SpecWorkload workload(vector_add_spec(
        [](Queue& queue, const DeviceBuffers& buffers, std::size_t) { queue.fill(buffers.get("c"), 1.0f); }));
    const auto error = expect_error<Error>([&] { workload.run(request_for(device(), workload.info())); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("wrote past the end of 'c'"), std::string::npos) << error->message();
}

TEST_P(KitRunner, AnOutputNobodyWroteFailsTheReference)
{
    const SpecWorkload workload(vector_add_spec([](Queue&, const DeviceBuffers&, std::size_t) {}));
    const Measurement result = workload.run(request_for(device(), workload.info()));
    EXPECT_TRUE(result.verified);
    EXPECT_FALSE(result.matches_reference());
    // Never written, by the check pass: left out of the comparison, not a NaN difference.
    EXPECT_EQ(result.writes.unwritten, 1001u);
    EXPECT_EQ(result.agreement.skipped, 1001u);
    EXPECT_EQ(result.agreement.differing, 0u);
}

TEST_P(KitRunner, TimesAsManyPassesAsTheTimingAsks)
{
    auto launches = std::make_shared<std::atomic<int>>(0);
    const SpecWorkload workload(vector_add_spec([launches](Queue& queue, const DeviceBuffers& buffers, std::size_t n) {
        ++*launches;
        vector_add::Launcher(queue.device()).run(queue, buffers.get("a"), buffers.get("b"), buffers.get("c"), n);
    }));
    const Measurement result = workload.run(request_for(device(), workload.info(), Timing::exactly(7, 2)));
    EXPECT_EQ(result.samples.size(), 7u);
    EXPECT_EQ(launches->load(), 10); // 2 warm-up, 7 timed, and the untimed check pass
    EXPECT_TRUE(result.matches_reference());
    EXPECT_EQ(result.kernel_ms, result.summary(Phase::kernel).median);
}

TEST_P(KitRunner, AnExtraPhaseIsNeverFoldedIntoAnother)
{
    Queue queue = device().create_queue();
    auto buffer = device().alloc<float>(1 << 16);
    PhaseTimer phases(queue);
    queue.fill(buffer, 1.0f);
    phases.mark(Phase::kernel);
    queue.fill(buffer, 2.0f);
    phases.mark("refill");
    const Sample sample = phases.sample();
    EXPECT_EQ(sample.d2h_ms, 0.0);
    EXPECT_EQ(sample.h2d_ms, 0.0);
    ASSERT_EQ(sample.extra_phases.size(), 1u);
    EXPECT_EQ(sample.extra_phases[0].first, "refill");
    EXPECT_GE(sample.total_ms, sample.kernel_ms);
}

/// y = x, one device copy per pass, for arrays of T: the runner's typed path without a kernel.
template <class T> Spec copy_spec()
{
    constexpr ElementType type = element_type_of<T>;
    Spec spec;
    spec.info = {.name = "kit_copy",
                 .description = "y = x",
                 .variants = {"default"},
                 .parameters = {integer_parameter("n", 1000, 1, 1 << 20, "elements")}};
    spec.buffers = {input("x", size_n, type), output("y", size_n, type)};
    spec.prepare = [](const Device&, const Settings& settings, const std::string&) -> Launch {
        const std::size_t n = size_n(settings);
        return [n](Queue& queue, const DeviceBuffers& buffers) {
            queue.copy(buffers.get<T>("y").view(0, n), buffers.get<T>("x").view(0, n));
        };
    };
    spec.reference = [](const Settings&, const HostArrays& arrays) {
        std::ranges::copy(arrays.in<T>("x"), arrays.out<T>("y").begin());
    };
    spec.bytes = [](const Settings& settings) { return 2.0 * sizeof(T) * static_cast<double>(size_n(settings)); };
    spec.tolerance = [](const Settings&) { return Tolerance{0, "a copy is exact"}; };
    return spec;
}

template <class T> void expect_exact_copy(const Device& device)
{
    const SpecWorkload workload(copy_spec<T>());
    const Measurement result = workload.run(request_for(device, workload.info()));
    EXPECT_TRUE(result.matches_reference()) << result.agreement.describe();
    EXPECT_EQ(result.output.type(), element_type_of<T>);
    EXPECT_EQ(result.output.size(), 1001u);
    EXPECT_EQ(result.agreement.differing, 0u);
    EXPECT_EQ(result.agreement.histogram[0], 1001u);
}

TEST_P(KitRunner, ArraysOfEveryElementTypeRunAndAreChecked)
{
    expect_exact_copy<double>(device());
    expect_exact_copy<std::int32_t>(device());
    expect_exact_copy<std::uint32_t>(device());
    expect_exact_copy<std::int64_t>(device());
    expect_exact_copy<std::uint8_t>(device());
}

TEST_P(KitRunner, AnUncopiedDoubleOutputFailsTheReference)
{
    Spec spec = copy_spec<double>();
    spec.prepare = [](const Device&, const Settings&, const std::string&) -> Launch {
        return [](Queue&, const DeviceBuffers&) {};
    };
    const SpecWorkload workload(std::move(spec));
    const Measurement result = workload.run(request_for(device(), workload.info()));
    EXPECT_FALSE(result.matches_reference());
    EXPECT_EQ(result.writes.unwritten, 1001u); // the double poison, then the check pass's
}

TEST_P(KitRunner, ABufferAskedForAsAnotherTypeIsRefusedNamingBoth)
{
    Spec spec = copy_spec<double>();
    spec.prepare = [](const Device&, const Settings&, const std::string&) -> Launch {
        return [](Queue& queue, const DeviceBuffers& buffers) { queue.fill(buffers.get<float>("y"), 1.0f); };
    };
    const SpecWorkload workload(std::move(spec));
    const auto error = expect_error<InvalidArgument>([&] { workload.run(request_for(device(), workload.info())); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("'y' holds double, not float"), std::string::npos) << error->message();
}

TEST_P(KitRunner, OutputsOfTwoElementTypesAreRefusedBeforeAnythingRuns)
{
    Spec spec = copy_spec<double>();
    spec.buffers.push_back(output("count", size_n, ElementType::i32));
    auto launched = std::make_shared<bool>(false);
    spec.prepare = [launched](const Device&, const Settings&, const std::string&) -> Launch {
        return [launched](Queue&, const DeviceBuffers&) { *launched = true; };
    };
    const SpecWorkload workload(std::move(spec));
    const auto error = expect_error<InvalidArgument>([&] { workload.run(request_for(device(), workload.info())); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("'y' (double) and 'count' (int32)"), std::string::npos) << error->message();
    EXPECT_FALSE(*launched);
}

TEST_P(KitRunner, AnInputDrawnAsAnotherTypeIsRefused)
{
    Spec spec = copy_spec<double>();
    spec.buffers[0].draw = [](std::size_t n, std::uint64_t seed) { return random_values(ElementType::f32, n, seed); };
    const SpecWorkload workload(std::move(spec));
    const auto error = expect_error<InvalidArgument>([&] { workload.run(request_for(device(), workload.info())); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("drew 1001 float values for 1001 double elements"), std::string::npos)
        << error->message();
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(KitRunner);

// One GPU seen through CUDA and through OpenCL gets one spacer, whatever each API reports of its
// L2 (NVIDIA's OpenCL reports its SMs' 4.1 MiB on an H100, whose L2 holds 50), and that spacer
// reads more than twice the L2 CUDA reports: else the OpenCL kernel found lines a copy left dirty.
TEST(KitSpacer, OneGpuThroughBothApisGetsOneSpacerLargerThanItsL2)
{
    std::size_t twins = 0;
    for (const Device& cuda : all_devices()) {
        const auto& p = cuda.properties();
        if (cuda.backend() != "cuda" || p.pci_bus_id.empty()) {
            continue;
        }
        for (const Device& opencl : all_devices()) {
            if (opencl.backend() != "opencl" || opencl.properties().pci_bus_id != p.pci_bus_id) {
                continue;
            }
            ++twins;
            const std::uint64_t bytes = Spacer::bytes(cuda);
            EXPECT_EQ(Spacer::bytes(opencl), bytes) << cuda.selector() << " and " << opencl.selector();
            EXPECT_GE(bytes, std::min<std::uint64_t>(2 * p.l2_cache, p.global_memory / 32)) << cuda.selector();
        }
    }
    if (twins == 0) {
        GTEST_SKIP() << "no GPU seen through both CUDA and OpenCL here";
    }
}

TEST(KitStatistics, TheMedianComesWithAnIntervalFromTheSamples)
{
    const std::vector<double> five{5, 1, 4, 2, 3};
    const Summary small = summarize(five);
    EXPECT_EQ(small.median, 3);
    EXPECT_EQ(small.low, 1); // with 5 samples only the extremes bound the median (94%)
    EXPECT_EQ(small.high, 5);
    std::vector<double> many;
    for (int i = 1; i <= 100; ++i) {
        many.push_back(i);
    }
    const Summary large = summarize(many);
    EXPECT_EQ(large.median, 50.5);
    EXPECT_GT(large.low, 35); // order statistics 40 and 61 for n = 100
    EXPECT_LT(large.high, 66);
    EXPECT_LE(large.low, large.median);
    EXPECT_GE(large.high, large.median);
    EXPECT_NEAR(large.q1, 25.75, 1e-12);
    EXPECT_NEAR(large.q3, 75.25, 1e-12);
}

TEST(KitStatistics, ARatioWhoseIntervalHoldsOneIsParity)
{
    // count, median, the median's interval, min, max, quartiles
    const Summary cuda{5, 1.0, 0.99, 1.01, 0.9, 1.1, 0.95, 1.05};
    const Summary close{5, 1.02, 1.01, 1.03, 0.9, 1.1, 0.97, 1.07};
    const Summary slower{5, 1.5, 1.49, 1.51, 1.4, 1.6, 1.45, 1.55};
    EXPECT_TRUE(ratio(close, cuda).parity()); // within the passes' noise, though the medians' intervals part
    EXPECT_FALSE(ratio(slower, cuda).parity());
    EXPECT_NEAR(ratio(slower, cuda).value, 1.5, 1e-12);
    EXPECT_NEAR(ratio(slower, cuda).low, 1.45 / 1.05, 1e-12);
    EXPECT_FALSE(ratio(slower, Summary{}).valid());
}

TEST(KitAgreement, CountsUlpsAndNamesWhere)
{
    EXPECT_EQ(ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
    EXPECT_EQ(ulp_distance(-0.0f, 0.0f), 1u);
    EXPECT_EQ(ulp_distance(std::numeric_limits<float>::quiet_NaN(), 1.0f), UINT64_MAX);
    std::vector<float> want(12, 1.0f);
    std::vector<float> got = want;
    got[7] = std::nextafter(std::nextafter(1.0f, 2.0f), 2.0f); // 2 ULPs, at row 1, column 3 of 4 columns
    const Agreement agreement = compare(got, want, 0, Shape{4});
    EXPECT_EQ(agreement.differing, 1u);
    EXPECT_EQ(agreement.beyond_tolerance, 1u);
    EXPECT_EQ(agreement.max_ulps, 2u);
    EXPECT_EQ(agreement.where(agreement.max_ulps_index), "row 1, column 3");
    EXPECT_EQ(agreement.histogram[0], 11u);
    EXPECT_EQ(agreement.histogram[2], 1u); // the "2-3" bucket
    EXPECT_EQ(histogram_label(2), "2-3");
    EXPECT_TRUE(compare(got, std::vector<float>(3, 1.0f), 0).size_mismatch);
}

TEST(KitAgreement, CountsUlpsOfDoublesAndDistancesOfIntegers)
{
    EXPECT_EQ(ulp_distance(1.0, std::nextafter(1.0, 2.0)), 1u);
    EXPECT_EQ(ulp_distance(-0.0, 0.0), 1u);
    EXPECT_EQ(ulp_distance(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()),
              2 * (std::bit_cast<std::uint64_t>(std::numeric_limits<double>::max())) + 1);
    EXPECT_EQ(ulp_distance(std::int32_t{-3}, std::int32_t{4}), 7u);
    EXPECT_EQ(ulp_distance(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()),
              UINT64_MAX);
    EXPECT_EQ(ulp_distance(std::uint8_t{0}, std::uint8_t{255}), 255u);

    const std::vector<double> want(6, 1.0);
    std::vector<double> got = want;
    got[4] = std::nextafter(std::nextafter(std::nextafter(1.0, 2.0), 2.0), 2.0);
    const Agreement doubles = compare(got, want, 1e-15, Shape{3});
    EXPECT_EQ(doubles.type, ElementType::f64);
    EXPECT_EQ(doubles.max_ulps, 3u);
    EXPECT_EQ(doubles.beyond_tolerance, 0u); // 3 ULPs of a double are 6.7e-16
    EXPECT_EQ(doubles.where(doubles.max_ulps_index), "row 1, column 1");

    const Agreement integers = compare(std::vector<std::int32_t>{1, 2, 30}, std::vector<std::int32_t>{1, 2, 3}, 0);
    EXPECT_EQ(integers.differing, 1u);
    EXPECT_EQ(integers.max_ulps, 27u);
    EXPECT_NEAR(integers.max_error, 9.0, 1e-12);
    EXPECT_EQ(integers.describe(), "1 of 3 elements differ, by at most 27 (index 2); largest relative error 9.0e+00 "
                                   "(index 2)");

    const Agreement mixed = compare(std::vector<float>(3, 1.0f), std::vector<double>(3, 1.0), 0);
    EXPECT_TRUE(mixed.type_mismatch);
    EXPECT_EQ(mixed.describe(), "the two outputs hold different element types");
}

TEST(KitRules, ABrokenRuleNamesBothParameters)
{
    WorkloadInfo info{
        .name = "ruled",
        .variants = {"default"},
        .parameters = {integer_parameter("block_x", 32, 1, 1024, ""), integer_parameter("block_y", 8, 1, 1024, "")},
        .rules = {{{"block_x", "block_y"}, "block_x * block_y must not exceed 1024", [](const Settings& s) {
                       return s.integer("block_x") * s.integer("block_y") <= 1024;
                   }}}};
    EXPECT_NO_THROW(Settings(info, {{"block_x", "32"}, {"block_y", "32"}}));
    const auto error = expect_error<InvalidArgument>([&] { Settings(info, {{"block_x", "64"}, {"block_y", "32"}}); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("'block_x' (64) and 'block_y' (32)"), std::string::npos) << error->message();
    const Settings unchecked = Settings::without_rules(info, {{"block_x", "64"}, {"block_y", "32"}});
    EXPECT_TRUE(unchecked.broken_rule(info).has_value());
}

} // namespace
} // namespace duet::test
