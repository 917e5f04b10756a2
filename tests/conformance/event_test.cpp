// Events: waiting, completion, lifetime past their queue, and device-clock intervals that are
// non-negative and grow across real work. No speed is asserted: that belongs to benchmarks.
#include <algorithm>
#include <chrono>
#include <thread>

#include "duet_test.hpp"

namespace duet::test {
namespace {

class EventConformance : public DeviceTest {
protected:
    // Enqueues enough kernel work to take a measurable time on any device.
    void enqueue_work(Buffer<float>& data)
    {
        const std::size_t n = data.size();
        const Kernel spin = test_kernel(device(), "spin");
        const std::size_t block = std::min<std::uint64_t>(64, spin.properties().max_block_size);
        queue().launch(spin, Range::cover(n, block), data, 3.0f, is_cpu() ? 2000u : 20000u,
                       static_cast<std::uint32_t>(n));
    }
    Buffer<float> work_buffer()
    {
        const std::size_t n = is_cpu() ? (std::size_t{1} << 14) : (std::size_t{1} << 20);
        return make_buffer(device(), queue(), random_floats(n, test_seed()));
    }
};

TEST_P(EventConformance, WaitMeansTheWorkBeforeItIsDone)
{
    Buffer<float> data = work_buffer();
    enqueue_work(data);
    std::vector<float> out(data.size(), poison());
    queue().read(std::span<float>(out), BufferView<float>(data));
    const Event done = queue().record();
    done.wait();
    EXPECT_TRUE(done.complete());
    EXPECT_TRUE(bitwise_equal(std::vector<float>(data.size(), 3.0f), out));
}

TEST_P(EventConformance, CompleteAfterFinish)
{
    const Event before = queue().record();
    Buffer<float> data = work_buffer();
    enqueue_work(data);
    const Event after = queue().record();
    queue().finish();
    EXPECT_TRUE(before.complete());
    EXPECT_TRUE(after.complete());
    after.wait(); // waiting on a complete event returns at once
    before.wait();
}

TEST_P(EventConformance, ElapsedTimeIsNonNegativeAndGrowsAcrossAKernel)
{
    Buffer<float> data = work_buffer();
    const Event start = queue().record();
    const Event middle = queue().record();
    enqueue_work(data);
    const Event end = queue().record();
    end.wait();
    const double empty = elapsed_ms(start, middle);
    const double total = elapsed_ms(start, end);
    const double kernel = elapsed_ms(middle, end);
    EXPECT_GE(empty, 0.0);
    EXPECT_GT(kernel, 0.0) << "no device time passed across a kernel";
    EXPECT_GE(total, kernel);
    EXPECT_GE(total, empty);
}

TEST_P(EventConformance, EventOutlivesItsQueue)
{
    Buffer<float> data = work_buffer();
    Event done;
    {
        Queue temporary = device().create_queue();
        temporary.fill(BufferView<float>(data), 5.0f);
        done = temporary.record();
    }
    done.wait();
    EXPECT_TRUE(done.complete());
    EXPECT_TRUE(bitwise_equal(std::vector<float>(data.size(), 5.0f), download(queue(), data)));
}

TEST_P(EventConformance, EventsOfTwoQueuesOfOneDeviceCanBeTimedAgainstEachOther)
{
    Queue second = device().create_queue();
    const Event a = queue().record();
    queue().finish();
    second.wait(a);
    const Event b = second.record();
    b.wait();
    EXPECT_GE(elapsed_ms(a, b), 0.0);
}

// Polls `event` until it completes or a minute passes; true if it completed. A backend may hold a
// recorded marker back from the device (OpenCL's is sent by the next flush): a poll must send it.
bool completes_by_polling(const Event& event)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!event.complete()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

TEST_P(EventConformance, AnEventOnlyPolledCompletes)
{
    Buffer<float> data = work_buffer();
    enqueue_work(data);
    const Event done = queue().record();
    EXPECT_TRUE(completes_by_polling(done)) << "no wait, no finish: polling alone must see it complete";
}

TEST_P(EventConformance, AQueueWaitingForAnotherQueuesUnfinishedEventGoesOn)
{
    Buffer<float> data = work_buffer();
    enqueue_work(data);
    const Event first_done = queue().record();
    Queue second = device().create_queue();
    second.wait(first_done);
    second.fill(BufferView<float>(data), 7.0f);
    const Event second_done = second.record();
    ASSERT_TRUE(completes_by_polling(second_done)) << "the second queue never saw the first queue's event";
    EXPECT_TRUE(first_done.complete());
    EXPECT_TRUE(bitwise_equal(std::vector<float>(data.size(), 7.0f), download(queue(), data)))
        << "the fill ran before the first queue's kernel had finished writing";
}

// A default-constructed Event is no event: every use is refused, none crashes.
TEST(EventEmptyHandleDeathTest, EveryUseIsRefused)
{
    DUET_EXPECT_REFUSED_WITHOUT_CRASH(Event{}.wait());
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)Event{}.complete());
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)elapsed_ms(Event{}, Event{}));
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(EventConformance);

} // namespace
} // namespace duet::test
