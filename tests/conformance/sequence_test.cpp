// Sequences: launches, copies and fills recorded once and replayed give what issuing them as often
// gives, through the backend's own replay and the core's plain one; the method each device
// reports; what a recording refuses, and the queue afterwards; lifetimes; devices and queues.
#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>

#include "duet_test.hpp"

namespace duet::test {
namespace {

using Words = std::vector<std::uint32_t>;

constexpr std::uint32_t n = 1003; // not a multiple of the block
constexpr std::uint32_t filled = 500;

/// `words`, `value` added to each: what add_value leaves.
Words plus(Words words, std::uint32_t value)
{
    for (std::uint32_t& word : words) {
        word += value;
    }
    return words;
}

class SequenceConformance : public DeviceTest {
protected:
    Kernel add_value() { return test_kernel(device(), "add_value"); }

    /// Whether the device lists cl_khr_command_buffer among its extensions.
    bool lists_command_buffers() const
    {
        for (const auto& [key, value] : props().raw) {
            if (key == "CL_DEVICE_EXTENSIONS") {
                return (" " + value + " ").find(" cl_khr_command_buffer ") != std::string::npos;
            }
        }
        return false;
    }
};

/// Three buffers and the commands a test records over them: a launch, a copy, a launch on the
/// copy, a fill of part of the third buffer, and a launch over all of it.
struct Commands {
    Buffer<std::uint32_t> a, b, c;
    Kernel kernel;

