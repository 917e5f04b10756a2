// Lifetimes: work enqueued on a queue never outlives the host memory it reads or writes. Releasing
// a queue waits for its work, and freeing a HostBuffer waits for every live queue of its device,
// so a run step that throws after enqueuing copies unwinds safely in any declaration order.
#include <algorithm>
#include <cstdlib>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

#include "duet_test.hpp"

namespace duet::test {
namespace {

/// Large enough that the allocator maps the pages afresh and unmaps them on free, and that a
/// copy on PoCL is still running when an unwinding caller frees its source.
constexpr std::size_t step_floats = std::size_t{4} << 20;
/// Before queues and host memory waited, PoCL crashed on the first or second of these.
constexpr int step_repeats = 8;

class LifetimeConformance : public DeviceTest {
protected:
    /// Iterations of `spin` that keep the device busy for a while, so that work is surely still
    /// queued when the test looks.
    std::uint32_t spin_iterations() const { return is_cpu() ? 20000 : 200000; }
    std::size_t spin_elements() const { return is_cpu() ? std::size_t{1} << 14 : std::size_t{1} << 20; }

    /// The spin kernel, enqueued on `queue` over `data`, followed by a marker.
    Event enqueue_slow_work(Queue& queue, const Buffer<float>& data)
    {
        const Kernel spin = test_kernel(device(), "spin");
        const std::size_t block = std::min<std::uint64_t>(64, spin.properties().max_block_size);
        const auto n = static_cast<std::uint32_t>(data.size());
        queue.launch(spin, Range::cover(n, block), data, 3.0f, spin_iterations(), n);
        return queue.record();
    }
};

/// Every host memory kind this device gives, each of `bytes`; registered memory over `owned`,
/// which the caller keeps alive longer than the returned buffers.
std::vector<HostBuffer> every_host_kind(const Device& device, std::size_t bytes, void* owned)
{
    std::vector<HostBuffer> buffers;
    for (const HostMemoryKind kind :
         {HostMemoryKind::pageable, HostMemoryKind::pinned, HostMemoryKind::write_combined, HostMemoryKind::mapped}) {
        try {
            buffers.push_back(device.alloc_host(bytes, kind));
        } catch (const Unsupported&) {
            // A kind this backend refuses: the others cover the device.
        }
    }
    try {
        buffers.push_back(device.register_host(owned, bytes));
    } catch (const Unsupported&) {
    }
    return buffers;
}

struct StepFailed : std::runtime_error {
    StepFailed() : std::runtime_error("the run step failed after enqueuing its work") {}
};

/// A workload's run step in the order stencil1d uses: the queue first, then host memory of every
/// kind; copies to and from each and a launch are enqueued, then the step throws, so unwinding
/// frees the host memory before the queue while the copies may still run.
void run_step_that_throws(const Device& device, void* registered_memory)
{
    const std::size_t bytes = step_floats * sizeof(float);
    Queue queue = device.create_queue();
    const std::vector<HostBuffer> hosts = every_host_kind(device, bytes, registered_memory);
    const Buffer<float> in = device.alloc<float>(step_floats);
    const Buffer<float> out = device.alloc<float>(step_floats);
    const Kernel scale = test_kernel(device, "scale");
    for (const HostBuffer& host : hosts) {
        std::span<float> values = host.as<float>();
        std::fill(values.begin(), values.end(), 1.5f);
        queue.write(BufferView<float>(in), std::span<const float>(values));
        const RawBuffer source = host.kind() == HostMemoryKind::mapped ? host.device_buffer() : in.raw();
        queue.launch(scale, Range::cover(step_floats, 64), source, out, 2.0f, static_cast<std::uint32_t>(step_floats));
        queue.read(values, BufferView<float>(out));
    }
    throw StepFailed();
}

/// The death test's child: the step, repeated; exits 0 when each threw as it should.
[[noreturn]] void repeat_run_step_and_exit(const Device& device)
{
    // Registered memory is the caller's own: it must outlive the step's HostBuffer.
    std::unique_ptr<void, void (*)(void*)> registered(std::aligned_alloc(4096, step_floats * sizeof(float)), std::free);
    for (int repeat = 0; repeat < step_repeats; ++repeat) {
        try {
            run_step_that_throws(device, registered.get());
            std::_Exit(1);
        } catch (const StepFailed&) {
        } catch (...) {
            std::_Exit(2);
        }
    }
    std::_Exit(0);
}

TEST_P(LifetimeConformance, ARunStepThatThrowsAfterEnqueuingUnwindsSafely)
{
    // In a child process, so that a use after free fails this test instead of killing the suite.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(repeat_run_step_and_exit(device()), ::testing::ExitedWithCode(0), "")
        << "child exit 1: the step did not throw, 2: another exception; a signal: the queue's copies used host "
           "memory after it was freed";
}

TEST_P(LifetimeConformance, ReleasingAQueueWaitsForItsWork)
{
    Buffer<float> data = make_buffer(device(), queue(), random_floats(spin_elements(), test_seed()));
    Event done;
    {
        Queue temporary = device().create_queue();
        done = enqueue_slow_work(temporary, data);
    }
    EXPECT_TRUE(done.complete()) << "the queue was released with its work still running";
    EXPECT_TRUE(bitwise_equal(std::vector<float>(spin_elements(), 3.0f), download(queue(), data)));
}

TEST_P(LifetimeConformance, FreeingHostMemoryWaitsForEveryQueueOfItsDevice)
{
    const std::size_t bytes = spin_elements() * sizeof(float);
    std::unique_ptr<void, void (*)(void*)> registered(std::aligned_alloc(4096, bytes), std::free);
    Buffer<float> data = make_buffer(device(), queue(), random_floats(spin_elements(), test_seed()));
    Buffer<float> target = device().alloc<float>(spin_elements());
    Queue other = device().create_queue();
    for (HostBuffer& host : every_host_kind(device(), bytes, registered.get())) {
        SCOPED_TRACE(std::string(to_string(host.kind())));
        // The slow work runs on another queue than the copy: every live queue is waited for.
        const Event slow = enqueue_slow_work(other, data);
        other.read(host.as<float>(), BufferView<float>(data));
        const Event copied = other.record();
        queue().write(BufferView<float>(target), host.as<const float>());
        const Event written = queue().record();
        host = HostBuffer{};
        EXPECT_TRUE(slow.complete() && copied.complete()) << "host memory was freed with another queue's copy running";
        EXPECT_TRUE(written.complete()) << "host memory was freed with its queue's copy running";
    }
}

TEST_P(LifetimeConformance, FreeingHostMemoryWhileAQueueRecordsLeavesTheRecordingWhole)
{
    // Freeing host memory waits for every queue of the device, but not for one that records: it
    // runs nothing, and a CUDA stream under capture cannot be synchronised.
    const std::size_t bytes = std::size_t{1} << 16;
    std::unique_ptr<void, void (*)(void*)> registered(std::aligned_alloc(4096, bytes), std::free);
    std::vector<HostBuffer> hosts = every_host_kind(device(), bytes, registered.get());
    const Kernel add = test_kernel(device(), "add_value");
    constexpr std::uint32_t n = 1000;
    const Buffer<std::uint32_t> x = make_buffer(device(), queue(), std::vector<std::uint32_t>(n, 0));
    const Range range = Range::cover(n, 64);
    std::promise<void> inside;
    std::promise<void> freed;
    Sequence sequence;
    std::thread recorder([&] {
        sequence = queue().record_sequence([&](Queue& recording) {
            recording.launch(add, range, x, std::uint32_t{1}, n);
            inside.set_value();
            freed.get_future().wait();
            recording.launch(add, range, x, std::uint32_t{2}, n);
        });
    });
    inside.get_future().wait();
    hosts.clear();
    freed.set_value();
    recorder.join();
    ASSERT_EQ(sequence.commands(), 2u);
    queue().replay(sequence);
    EXPECT_EQ(download(queue(), x), std::vector<std::uint32_t>(n, 3));
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(LifetimeConformance);

} // namespace
} // namespace duet::test
