// Cross checks and the ULPs shown: a tolerance in ULPs counts what the table shows, the same
// infinities are no difference, a base is confirmed only by an ok run that compared an element, and
// without a reference the largest group of runs that agree decides, whatever the order of the
// devices; a tie makes all wrong, and the same NaN on two devices is a difference.
#include <duet/workload/check.hpp>
#include <duet/workload/kit.hpp>

#include <algorithm>
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

/// A measured run on device `label` of variant `variant`, of a workload with or without a
/// reference, whose output is `output`. No device is touched: cross_check reads the outputs only.
workload::Run run_of(const std::string& label, std::vector<float> output, bool has_reference = false,
                     const std::string& variant = "v1")
{
    WorkloadInfo info{.name = "pair", .variants = {"v1", "v2"}};
    info.has_reference = has_reference;
    Job job{nullptr, info, variant, Settings(info, {}), Device(nullptr), label, 1, Timing::once()};
    workload::Run run{std::move(job), Status::ok, {}, {}, {}, {}};
    run.measurement.output = Values(std::move(output));
    run.measurement.samples.emplace_back();
    return run;
}

/// The status of the run on `label` of `variant` in `runs`.
Status status_of(const std::vector<workload::Run>& runs, const std::string& label, const std::string& variant = "v1")
{
    for (const auto& run : runs) {
        if (run.job.label == label && run.job.variant == variant) {
            return run.status;
        }
    }
    ADD_FAILURE() << "no run " << variant << " on " << label;
    return Status::failed;
}

std::string reasons(const std::vector<workload::Run>& runs)
{
    std::string all;
    for (const auto& run : runs) {
        all += job_name(run.job) + ": " + to_string(run.status) + " " + run.reason + "\n";
    }
    return all;
}

TEST(CrossCheckVerdict, WithoutAReferenceTwoRunsThatDifferAreBothWrongNamingEachOther)
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
        EXPECT_NE(a.reason.find("no reference can tell which is right"), std::string::npos) << a.reason;
        EXPECT_NE(b.reason.find("no reference can tell which is right"), std::string::npos) << b.reason;
    }
}

TEST(CrossCheckVerdict, WithoutAReferenceTheRunOutsideTheMajorityAloneIsWrongInEveryOrder)
{
    std::vector<workload::Run> runs{run_of("a", {1, 5}), run_of("b", {1, 2}), run_of("c", {1, 2})};
    std::vector<std::size_t> order{0, 1, 2};
    do {
        std::vector<workload::Run> ordered;
        for (const std::size_t i : order) {
            ordered.push_back(runs[i]);
        }
        cross_check(ordered.begin(), ordered.end());
        EXPECT_EQ(status_of(ordered, "a"), Status::wrong) << reasons(ordered);
        EXPECT_EQ(status_of(ordered, "b"), Status::ok) << reasons(ordered);
        EXPECT_EQ(status_of(ordered, "c"), Status::ok) << reasons(ordered);
        const auto a =
            std::find_if(ordered.begin(), ordered.end(), [](const auto& run) { return run.job.label == "a"; });
        EXPECT_NE(a->reason.find("differs from "), std::string::npos) << a->reason;
        EXPECT_NE(a->reason.find("2 of the 3 runs compared agree"), std::string::npos) << a->reason;
        for (const char* other : {"b", "c"}) {
            EXPECT_NE(a->reason.find(other), std::string::npos) << a->reason;
        }
    } while (std::next_permutation(order.begin(), order.end()));
}

TEST(CrossCheckVerdict, WithoutAReferenceAVariantConfirmedOnAnotherDeviceIsNotWrongForItsSibling)
{
    // v1 on a = v1 on b = v2 on b; v2 on a differs: only v2 on a is wrong, in either order.
    for (const bool swapped : {false, true}) {
        std::vector<workload::Run> runs{run_of("a", {1, 2}, false, "v1"), run_of("b", {1, 2}, false, "v1"),
                                        run_of("a", {1, 9}, false, "v2"), run_of("b", {1, 2}, false, "v2")};
        if (swapped) {
            std::swap(runs[0], runs[1]);
            std::swap(runs[2], runs[3]);
        }
        cross_check(runs.begin(), runs.end());
        EXPECT_EQ(status_of(runs, "a", "v1"), Status::ok) << reasons(runs);
        EXPECT_EQ(status_of(runs, "b", "v1"), Status::ok) << reasons(runs);
        EXPECT_EQ(status_of(runs, "b", "v2"), Status::ok) << reasons(runs);
        EXPECT_EQ(status_of(runs, "a", "v2"), Status::wrong) << reasons(runs);
    }
}

TEST(CrossCheckVerdict, WithoutAReferenceTwoAgainstTwoIsATieAndAllAreWrong)
{
    std::vector<workload::Run> runs{run_of("a", {1, 2}), run_of("b", {1, 3}), run_of("c", {1, 2}), run_of("d", {1, 3})};
    cross_check(runs.begin(), runs.end());
    for (const auto& run : runs) {
        EXPECT_EQ(run.status, Status::wrong) << reasons(runs);
        EXPECT_NE(run.reason.find("no reference can tell which is right"), std::string::npos) << run.reason;
    }
}

TEST(CrossCheckVerdict, WithoutAReferenceTheSameNaNOnTwoDevicesIsADifference)
{
    const float nan = std::nanf("");
    std::vector<workload::Run> runs{run_of("a", {1, nan}), run_of("b", {1, nan})};
    cross_check(runs.begin(), runs.end());
    EXPECT_EQ(runs[0].status, Status::wrong) << reasons(runs);
    EXPECT_EQ(runs[1].status, Status::wrong) << reasons(runs);
    // Against a reference that is NaN there itself, the same NaN still agrees.
    EXPECT_EQ(compare(std::vector<float>{nan}, std::vector<float>{nan}, 0).beyond_tolerance, 0u);
    // Equal infinities on two devices still agree.
    constexpr float inf = std::numeric_limits<float>::infinity();
    std::vector<workload::Run> infinite{run_of("a", {1, inf}), run_of("b", {1, inf})};
    cross_check(infinite.begin(), infinite.end());
    EXPECT_EQ(infinite[0].status, Status::ok) << reasons(infinite);
    EXPECT_EQ(infinite[1].status, Status::ok) << reasons(infinite);
}

TEST(CrossCheckVerdict, ABaseIsConfirmedOnlyByAnOkRunThatComparedAnElement)
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

TEST(CrossCheckVerdict, WithAReferenceTheRunThatDiffersFromAnOkBaseAloneIsWrong)
{
    std::vector<workload::Run> runs{run_of("a", {1, 2}, true), run_of("b", {1, 3}, true)};
    cross_check(runs.begin(), runs.end());
    EXPECT_EQ(runs[0].status, Status::ok) << runs[0].reason;
    EXPECT_EQ(runs[1].status, Status::wrong);
    EXPECT_EQ(runs[1].reason.find("no reference"), std::string::npos) << runs[1].reason;
}

} // namespace
} // namespace duet::test
