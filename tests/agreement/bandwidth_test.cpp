// bandwidth beyond what the generic workload test can see: single copies report the raw API's
// figure beside duet's, "both" reports each direction and their sum, kinds a backend cannot give
// are refused with Unsupported rather than replaced by another, and the stream-copy kernel moves
// every byte of odd sizes and writes nothing past them.
#include <map>
#include <string>

#include "bandwidth.hpp"
#include "duet_test.hpp"

namespace duet::test {
namespace {

class BandwidthWorkload : public DeviceTest {
protected:
    Measurement run(const std::string& variant, const std::string& direction)
    {
        const auto workload = WorkloadRegistry::global().find("bandwidth");
        const auto info = workload->info();
        const std::map<std::string, std::string> values{{"bytes", "1048579"}, {"direction", direction}};
        return run_within_limits(
            *workload, {device(), variant, Settings(info, values), true, test_seed(), workload::Timing::exactly(3, 1)});
    }
};

TEST_P(BandwidthWorkload, SingleCopiesReportTheRawApiBesideDuet)
{
    for (const char* direction : {"h2d", "d2h"}) {
        SCOPED_TRACE(direction);
        const Measurement result = run("pinned", direction);
        EXPECT_TRUE(result.matches_reference());
        std::map<std::string, double> extras(result.extras.begin(), result.extras.end());
        ASSERT_TRUE(extras.count("raw_gbps") && extras.count("duet_over_raw"));
        EXPECT_GT(extras["raw_gbps"], 0.0);
        EXPECT_DOUBLE_EQ(extras["duet_over_raw"], result.rate() / extras["raw_gbps"]);
    }
}

TEST_P(BandwidthWorkload, BothDirectionsReportEachAndTheirSum)
{
    const Measurement result = run("pinned", "both");
    EXPECT_TRUE(result.matches_reference());
    std::map<std::string, double> extras(result.extras.begin(), result.extras.end());
    ASSERT_TRUE(extras.count("h2d_gbps") && extras.count("d2h_gbps") && extras.count("sum_gbps"));
    EXPECT_GT(result.h2d_ms, 0.0);
    EXPECT_GT(result.d2h_ms, 0.0);
    EXPECT_DOUBLE_EQ(extras["sum_gbps"], extras["h2d_gbps"] + extras["d2h_gbps"]);
    EXPECT_EQ(result.bytes, 2.0 * 1048579);
    EXPECT_EQ(result.flops, 0.0);
}

TEST_P(BandwidthWorkload, KindsTheBackendLacksAreRefusedNotReplaced)
{
    if (shows(known::no_write_combined_memory)) {
        EXPECT_TRUE(expect_error<Unsupported>([&] { run("write_combined", "h2d"); }));
    } else {
        EXPECT_TRUE(run("write_combined", "h2d").matches_reference());
    }
    if (props().can_map_host_memory) {
        EXPECT_TRUE(run("mapped", "d2h").matches_reference());
    } else {
        expect_error<Unsupported>([&] { run("mapped", "d2h"); });
    }
}

TEST_P(BandwidthWorkload, StreamCopyMovesEveryByteAndNothingPast)
{
    const bandwidth::StreamCopy kernel(device());
    for (const std::size_t bytes : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17},
                                    std::size_t{4097}, (std::size_t{1} << 20) + 5}) {
        SCOPED_TRACE(dec(bytes) + " bytes");
        const std::size_t spare = 33;
        const auto sent = workload::random_values(workload::ElementType::u8, bytes, test_seed()).as<std::uint8_t>();
        const RawBuffer src = device().alloc_bytes(bytes);
        const RawBuffer dst = device().alloc_bytes(bytes + spare);
        queue().write_bytes(src, 0, sent.data(), bytes);
        const unsigned char zero = 0;
        queue().fill_bytes(dst, 0, bytes + spare, &zero, 1);
        kernel.run(queue(), src, dst, bytes);
        std::vector<unsigned char> want(sent.begin(), sent.end());
        want.resize(bytes + spare, 0);
        EXPECT_EQ(download_bytes(queue(), dst), want);
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(BandwidthWorkload);

TEST(BandwidthWorkloadVariants, AnUnknownVariantIsNotFound)
{
    const auto devices = all_devices();
    if (devices.empty()) {
        GTEST_SKIP() << "no device";
    }
    const auto workload = WorkloadRegistry::global().find("bandwidth");
    expect_error<NotFound>([&] {
        workload->run({devices.front(), "swapped", Settings(workload->info(), {}), true, test_seed(), {}});
    });
}

} // namespace
} // namespace duet::test