    void issue(Queue& queue) const
    {
        const Range range = Range::cover(n, 64);
        queue.launch(kernel, range, a, std::uint32_t{1}, n);
        queue.copy(b, a);
        queue.launch(kernel, range, b, std::uint32_t{2}, n);
        queue.fill(c.view(0, filled), std::uint32_t{7});
        queue.launch(kernel, range, c, std::uint32_t{5}, n);
    }
};

TEST_P(SequenceConformance, ReplayingGivesWhatIssuingTheCommandsAsOftenGives)
{
    constexpr int replays = 5;
    const Words a0 = random_values<std::uint32_t>(n, test_seed());
    const Words c0 = random_values<std::uint32_t>(n, test_seed() + 1);
    for (const Recording how : {Recording::native, Recording::plain}) {
        SCOPED_TRACE(how == Recording::native ? "native" : "plain");
        const auto make = [&] {
            return Commands{make_buffer(device(), queue(), a0), make_buffer(device(), queue(), Words(n, 0)),
                            make_buffer(device(), queue(), c0), add_value()};
        };
        const Commands issued = make();
        const Commands replayed = make();
        for (int i = 0; i < replays; ++i) {
            issued.issue(queue());
        }

        const Sequence sequence = queue().record_sequence([&](Queue& recording) { replayed.issue(recording); }, how);
        EXPECT_EQ(sequence.commands(), 5u);
        EXPECT_EQ(download(queue(), replayed.a), a0) << "recording ran a command";
        for (int i = 0; i < replays; ++i) {
            queue().replay(sequence);
        }

        Words a = a0;
        Words c = c0;
        for (std::uint32_t i = 0; i < n; ++i) {
            a[i] += replays;
            c[i] = i < filled ? 7 + 5 : c0[i] + 5 * replays;
        }
        EXPECT_EQ(download(queue(), issued.a), a);
        EXPECT_EQ(download(queue(), issued.b), plus(a, 2));
        EXPECT_EQ(download(queue(), issued.c), c);
        EXPECT_EQ(download(queue(), replayed.a), download(queue(), issued.a));
        EXPECT_EQ(download(queue(), replayed.b), download(queue(), issued.b));
        EXPECT_EQ(download(queue(), replayed.c), download(queue(), issued.c));
    }
}

TEST_P(SequenceConformance, ArgumentValuesAreTakenWhenRecorded)
{
    Buffer<std::uint32_t> data = make_buffer(device(), queue(), Words(n, 0));
    std::uint32_t value = 3;
    const Kernel kernel = add_value();
    const Sequence sequence = queue().record_sequence(
        [&](Queue& recording) { recording.launch(kernel, Range::cover(n, 64), data, value, n); });
    value = 1000;
    queue().replay(sequence);
    queue().replay(sequence);
    EXPECT_EQ(download(queue(), data), Words(n, 6));
}

TEST_P(SequenceConformance, TheReplayChoiceTimesTheDevicesOwnWayAgainstThePlainOneAndIsKept)
{
    const auto choice = replay_choice(device());
    const bool own_way = is_cuda() || lists_command_buffers();
    ASSERT_EQ(choice.has_value(), own_way) << "a choice exactly where the device has a replay of its own";
    if (!choice) {
        return;
    }
    RecordProperty("replay_choice", choice->text());
    EXPECT_EQ(choice->own, is_cuda() ? ReplayMethod::graph : ReplayMethod::command_buffer);
    EXPECT_GT(choice->own_us, 0);
    EXPECT_GT(choice->plain_us, 0);
    EXPECT_TRUE(mentions(choice->text(), {choice->plain_is_faster() ? "plain: " : std::string(to_string(choice->own)),
                                          "us a kernel against"}))
        << choice->text();
    // Asked again, the same answer: measured once a process.
    const auto again = replay_choice(device());
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->own_us, choice->own_us);
    EXPECT_EQ(again->plain_us, choice->plain_us);
    // And kept in the kernel cache as a tuner's choice is, unless the cache is off.
    const KernelCacheListing listing = list_kernel_cache();
    if (listing.status.state != KernelCacheStatus::State::on) {
        return;
    }
    const bool kept = std::any_of(listing.files.begin(), listing.files.end(), [](const KernelCacheFile& file) {
        return file.format == "tuning" && file.tuning.starts_with("replay");
    });
    EXPECT_TRUE(kept) << "no tuning entry for the replay in " << listing.status.directory;
}

TEST_P(SequenceConformance, RecordingFastestTakesTheFasterWayAndSaysWhyWhereThatIsPlain)
{
    Buffer<std::uint32_t> data = make_buffer(device(), queue(), Words(n, 0));
    const Kernel kernel = add_value();
    const Sequence fastest =
        queue().record_sequence([&](Queue& recording) { recording.launch(kernel, Range::cover(n, 64), data, 2u, n); });
    const auto choice = replay_choice(device());
    if (!choice) {
        const Sequence native = queue().record_sequence([](Queue&) {}, Recording::native);
        EXPECT_EQ(fastest.method(), native.method()) << "no choice: the device's own way, as Recording::native";
    } else if (choice->plain_is_faster()) {
        EXPECT_EQ(fastest.method(), ReplayMethod::plain);
        EXPECT_TRUE(mentions(fastest.reason(), {"the plain replay is the faster on this device", "us a kernel"}))
            << fastest.reason();
    } else {
        EXPECT_EQ(fastest.method(), choice->own);
        EXPECT_EQ(fastest.reason(), "");
    }
    queue().replay(fastest);
    queue().replay(fastest);
    EXPECT_EQ(download(queue(), data), Words(n, 4));
}

TEST_P(SequenceConformance, MethodIsTheBackendsOwnOrPlainWithItsReason)
{
    Buffer<std::uint32_t> data = make_buffer(device(), queue(), Words(n, 0));
    const Kernel kernel = add_value();
    const auto body = [&](Queue& recording) { recording.launch(kernel, Range::cover(n, 64), data, 1u, n); };

    const Sequence native = queue().record_sequence(body, Recording::native);
    RecordProperty("replay_method", std::string(to_string(native.method())));
    if (is_cuda()) {
        EXPECT_EQ(native.method(), ReplayMethod::graph);
    } else if (native.method() == ReplayMethod::plain) {
        EXPECT_TRUE(mentions(native.reason(), {"cl_khr_command_buffer", props().name})) << native.reason();
    } else {
        EXPECT_EQ(native.method(), ReplayMethod::command_buffer);
        EXPECT_TRUE(lists_command_buffers());
    }
    if (native.method() != ReplayMethod::plain) {
        EXPECT_EQ(native.reason(), "");
    }
    if (is_opencl() && !lists_command_buffers()) {
        EXPECT_EQ(native.method(), ReplayMethod::plain);
        EXPECT_TRUE(mentions(native.reason(), {"has no cl_khr_command_buffer"})) << native.reason();
    }

    const Sequence plain = queue().record_sequence(body, Recording::plain);
    EXPECT_EQ(plain.method(), ReplayMethod::plain);
    EXPECT_TRUE(mentions(plain.reason(), {"Recording::plain"})) << plain.reason();
}

TEST_P(SequenceConformance, HostCopiesAndSynchronisationAreRefusedAndTheQueueStaysUsable)
{
    const Words initial = random_values<std::uint32_t>(n, test_seed());
    Buffer<std::uint32_t> data = make_buffer(device(), queue(), initial);
    const Kernel kernel = add_value();
    Words host(n, 0);
    const Event before = queue().record();
    const std::vector<std::pair<const char*, std::function<void(Queue&)>>> refused = {
        {"Queue::read", [&](Queue& q) { q.read(std::span<std::uint32_t>(host), data); }},
        {"Queue::write", [&](Queue& q) { q.write(data, std::span<const std::uint32_t>(host)); }},
        {"Queue::finish", [&](Queue& q) { q.finish(); }},
        {"Queue::record", [&](Queue& q) { (void)q.record(); }},
        {"Queue::wait", [&](Queue& q) { q.wait(before); }},
    };
    for (const auto& [call, refusal] : refused) {
        SCOPED_TRACE(call);
        auto error = expect_error<InvalidArgument>([&] {
            (void)queue().record_sequence([&](Queue& recording) {
                recording.launch(kernel, Range::cover(n, 64), data, 1u, n);
                refusal(recording);
            });
        });
        if (error) {
            DUET_EXPECT_MENTIONS(*error, call, "records a sequence");
            const std::string why = std::string(call) == "Queue::read" || std::string(call) == "Queue::write"
                                        ? "host memory"
                                        : "synchronise";
            DUET_EXPECT_MENTIONS(*error, why);
        }
        // Nothing recorded ran, and the queue runs commands and records sequences again.
        EXPECT_EQ(download(queue(), data), initial);
        queue().launch(kernel, Range::cover(n, 64), data, 1u, n);
        const Sequence sequence = queue().record_sequence(
            [&](Queue& recording) { recording.launch(kernel, Range::cover(n, 64), data, std::uint32_t(-1), n); });
        queue().replay(sequence);
        EXPECT_EQ(download(queue(), data), initial);
    }
}

TEST_P(SequenceConformance, AnExceptionInTheBodyDropsTheRecording)
{
    const Words initial = random_values<std::uint32_t>(n, test_seed());
    Buffer<std::uint32_t> data = make_buffer(device(), queue(), initial);
    const Kernel kernel = add_value();
    EXPECT_THROW((void)queue().record_sequence([&](Queue& recording) {
        recording.launch(kernel, Range::cover(n, 64), data, 1u, n);
        throw std::runtime_error("the body gave up");
    }),
                 std::runtime_error);
    EXPECT_EQ(download(queue(), data), initial);
    const Sequence sequence =
        queue().record_sequence([&](Queue& recording) { recording.launch(kernel, Range::cover(n, 64), data, 2u, n); });
    queue().replay(sequence);
    EXPECT_EQ(download(queue(), data), plus(initial, 2));
}

TEST_P(SequenceConformance, NestingAndReplayingInsideARecordingAreRefused)
{
    Buffer<std::uint32_t> data = make_buffer(device(), queue(), Words(n, 0));
    const Kernel kernel = add_value();
    const Sequence inner =
        queue().record_sequence([&](Queue& recording) { recording.launch(kernel, Range::cover(n, 64), data, 1u, n); });
    auto nested = expect_error<InvalidArgument>(
        [&] { (void)queue().record_sequence([&](Queue& q) { (void)q.record_sequence([](Queue&) {}); }); });
    if (nested) {
        DUET_EXPECT_MENTIONS(*nested, "already recording");
    }
    auto replayed =
        expect_error<InvalidArgument>([&] { (void)queue().record_sequence([&](Queue& q) { q.replay(inner); }); });
    if (replayed) {
        DUET_EXPECT_MENTIONS(*replayed, "Queue::replay", "do not nest");
    }
    EXPECT_EQ(download(queue(), data), Words(n, 0));
}

TEST_P(SequenceConformance, CommandsOfAnotherThreadFallWhollyInsideTheRecordingOrOutsideIt)
{
    // Another thread adds 1000, `launches` times, while this one records twenty additions of 1:
    // each of its launches ran at once or was recorded, never both, never neither.
    constexpr std::uint32_t launches = 200;
    constexpr std::uint32_t own = 20;
    const Buffer<std::uint32_t> x = make_buffer(device(), queue(), Words(n, 0));
    const Kernel kernel = add_value();
    const Range range = Range::cover(n, 64);
    std::atomic<bool> started{false};
    std::thread other([&] {
        started = true;
        for (std::uint32_t i = 0; i < launches; ++i) {
            queue().launch(kernel, range, x, std::uint32_t{1000}, n);
        }
    });
    while (!started) {
        std::this_thread::yield();
    }
    const Sequence sequence = queue().record_sequence([&](Queue& recording) {
        for (std::uint32_t i = 0; i < own; ++i) {
            recording.launch(kernel, range, x, std::uint32_t{1}, n);
        }
    });
    other.join();
    ASSERT_GE(sequence.commands(), own);
    const auto recorded_of_other = static_cast<std::uint32_t>(sequence.commands() - own);
    EXPECT_EQ(download(queue(), x), Words(n, 1000 * (launches - recorded_of_other)));
    queue().replay(sequence);
    EXPECT_EQ(download(queue(), x), Words(n, 1000 * launches + own));
}

TEST_P(SequenceConformance, ASequenceKeepsWhatItUsesAlive)
{
    const Words initial = random_values<std::uint32_t>(n, test_seed());
    Buffer<std::uint32_t> out = make_buffer(device(), queue(), Words(n, 0));
    Sequence sequence;
    {
        // The only handles to this buffer and kernel go at the end of the scope.
        Buffer<std::uint32_t> scratch = make_buffer(device(), queue(), initial);
        const Kernel kernel = add_value();
        sequence = queue().record_sequence([&](Queue& recording) {
            recording.launch(kernel, Range::cover(n, 64), scratch, 1u, n);
            recording.copy(out, scratch);
        });
    }
    for (int i = 0; i < 3; ++i) {
        queue().replay(sequence);
    }
    EXPECT_EQ(download(queue(), out), plus(initial, 3));
}

TEST_P(SequenceConformance, ReplaysOnAnotherQueueOfTheDevice)
{
    Buffer<std::uint32_t> data = make_buffer(device(), queue(), Words(n, 0));
    const Kernel kernel = add_value();
    const Sequence sequence =
        queue().record_sequence([&](Queue& recording) { recording.launch(kernel, Range::cover(n, 64), data, 1u, n); });
    Queue other = device().create_queue();
    other.replay(sequence);
    other.replay(sequence);
    other.finish();
    queue().replay(sequence);
    EXPECT_EQ(download(queue(), data), Words(n, 3));
}

TEST_P(SequenceConformance, ReplayOnAnotherDevicesQueueIsRefused)
{
    const std::vector<Device> others = other_devices();
    if (others.empty()) {
        GTEST_SKIP() << no_other_device_reason();
    }
    Buffer<std::uint32_t> data = make_buffer(device(), queue(), Words(n, 0));
    const Kernel kernel = add_value();
    const Sequence sequence =
        queue().record_sequence([&](Queue& recording) { recording.launch(kernel, Range::cover(n, 64), data, 1u, n); });
    for (const Device& other : others) {
        SCOPED_TRACE("replayed on " + other.selector());
        Queue other_queue = other.create_queue();
        auto error = expect_error<InvalidArgument>([&] { other_queue.replay(sequence); });
        if (error) {
            DUET_EXPECT_MENTIONS(*error, "sequence", other.selector());
        }
    }
    EXPECT_EQ(download(queue(), data), Words(n, 0));
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(SequenceConformance);

} // namespace
} // namespace duet::test
