// Cross checks and the ULPs shown: a tolerance in ULPs counts what the table shows, the same
// infinities are no difference, a base is confirmed only by an ok run that compared an element, and
// without a reference two runs that differ are both wrong whatever the order of the devices.
#include <duet/workload/check.hpp>
#include <duet/workload/kit.hpp>

#include <cmath>
#include <limits>

#include "duet_test.hpp"

namespace duet::test {
namespace {

using namespace duet::workload;

TEST(KitVerdictUlps, TheUlpsShownCountWhatAnUlpsToleranceCounts)
{
    // 1.9 off by 7 of its own ULPs: 7 / 1.9 = 3.7 epsilons relative, within `ulps = 4`, which the
    // figure shown must not exceed.
    const float want = 1.9f;
    float got = want;
    for (int i = 0; i < 7; ++i) {
        got = std::nextafter(got, 2.0f);
    }
    const double four_ulps = 4 * static_cast<double>(std::numeric_limits<float>::epsilon());
    const Agreement agreement = compare(std::vector<float>{got}, std::vector<float>{want}, four_ulps);
    EXPECT_EQ(agreement.beyond_tolerance, 0u);
    EXPECT_EQ(agreement.max_ulps, 7u) << "the raw distance";
    EXPECT_EQ(agreement.max_scaled_ulps, 4u);
    // One more step is 8 / 1.9 = 4.2 epsilons: beyond 4, and shown as 5.
    got = std::nextafter(got, 2.0f);
    const Agreement beyond = compare(std::vector<float>{got}, std::vector<float>{want}, four_ulps);
    EXPECT_EQ(beyond.beyond_tolerance, 1u);
    EXPECT_EQ(beyond.max_scaled_ulps, 5u);
}

TEST(KitVerdictUlps, TheSameInfinitiesOrBitsAreNoDifference)
{
    constexpr float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> values{inf, -inf, std::nanf("7"), 1.0f};
    const Agreement agreement = compare(values, values, 0);
    EXPECT_EQ(agreement.max_error, 0.0);
    EXPECT_EQ(agreement.differing, 0u);
    EXPECT_EQ(agreement.beyond_tolerance, 0u);
    EXPECT_EQ(agreement.max_scaled_ulps, 0u);
    EXPECT_EQ(agreement.describe(), "all 4 elements are identical");
    EXPECT_EQ(compare(std::vector<double>{-std::numeric_limits<double>::infinity()},
                      std::vector<double>{-std::numeric_limits<double>::infinity()}, 0)
                  .describe(),
              "the one element is identical");
    // Different infinities, or an infinity against a number, still differ.
    EXPECT_FALSE(compare(std::vector<float>{inf}, std::vector<float>{-inf}, 1).max_error <= 1);
    EXPECT_FALSE(compare(std::vector<float>{inf}, std::vector<float>{3e38f}, 1).max_error <= 1);
}

class CrossCheckVerdict : public DeviceTest {
protected:
    /// A measured run on this device named `label`, of a workload with or without a reference,
    /// whose output is `output`.
    workload::Run run_of(const std::string& label, std::vector<float> output, bool has_reference = false) const
    {
        WorkloadInfo info{"pair", "", {"default"}, {}, {}, {}};
        info.has_reference = has_reference;
        Job job{nullptr, info, "default", Settings(info, {}), device(), label, 1, Timing::once()};
        workload::Run run{std::move(job), Status::ok, {}, {}, {}, {}};
        run.measurement.output = Values(std::move(output));
        run.measurement.samples.emplace_back();
        return run;
    }
};

TEST_P(CrossCheckVerdict, WithoutAReferenceTwoRunsThatDifferAreBothWrongNamingEachOther)
{
    for (const bool swapped : {false, true}) {
        std::vector<workload::Run> runs{run_of("a", {1, 2}), run_of("b", {1, 3})};
        if (swapped) {
            std::swap(runs[0], runs[1]);
        }
        cross_check(runs.begin(), runs.end());
        const workload::Run& a = runs[swapped ? 1 : 0];
        const workload::Run& b = runs[swapped ? 0 : 1];
        EXPECT_EQ(a.status, Status::wrong) << a.reason;
        EXPECT_EQ(b.status, Status::wrong) << b.reason;
        EXPECT_NE(a.reason.find("differs from b"), std::string::npos) << a.reason;
        EXPECT_NE(b.reason.find("differs from a"), std::string::npos) << b.reason;
        EXPECT_NE(a.reason.find("no reference to tell"), std::string::npos) << a.reason;
        EXPECT_NE(b.reason.find("no reference to tell"), std::string::npos) << b.reason;
    }
}

TEST_P(CrossCheckVerdict, ABaseIsConfirmedOnlyByAnOkRunThatComparedAnElement)
{
    // Two runs that agree: the base records who confirmed it, and `with` stays "compared against".
    std::vector<workload::Run> agree{run_of("a", {1, 2}), run_of("b", {1, 2})};
    cross_check(agree.begin(), agree.end());
    EXPECT_EQ(agree[0].status, Status::ok) << agree[0].reason;
    EXPECT_TRUE(agree[0].device.base);
    EXPECT_EQ(agree[0].device.confirmed_by, "b");
    EXPECT_FALSE(agree[0].device.compared());
    EXPECT_EQ(agree[1].device.with, "a");
    EXPECT_TRUE(agree[1].device.confirmed_by.empty());

    // A run already wrong (never wrote an element, say) that agrees elsewhere confirms nothing.
    std::vector<workload::Run> wrong{run_of("a", {1, 2}), run_of("b", {1, 2})};
    wrong[1].status = Status::wrong;
    wrong[1].reason = "1 of 2 elements of 'y' was never written (index 1)";
    cross_check(wrong.begin(), wrong.end());
    EXPECT_EQ(wrong[0].status, Status::failed) << wrong[0].reason;
    EXPECT_NE(wrong[0].reason.find("nothing checked its output"), std::string::npos) << wrong[0].reason;
    EXPECT_TRUE(wrong[0].device.base);
    EXPECT_FALSE(wrong[0].device.confirmed());

    // Two runs that compared no element checked nothing of each other.
    std::vector<workload::Run> empty{run_of("a", {}), run_of("b", {})};
    cross_check(empty.begin(), empty.end());
    EXPECT_EQ(empty[0].status, Status::failed) << empty[0].reason;
    EXPECT_EQ(empty[1].status, Status::failed) << empty[1].reason;
}

TEST_P(CrossCheckVerdict, WithAReferenceTheRunThatDiffersFromAnOkBaseAloneIsWrong)
{
    std::vector<workload::Run> runs{run_of("a", {1, 2}, true), run_of("b", {1, 3}, true)};
    cross_check(runs.begin(), runs.end());
    EXPECT_EQ(runs[0].status, Status::ok) << runs[0].reason;
    EXPECT_EQ(runs[1].status, Status::wrong);
    EXPECT_EQ(runs[1].reason.find("no reference"), std::string::npos) << runs[1].reason;
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(CrossCheckVerdict);

} // namespace
} // namespace duet::test
