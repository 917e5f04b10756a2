// The kit's verdicts across ranks that no workload reaches on purpose: a rank that fails (not
// refused) to start a run, ranks at different runs, an element a rank other than 0 never wrote,
// and every rank holding the slowest rank's copy and total times.
#include "distributed.hpp"

#include <devices.hpp>
#include <random.hpp>

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>

namespace duet::test {
namespace {

using namespace duet::workload;
using ::testing::AllOf;
using ::testing::HasSubstr;

struct Faults {
    bool fail_to_start_on_last_rank = false;
    bool skip_first_element_on_last_rank = false;
};

/// y = x, split by rows of one element over the ranks, copied block by block; the last rank fails
/// to start or leaves its block's first element unwritten, where asked.
Spec copy_spec(Faults faults)
{
    Spec spec;
    spec.info = {.name = "split_copy",
                 .description = "y = x, each rank its own block",
                 .parameters = {integer_parameter("n", 1000, 2, 1 << 20, "elements")}};
    const auto n = [](const Settings& settings) { return static_cast<std::size_t>(settings.integer("n")); };
    const Split rows_of_one{[](const Settings&) { return std::size_t{1}; }};
    BufferSpec x = input("x", n), y = output("y", n);
    x.split = rows_of_one;
    y.split = rows_of_one;
    spec.buffers = {x, y};
    spec.prepare = [faults](const Device&, const Settings&, const std::string&) -> Launch {
        return [faults](Queue& queue, const DeviceBuffers& buffers) {
            const Communicator& ranks = buffers.communicator();
            const bool last = ranks.rank() == ranks.size() - 1;
            const std::size_t rows = buffers.part("y").rows;
            const std::size_t skip = faults.skip_first_element_on_last_rank && last ? 1 : 0;
            queue.copy(buffers.get("y").view(skip, rows - skip), buffers.get("x").view(skip, rows - skip));
        };
    };
    if (faults.fail_to_start_on_last_rank) {
        spec.prepare = [prepare = spec.prepare](const Device& device, const Settings& settings,
                                                const std::string& variant) -> Prepared {
            const int rank = world().rank();
            if (rank == world().size() - 1) {
                throw Error("test", "prepare", "this rank's build broke on purpose");
            }
            return prepare(device, settings, variant);
        };
    }
    spec.reference = [](const Settings&, const HostArrays& arrays) {
        const auto x = arrays.in("x");
        auto y = arrays.out("y");
        std::copy(x.begin(), x.end(), y.begin());
    };
    spec.tolerance = [](const Settings&) { return Tolerance{0, "a copy"}; };
    return spec;
}

class RankVerdicts : public ::testing::Test {
protected:
    void SetUp() override
    {
        DUET_REQUIRE_TWO_RANKS();
        const std::vector<Device> devices = one_platforms_devices_for_the_ranks();
        if (devices.empty()) {
            GTEST_SKIP() << world().local_size() << " ranks on this node but no OpenCL platform with as many devices";
        }
        device_ = distributed::rank_device(devices, world());
        communicator_.emplace(world(), *device_, std::nullopt);
    }

    Measurement run(const Spec& spec, const std::map<std::string, std::string>& assignments = {})
    {
        const SpecWorkload workload(spec);
        RunRequest request{*device_, "default",   Settings(workload.info(), assignments),
                           true,     test_seed(), Timing::exactly(3, 0)};
        request.communicator = &*communicator_;
        return workload.run(request);
    }

    std::optional<Device> device_;
    std::optional<distributed::MpiCommunicator> communicator_;
};

TEST_F(RankVerdicts, ARankThatFailsToStartFailsTheRunOnRankZeroNamingTheRankItsDeviceAndItsError)
{
    const int last = world().size() - 1;
    try {
        run(copy_spec({.fail_to_start_on_last_rank = true}));
        FAIL() << "the run went on with rank " << last << " unable to start";
    } catch (const Unsupported& refused) {
        FAIL() << "a failure read as refused: " << refused.what();
    } catch (const Error& error) {
        if (world().rank() == 0) {
            EXPECT_THAT(std::string(error.what()),
                        AllOf(HasSubstr("on " + std::to_string(world().size()) + " ranks"),
                              HasSubstr("rank " + std::to_string(last) + " ("), HasSubstr("failed: "),
                              HasSubstr("this rank's build broke on purpose")));
        } else if (world().rank() == last) {
            EXPECT_THAT(std::string(error.what()), HasSubstr("this rank's build broke on purpose"));
        } else {
            EXPECT_THAT(std::string(error.what()), HasSubstr("another rank could not start this run"));
        }
    }
}

TEST_F(RankVerdicts, RanksAtDifferentRunsDoNotPairTheirExchanges)
{
    // The last rank's n differs: as if it had skipped a run the others are at.
    const std::string n = world().rank() == world().size() - 1 ? "1002" : "1000";
    try {
        run(copy_spec({}), {{"n", n}});
        FAIL() << "ranks at different runs went on together";
    } catch (const Error& error) {
        if (world().rank() == 0) {
            EXPECT_THAT(std::string(error.what()),
                        AllOf(HasSubstr("rank " + std::to_string(world().size() - 1) + " is at another run"),
                              HasSubstr("n=1002")));
        }
    }
}

TEST_F(RankVerdicts, AnElementALaterRankLeftUnwrittenIsNamedAtItsPlaceInTheWholeOutput)
{
    const Measurement result = run(copy_spec({.skip_first_element_on_last_rank = true}));
    if (world().rank() != 0) {
        return;
    }
    const std::size_t first_of_last = part_of(1000, 1, 0, world().size() - 1, world().size()).first_row;
    EXPECT_EQ(result.writes.unwritten, 1u) << result.writes.describe({});
    ASSERT_EQ(result.writes.outputs.size(), 1u);
    EXPECT_EQ(result.writes.outputs[0].first, first_of_last);
    EXPECT_EQ(result.writes.outputs[0].last, first_of_last);
    EXPECT_FALSE(result.matches_reference()) << "a run with an element never written matches nothing";
    EXPECT_THAT(result.writes.describe({}), HasSubstr("(index " + std::to_string(first_of_last) + ")"));
}

TEST_F(RankVerdicts, EveryRankHoldsTheSlowestRanksCopyKernelAndTotalTimes)
{
    const Measurement result = run(copy_spec({}));
    ASSERT_FALSE(result.samples.empty());
    std::string mine;
    for (const Sample& sample : result.samples) {
        for (const double ms : {sample.h2d_ms, sample.kernel_ms, sample.d2h_ms, sample.total_ms}) {
            mine.append(reinterpret_cast<const char*>(&ms), sizeof(ms));
        }
    }
    const auto every = communicator_->gather_text(mine);
    if (world().rank() == 0) {
        for (std::size_t r = 1; r < every.size(); ++r) {
            EXPECT_EQ(every[r], every[0]) << "rank " << r << " holds other times than rank 0: each phase is "
                                          << "the largest over the ranks, the same on all of them";
        }
    }
}

} // namespace
} // namespace duet::test
