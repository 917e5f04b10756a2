// Runs that take turns (execute_in_turns): their passes alternate, warm-ups and setups included; a
// run with fewer passes, or one that throws, leaves the rotation and the others go on; a run whose
// rule is met goes on while another's is not; a run's
// time budget counts its own passes, not its waits; results come back in the jobs' order.
#include <duet/workload/kit.hpp>
#include <duet/workload/turns.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "duet_test.hpp"

namespace duet::test {
namespace {

using namespace duet::workload;

/// What the runs did, in the order they did it.
struct Log {
    std::mutex mutex;
    std::vector<std::string> entries;

    void add(std::string entry)
    {
        const std::lock_guard lock(mutex);
        entries.push_back(std::move(entry));
    }
};

/// A workload whose run logs "<name> setup", then "<name>" at each pass that repeat() takes, then
/// "<name> end"; its passes may sleep, and one of them may throw.
class Logged final : public Workload {
public:
    enum class Throw { nothing, runtime_error, integer };

    Logged(std::shared_ptr<Log> log, std::string name) : log_(std::move(log)), name_(std::move(name)) {}

    void sleep(std::chrono::milliseconds per_pass) { sleep_ = per_pass; }
    /// Every pass takes the same time, so that the median settles at the floor of passes.
    void steady() { steady_ = true; }
    /// Pass number `pass` (from 1, warm-ups counted) throws `what`.
    void throw_at(unsigned pass, Throw what)
    {
        throw_at_ = pass;
        throw_ = what;
    }

    WorkloadInfo info() const override
    {
        WorkloadInfo info{.name = "logged", .description = "logs its passes", .variants = {"default"}};
        info.has_reference = false;
        return info;
    }

    /// The footprint run() claims to have (it allocates nothing).
    void claim(Footprint footprint) { footprint_ = footprint; }

    Footprint footprint(const RunRequest&) const override { return footprint_; }

    Measurement run(const RunRequest& request) const override
    {
        log_->add(name_ + " setup");
        unsigned passes = 0;
        Measurement result;
        result.samples = repeat(request.timing, [&] {
            log_->add(name_);
            ++passes;
            if (passes == throw_at_ && throw_ == Throw::runtime_error) {
                throw std::runtime_error(name_ + " failed at pass " + std::to_string(passes));
            }
            if (passes == throw_at_ && throw_ == Throw::integer) {
                throw 42;
            }
            std::this_thread::sleep_for(sleep_);
            // Alternating times, so that the median never settles and only the budget or the
            // maximum ends the passes.
            Sample sample;
            sample.kernel_ms = sample.total_ms = steady_ || passes % 2 == 0 ? 1.0 : 2.0;
            return sample;
        });
        result.set_medians();
        result.output = std::vector<float>{1.0f};
        log_->add(name_ + " end");
        return result;
    }

private:
    std::shared_ptr<Log> log_;
    std::string name_;
    std::chrono::milliseconds sleep_{0};
    Throw throw_ = Throw::nothing;
    unsigned throw_at_ = 0;
    bool steady_ = false;
    Footprint footprint_;
};

class Turns : public ::testing::Test {
protected:
    void SetUp() override
    {
        const auto devices = all_devices();
        if (devices.empty()) {
            GTEST_SKIP() << "no device: a run's footprint is checked against one";
        }
        device_ = devices.front();
    }

    /// A job of `workload` (one Logged each) labelled `name`, timed as `timing` says.
    Job job(std::shared_ptr<const Workload> workload, const std::string& name, Timing timing) const
    {
        const auto info = workload->info();
        return {std::move(workload), info, "default", Settings(info, {}), *device_, name, 1, std::move(timing)};
    }

    Job job(const std::string& name, Timing timing) const { return job(logged(name), name, std::move(timing)); }

    std::shared_ptr<Logged> logged(const std::string& name) const { return std::make_shared<Logged>(log_, name); }

