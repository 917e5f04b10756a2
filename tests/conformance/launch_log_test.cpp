// The launch log: what every queue of a device launched while it lived, each launch with its
// kernel, range and dynamic local memory, launches recorded for replay marked as such; nothing
// before or after it; one at a time per device.
#include "duet_test.hpp"

namespace duet::test {
namespace {

class LaunchLogConformance : public DeviceTest {};

TEST_P(LaunchLogConformance, KeepsEveryQueuesLaunchesWhileItLives)
{
    const Kernel add_value = test_kernel(device(), "add_value");
    const Kernel reduce_sum = test_kernel(device(), "reduce_sum");
    constexpr std::uint32_t n = 1000;
    Buffer<std::uint32_t> words = device().alloc<std::uint32_t>(n);
    Buffer<float> in = device().alloc<float>(n);
    Buffer<float> partial = device().alloc<float>(4);
    queue().fill(words, std::uint32_t{0});
    queue().fill(in, 1.0f);
    const Range words_range = Range::cover(n, 64);
    const Range reduce_range = Range::cover(n, 256);
    queue().launch(add_value, words_range, words, std::uint32_t{1}, n); // before the log: not kept

    std::vector<LaunchRecord> launches;
    {
        const LaunchLog log(device());
        Queue other = device().create_queue();
        queue().launch(add_value, words_range, words, std::uint32_t{2}, n);
        other.launch(reduce_sum, reduce_range, in, partial, LocalMemory{256 * sizeof(float)}, n);
        other.finish();
        const Sequence sequence = queue().record_sequence(
            [&](Queue& recording) { recording.launch(add_value, words_range, words, std::uint32_t{3}, n); });
        queue().replay(sequence);
        queue().finish();
        launches = log.launches();
    }
    queue().launch(add_value, words_range, words, std::uint32_t{4}, n); // after the log: not kept
    queue().finish();

    ASSERT_EQ(launches.size(), 3u) << "the launch on the queue, the one on another queue, the one recorded";
    EXPECT_EQ(launches[0].kernel.name(), "add_value");
    EXPECT_TRUE(launches[0].kernel.program().same_build(add_value.program())) << "the kernel's own program";
    EXPECT_TRUE(launches[0].range == words_range);
    EXPECT_EQ(launches[0].dynamic_local_bytes, 0u);
    EXPECT_FALSE(launches[0].recorded);
    EXPECT_EQ(launches[1].kernel.name(), "reduce_sum");
    EXPECT_TRUE(launches[1].range == reduce_range);
    EXPECT_EQ(launches[1].dynamic_local_bytes, 256 * sizeof(float));
    EXPECT_EQ(launches[2].kernel.name(), "add_value");
    EXPECT_TRUE(launches[2].recorded) << "recorded once, run by each replay";
    // Every launch still ran: 2 + 3 + 4 on top of the 1 before the log.
    EXPECT_EQ(download(queue(), words), std::vector<std::uint32_t>(n, 10u));
}

TEST_P(LaunchLogConformance, OneAtATimePerDevice)
{
    const LaunchLog log(device());
    const auto error = expect_error<InvalidArgument>([&] { const LaunchLog second(device()); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find(device().selector()), std::string::npos) << error->message();
    EXPECT_NE(error->message().find("one at a time"), std::string::npos) << error->message();
}

TEST_P(LaunchLogConformance, AnotherMayFollowOnceOneEnds)
{
    const Kernel add_value = test_kernel(device(), "add_value");
    Buffer<std::uint32_t> words = device().alloc<std::uint32_t>(64);
    {
        const LaunchLog first(device());
    }
    const LaunchLog second(device());
    queue().launch(add_value, Range::cover(64, 64), words, std::uint32_t{1}, std::uint32_t{64});
    queue().finish();
    EXPECT_EQ(second.launches().size(), 1u);
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(LaunchLogConformance);

} // namespace
} // namespace duet::test
