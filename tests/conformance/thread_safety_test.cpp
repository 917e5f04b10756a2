// Threads: what the headers promise may be used from several threads at once, used so: one queue
// shared by every thread, a queue per thread on one device (with host memory freed meanwhile),
// and one program built by several threads at the same moment.
#include <atomic>
#include <barrier>
#include <functional>
#include <thread>

#include "duet_test.hpp"

namespace duet::test {
namespace {

constexpr int thread_count = 4;
constexpr int rounds = 20;
constexpr std::size_t elements = 4099;

/// Runs `body(t)` on thread_count threads released together; exceptions become test failures.
void on_threads(const std::function<void(int)>& body)
{
    std::barrier start(thread_count);
    std::vector<std::string> failures(thread_count);
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; ++t) {
        threads.emplace_back([&, t] {
            start.arrive_and_wait();
            try {
                body(t);
            } catch (const std::exception& error) {
                failures[t] = error.what();
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    for (int t = 0; t < thread_count; ++t) {
        EXPECT_TRUE(failures[t].empty()) << "thread " << t << ": " << failures[t];
    }
}

/// One thread's round: its input up, scaled by a factor of its own, the result down, checked.
/// The queue is in order, so one thread's three commands run in its order whatever the others
/// enqueue between them; finish() waits for theirs too.
bool scale_round(Queue& queue, const Kernel& scale, const Buffer<float>& in, const Buffer<float>& out,
                 std::uint64_t seed, int t, int round)
{
    const std::vector<float> values = random_floats(elements, seed + 1000 * t + round);
    const float factor = static_cast<float>(t + 2);
    std::vector<float> result(elements, poison());
    queue.write(BufferView<float>(in), std::span<const float>(values));
    queue.launch(scale, Range::cover(elements, 64), in, out, factor, static_cast<std::uint32_t>(elements));
    queue.read(std::span<float>(result), BufferView<float>(out));
    queue.finish();
    for (std::size_t i = 0; i < elements; ++i) {
        if (result[i] != values[i] * factor) {
            return false;
        }
    }
    return true;
}

class ThreadSafetyConformance : public DeviceTest {};

TEST_P(ThreadSafetyConformance, ThreadsShareOneQueueAndOneKernel)
{
    const Kernel scale = test_kernel(device(), "scale");
    const std::uint64_t seed = test_seed();
    Queue& shared = queue();
    std::atomic<int> wrong{0};
    on_threads([&](int t) {
        const Buffer<float> in = device().alloc<float>(elements);
        const Buffer<float> out = device().alloc<float>(elements);
        for (int round = 0; round < rounds; ++round) {
            wrong += scale_round(shared, scale, in, out, seed, t, round) ? 0 : 1;
        }
    });
    EXPECT_EQ(wrong.load(), 0) << "rounds whose result was wrong";
}

TEST_P(ThreadSafetyConformance, ThreadsEachWithTheirOwnQueueOnOneDevice)
{
    // Each round also frees host memory, which waits for every live queue of the device while
    // the other threads create, use and release theirs.
    const Kernel scale = test_kernel(device(), "scale");
    const std::uint64_t seed = test_seed();
    std::atomic<int> wrong{0};
    on_threads([&](int t) {
        const Buffer<float> in = device().alloc<float>(elements);
        const Buffer<float> out = device().alloc<float>(elements);
        for (int round = 0; round < rounds; ++round) {
            Queue own = device().create_queue();
            const HostBuffer staging = device().alloc_host(elements * sizeof(float), HostMemoryKind::pageable);
            own.write(BufferView<float>(in), staging.as<const float>());
            wrong += scale_round(own, scale, in, out, seed, t, round) ? 0 : 1;
        }
    });
    EXPECT_EQ(wrong.load(), 0) << "rounds whose result was wrong";
}

TEST_P(ThreadSafetyConformance, ThreadsBuildingTheSameProgramShareOneBuild)
{
    // A fresh cache directory and a define of this test's own: nothing is cached before.
    const TempDir cache;
    const ScopedEnv cache_dir("DUET_CACHE_DIR", cache.path().string());
    BuildOptions options;
    options.defines = {{"DUET_THREAD_TEST", std::to_string(test_seed())}};
    std::vector<Program> built(thread_count);
    on_threads([&](int t) { built[t] = device().build(kernels::test_kernels(), options); });
    for (int t = 0; t < thread_count; ++t) {
        ASSERT_TRUE(built[t].state()) << "thread " << t << " got no program";
        EXPECT_TRUE(built[t].same_build(built[0])) << "thread " << t << " built the program again";
    }
    EXPECT_EQ(files_below(cache.path()).size(), 1u) << "one build, one cache file";
    const Kernel scale = built[thread_count - 1].kernel("scale");
    const Buffer<float> in = device().alloc<float>(elements);
    const Buffer<float> out = device().alloc<float>(elements);
    EXPECT_TRUE(scale_round(queue(), scale, in, out, test_seed(), 0, 0));
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(ThreadSafetyConformance);

} // namespace
} // namespace duet::test