    std::shared_ptr<Log> log_ = std::make_shared<Log>();
    std::optional<Device> device_;
};

/// execute_in_turns, ending the process with a message where it has not returned within a minute:
/// runs that wait for a turn that never comes cannot be stopped otherwise.
std::vector<Run> in_turns_or_deadlock(const std::vector<Job>& jobs)
{
    auto done = std::async(std::launch::async, [&] { return execute_in_turns(jobs, true); });
    if (done.wait_for(std::chrono::minutes(1)) == std::future_status::timeout) {
        std::fprintf(stderr, "execute_in_turns did not return within a minute: its runs deadlocked\n");
        std::_Exit(1);
    }
    return done.get();
}

using Entries = std::vector<std::string>;

TEST_F(Turns, TwoRunsAlternatePassByPassWarmUpsIncluded)
{
    const auto runs = in_turns_or_deadlock({job("A", Timing::exactly(2, 1)), job("B", Timing::exactly(2, 1))});
    EXPECT_EQ(log_->entries, (Entries{"A setup", "B setup", "A", "B", "A", "B", "A", "A end", "B", "B end"}));
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].job.label, "A");
    EXPECT_EQ(runs[1].job.label, "B");
    for (const auto& run : runs) {
        EXPECT_EQ(run.status, Status::ok) << run.reason;
        EXPECT_EQ(run.measurement.samples.size(), 2u);
        EXPECT_FALSE(run.job.timing.turn) << "the turn is the rotation's, not the result's";
    }
}

TEST_F(Turns, ThreeRunsGoRoundInTheJobsOrder)
{
    const auto runs = in_turns_or_deadlock(
        {job("A", Timing::exactly(2, 0)), job("B", Timing::exactly(2, 0)), job("C", Timing::exactly(2, 0))});
    EXPECT_EQ(log_->entries,
              (Entries{"A setup", "B setup", "C setup", "A", "B", "C", "A", "A end", "B", "B end", "C", "C end"}));
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[2].job.label, "C");
}

TEST_F(Turns, ARunWithFewerPassesLeavesAndTheOthersGoOn)
{
    const auto runs = in_turns_or_deadlock(
        {job("A", Timing::exactly(1, 0)), job("B", Timing::exactly(4, 0)), job("C", Timing::exactly(2, 0))});
    EXPECT_EQ(log_->entries,
              (Entries{"A setup", "B setup", "C setup", "A", "A end", "B", "C", "B", "C", "C end", "B", "B", "B end"}));
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].measurement.samples.size(), 1u);
    EXPECT_EQ(runs[1].measurement.samples.size(), 4u);
    EXPECT_EQ(runs[2].measurement.samples.size(), 2u);
}

TEST_F(Turns, ARunWhoseRuleIsMetGoesOnWhileAnothersIsNot)
{
    // A settles at its floor of two passes; B never does and stops at its maximum of four. A goes
    // on beside B up to then, so that neither takes its last passes alone, and no further.
    const Timing rule{0, 2, 6, 1e9, 0.01, {}};
    const auto a = logged("A");
    a->steady();
    Timing b_rule = rule;
    b_rule.max_runs = 4;
    const auto runs = in_turns_or_deadlock({job(a, "A", rule), job("B", b_rule)});
    EXPECT_EQ(log_->entries, (Entries{"A setup", "B setup", "A", "B", "A", "B", "A", "B", "A", "B", "B end", "A end"}));
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].measurement.samples.size(), 4u);
    EXPECT_EQ(runs[1].measurement.samples.size(), 4u);
    // Alone, A stops at its floor.
    log_->entries.clear();
    EXPECT_EQ(execute(job(a, "A", rule), true).measurement.samples.size(), 2u);
}

TEST_F(Turns, ARunThatThrowsIsReportedAsAloneAndTheOthersGoOn)
{
    const auto b = logged("B");
    b->throw_at(2, Logged::Throw::runtime_error);
    const workload::Run alone = execute(job(b, "B", Timing::exactly(3, 0)), true);
    log_->entries.clear();

    const auto runs = in_turns_or_deadlock({job("A", Timing::exactly(4, 0)), job(b, "B", Timing::exactly(3, 0))});
    EXPECT_EQ(log_->entries, (Entries{"A setup", "B setup", "A", "B", "A", "B", "A", "A", "A end"}));
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].status, Status::ok) << runs[0].reason;
    EXPECT_EQ(runs[0].measurement.samples.size(), 4u);
    EXPECT_EQ(runs[1].status, Status::failed);
    EXPECT_EQ(runs[1].reason, "B failed at pass 2");
    EXPECT_EQ(runs[1].status, alone.status);
    EXPECT_EQ(runs[1].reason, alone.reason);
}

TEST_F(Turns, SomethingExecuteLetsThroughComesBackOnceTheOthersAreDone)
{
    const auto b = logged("B");
    b->throw_at(1, Logged::Throw::integer);
    // Whatever execute() does with a throw that is no std::exception, run alone, it does in turns.
    std::optional<workload::Run> alone;
    bool alone_threw = false;
    try {
        alone = execute(job(b, "B", Timing::exactly(3, 0)), true);
    } catch (int) {
        alone_threw = true;
    }
    log_->entries.clear();

    std::vector<workload::Run> runs;
    bool threw = false;
    try {
        runs = in_turns_or_deadlock({job("A", Timing::exactly(3, 0)), job(b, "B", Timing::exactly(3, 0))});
    } catch (int thrown) {
        threw = true;
        EXPECT_EQ(thrown, 42);
    }
    EXPECT_EQ(threw, alone_threw);
    EXPECT_EQ(log_->entries, (Entries{"A setup", "B setup", "A", "B", "A", "A", "A end"}));
    if (alone) {
        ASSERT_EQ(runs.size(), 2u);
        EXPECT_EQ(runs[1].status, alone->status);
        EXPECT_EQ(runs[1].reason, alone->reason);
    }
}

TEST_F(Turns, WhatTheOnStartCallbackThrowsComesBackOnceTheOthersAreDone)
{
    bool threw = false;
    try {
        execute_in_turns({job("A", Timing::exactly(2, 0)), job("B", Timing::exactly(2, 0))}, true, [](const Job& job) {
            if (job.label == "B") {
                throw std::runtime_error("B cannot start");
            }
        });
    } catch (const std::runtime_error& error) {
        threw = true;
        EXPECT_STREQ(error.what(), "B cannot start");
    }
    EXPECT_TRUE(threw);
    EXPECT_EQ(log_->entries, (Entries{"A setup", "A", "A", "A end"})) << "A runs to its end before the rethrow";
}

TEST_F(Turns, RunsThatDoNotFitInMemoryTogetherRunOneAfterAnother)
{
    const auto available = host_available_memory();
    if (!available) {
        GTEST_SKIP() << "this machine does not say how much host memory is available";
    }
    // Each alone fits; the two together need more host memory than there is, and taking turns
    // holds both runs' memory at once.
    const auto a = logged("A"), b = logged("B");
    Footprint footprint;
    footprint.host_bytes = *available / 20 * 11; // 55%: alone it fits though the memory free moves
    a->claim(footprint);
    b->claim(footprint);
    const std::vector<Job> jobs{job(a, "A", Timing::exactly(2, 0)), job(b, "B", Timing::exactly(2, 0))};
    const auto why = why_apart(jobs);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("of host memory"), std::string::npos) << *why;
    std::optional<std::string> apart;
    const auto runs = execute_in_turns(jobs, true, {}, &apart);
    EXPECT_EQ(apart, why);
    EXPECT_EQ(log_->entries, (Entries{"A setup", "A", "A", "A end", "B setup", "B", "B", "B end"}));
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[1].status, Status::ok) << runs[1].reason;

    // Small enough, they take turns, and nothing is set apart.
    footprint.host_bytes = 1 << 20;
    a->claim(footprint);
    b->claim(footprint);
    log_->entries.clear();
    execute_in_turns(jobs, true, {}, &apart);
    EXPECT_FALSE(apart.has_value());
    EXPECT_EQ(log_->entries, (Entries{"A setup", "B setup", "A", "B", "A", "A end", "B", "B end"}));
}

TEST_F(Turns, TheBudgetCountsARunsOwnPassesNotItsWaits)
{
    // A's passes take next to nothing, its budget 20 ms; B's each take 30 ms. Counted from A's
    // first timed pass, the budget would end A at its floor of two passes, one of B's between
    // them; its own passes spend almost none of it, so A reaches its maximum. (The passes' times
    // alternate, so the median never settles: with one sample it would, hence the floor of two.)
    const Timing budgeted{0, 2, 8, 20, 0, {}};
    const auto b = logged("B");
    b->sleep(std::chrono::milliseconds(30));
    const auto runs = in_turns_or_deadlock({job("A", budgeted), job(b, "B", Timing::exactly(8, 0))});
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].measurement.samples.size(), 8u);
    EXPECT_EQ(runs[1].measurement.samples.size(), 8u);
}

TEST_F(Turns, TheBudgetStillEndsARunWhosePassesSpendIt)
{
    // 10 ms a pass against a 25 ms budget: at most three passes, far from the maximum of 100.
    const Timing budgeted{0, 2, 100, 25, 0, {}};
    const auto a = logged("A");
    a->sleep(std::chrono::milliseconds(10));
    const auto runs = in_turns_or_deadlock({job(a, "A", budgeted), job("B", Timing::exactly(2, 0))});
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_GE(runs[0].measurement.samples.size(), 2u);
    EXPECT_LE(runs[0].measurement.samples.size(), 3u);
}

} // namespace
} // namespace duet::test
