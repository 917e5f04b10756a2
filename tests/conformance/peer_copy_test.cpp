// Copies between two devices of one backend (Queue::copy_bytes across devices): byte for byte by
// each route, issued on either side, ordered by events across the devices, and refused with a
// message naming what is wrong. Parameterised over every ordered pair of devices of one backend.
#include <algorithm>
#include <optional>

#include "duet_test.hpp"

namespace duet::test {
namespace {

struct PeerPair {
    std::string name;
    std::optional<Device> from;
    std::optional<Device> to;
    std::string skip_reason;
};

void PrintTo(const PeerPair& pair, std::ostream* os)
{
    *os << pair.name;
}

std::vector<PeerPair> peer_pairs()
{
    std::vector<PeerPair> pairs;
    std::map<std::string, std::vector<Device>> by_backend;
    for (const Device& device : all_devices()) {
        by_backend[device.backend()].push_back(device);
    }
    for (const DeviceParam& param : device_params()) {
        if (!param.device && !by_backend.contains(param.backend)) {
            pairs.push_back({sanitize(param.backend) + "_unavailable", std::nullopt, std::nullopt,
                             "peer copies need two devices of one backend: " + param.skip_reason});
        }
    }
    for (const auto& [backend, devices] : by_backend) {
        if (devices.size() < 2) {
            pairs.push_back({sanitize(backend) + "_one_device", std::nullopt, std::nullopt,
                             "peer copies need two devices of one backend; " + backend + " has " +
                                 std::to_string(devices.size()) +
                                 (backend == "opencl" ? " (run with POCL_DEVICES=\"pthread pthread\")" : "")});
            continue;
        }
        for (const Device& from : devices) {
            for (const Device& to : devices) {
                if (!(from == to)) {
                    pairs.push_back(
                        {sanitize(backend) + "_" + std::to_string(from.index()) + "_to_" + std::to_string(to.index()),
                         from,
                         to,
                         {}});
                }
            }
        }
    }
    return pairs;
}

/// Bytes 1..255 from a cheap generator: megabytes per case, never zero.
std::vector<unsigned char> pattern_bytes(std::size_t n, std::uint64_t seed)
{
    std::vector<unsigned char> out(n);
    std::uint64_t state = seed | 1;
    for (unsigned char& byte : out) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        byte = static_cast<unsigned char>(1 + (state >> 33) % 255);
    }
    return out;
}

/// The chunk the staged route uses by default (core/src/peer_copy.cpp): sizes below straddle it.
constexpr std::size_t chunk = std::size_t{16} << 20;

enum class Side { destination, source };

std::string side_name(Side side)
{
    return side == Side::destination ? "queue of the destination" : "queue of the source";
}

class PeerCopy : public ::testing::TestWithParam<PeerPair> {
protected:
    void SetUp() override
    {
        if (!GetParam().from) {
            GTEST_SKIP() << GetParam().skip_reason;
        }
        from_queue_.emplace(from().create_queue());
        to_queue_.emplace(to().create_queue());
    }

    const Device& from() const { return *GetParam().from; }
    const Device& to() const { return *GetParam().to; }
    Queue& from_queue() { return *from_queue_; }
    Queue& to_queue() { return *to_queue_; }
    Queue& queue_of(Side side) { return side == Side::destination ? to_queue() : from_queue(); }

    /// The routes this pair has: automatic, staged, and direct where the destination reaches the
    /// source (and the source the destination, for copies issued on the source's queue).
    std::vector<std::optional<PeerRoute>> routes(Side side) const
    {
        std::vector<std::optional<PeerRoute>> out{std::nullopt, PeerRoute::staged};
        const PeerRoute possible = side == Side::destination ? to().peer_route(from()) : from().peer_route(to());
        if (possible == PeerRoute::direct) {
            out.push_back(PeerRoute::direct);
        }
        return out;
    }

    RawBuffer filled(const Device& device, Queue& queue, const std::vector<unsigned char>& bytes)
    {
        RawBuffer buffer = device.alloc_bytes(bytes.size());
        queue.write_bytes(buffer, 0, bytes.data(), bytes.size());
        queue.finish();
        return buffer;
    }

    /// Copies `bytes` from `src_offset` of a source buffer to `dst_offset` of a destination buffer
    /// on the queue of `side` by `route`, then checks the destination: the range copied, the rest
    /// untouched.
    void expect_copied(std::size_t bytes, std::size_t src_offset, std::size_t dst_offset, Side side,
                       std::optional<PeerRoute> route)
    {
        SCOPED_TRACE(std::to_string(bytes) + " bytes from offset " + std::to_string(src_offset) + " to offset " +
                     std::to_string(dst_offset) + ", " + side_name(side) + ", route " +
                     (route ? std::string(to_string(*route)) : std::string("automatic")));
        const auto source_bytes = pattern_bytes(src_offset + bytes + 3, test_seed() + bytes);
        auto expected = pattern_bytes(dst_offset + bytes + 5, test_seed() + bytes + 1);
        RawBuffer src = filled(from(), from_queue(), source_bytes);
        RawBuffer dst = filled(to(), to_queue(), expected);
        Queue& queue = queue_of(side);
        queue.copy_bytes(dst, dst_offset, src, src_offset, bytes, route);
        queue.finish();
        std::copy_n(source_bytes.begin() + static_cast<std::ptrdiff_t>(src_offset), bytes,
                    expected.begin() + static_cast<std::ptrdiff_t>(dst_offset));
        EXPECT_TRUE(same_bytes(expected, download_bytes(to_queue(), dst)));
    }

private:
    std::optional<Queue> from_queue_;
    std::optional<Queue> to_queue_;
};

TEST_P(PeerCopy, SmallCopiesArriveByEveryRouteFromEitherSide)
{
    for (const Side side : {Side::destination, Side::source}) {
        for (const auto route : routes(side)) {
            expect_copied(0, 0, 0, side, route);
            expect_copied(1, 0, 0, side, route);
            expect_copied(1, 7, 13, side, route);
            expect_copied(4099, 5, 3, side, route);
        }
    }
}

TEST_P(PeerCopy, CopiesOfSeveralChunksArriveByEveryRouteFromEitherSide)
{
    for (const Side side : {Side::destination, Side::source}) {
        for (const auto route : routes(side)) {
            expect_copied(chunk + 13, 3, 1, side, route);
            // More chunks than the route keeps buffers, so each is reused within one copy.
            expect_copied(4 * chunk + 77, 11, 0, side, route);
        }
    }
}

TEST_P(PeerCopy, TwoStagedCopiesBackToBackOnOnePairAreBothRight)
{
    for (const Side side : {Side::destination, Side::source}) {
        SCOPED_TRACE(side_name(side));
        const std::size_t n = 2 * chunk + 101;
        const auto first_bytes = pattern_bytes(n, test_seed() + 1);
        const auto second_bytes = pattern_bytes(n, test_seed() + 2);
        RawBuffer first_src = filled(from(), from_queue(), first_bytes);
        RawBuffer second_src = filled(from(), from_queue(), second_bytes);
        RawBuffer first_dst = to().alloc_bytes(n);
        RawBuffer second_dst = to().alloc_bytes(n);
        Queue& queue = queue_of(side);
        // No wait in between: the second copy takes the chunks the first still uses.
        queue.copy_bytes(first_dst, 0, first_src, 0, n, PeerRoute::staged);
        queue.copy_bytes(second_dst, 0, second_src, 0, n, PeerRoute::staged);
        queue.finish();
        EXPECT_TRUE(same_bytes(first_bytes, download_bytes(to_queue(), first_dst)));
        EXPECT_TRUE(same_bytes(second_bytes, download_bytes(to_queue(), second_dst)));
    }
}

TEST_P(PeerCopy, SourceWorkWaitedForIsCopiedAndLaterDestinationWorkSeesTheCopy)
{
    const std::size_t n = std::size_t{1} << 14;
    const Kernel spin = test_kernel(from(), "spin");
    const std::size_t block = std::min<std::uint64_t>(64, spin.properties().max_block_size);
    const bool cpu = from().properties().type == DeviceType::cpu;
    for (const Side side : {Side::destination, Side::source}) {
        for (const auto route : routes(side)) {
            SCOPED_TRACE(side_name(side) + ", route " + (route ? std::string(to_string(*route)) : "automatic"));
            Buffer<float> src = make_buffer(from(), from_queue(), random_floats(n, test_seed()));
            Buffer<float> dst = make_buffer(to(), to_queue(), std::vector<float>(n, poison()));
            Buffer<float> later = make_buffer(to(), to_queue(), std::vector<float>(n, poison()));
            // Slow work on the source that writes 3.0 everywhere; the copy must come after it.
            from_queue().launch(spin, Range::cover(n, block), src, 3.0f, cpu ? 2000u : 20000u,
                                static_cast<std::uint32_t>(n));
            if (side == Side::destination) {
                to_queue().wait(from_queue().record());
                to_queue().copy(dst, src, route);
            } else {
                from_queue().copy(dst, src, route);
                to_queue().wait(from_queue().record());
            }
            // Work the destination's queue issues after the copy sees what it wrote.
            to_queue().copy(later, dst);
            EXPECT_TRUE(bitwise_equal(std::vector<float>(n, 3.0f), download(to_queue(), later)));
        }
    }
}

TEST_P(PeerCopy, RoutesOfThePairAreReported)
{
    EXPECT_EQ(to().peer_route(to()), PeerRoute::direct);
    const PeerRoute route = to().peer_route(from());
    if (to().backend() == "opencl") {
        EXPECT_EQ(route, PeerRoute::staged) << "OpenCL devices have a context each: no direct route";
    }
    EXPECT_EQ(to_string(PeerRoute::direct), "direct");
    EXPECT_EQ(to_string(PeerRoute::staged), "staged");
}

TEST_P(PeerCopy, ForcedDirectRouteWithoutPeerAccessIsUnsupported)
{
    if (to().peer_route(from()) == PeerRoute::direct) {
        GTEST_SKIP() << to().selector() << " reaches " << from().selector() << "'s memory directly";
    }
    RawBuffer src = filled(from(), from_queue(), pattern_bytes(256, test_seed()));
    const auto before = pattern_bytes(256, test_seed() + 1);
    RawBuffer dst = filled(to(), to_queue(), before);
    auto error = expect_error<Unsupported>([&] { to_queue().copy_bytes(dst, 0, src, 0, 256, PeerRoute::direct); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "no direct route");
        DUET_EXPECT_MENTIONS(*error, from().selector());
        DUET_EXPECT_MENTIONS(*error, "PeerRoute::staged");
    }
    EXPECT_TRUE(same_bytes(before, download_bytes(to_queue(), dst))) << "a refused copy wrote the destination";
}

TEST_P(PeerCopy, RangePastEitherEndIsRefusedNamingTheSize)
{
    RawBuffer src = filled(from(), from_queue(), pattern_bytes(256, test_seed()));
    const auto before = pattern_bytes(128, test_seed() + 1);
    RawBuffer dst = filled(to(), to_queue(), before);
    auto past_source = expect_error<InvalidArgument>([&] { to_queue().copy_bytes(dst, 0, src, 200, 100); });
    if (past_source) {
        DUET_EXPECT_MENTIONS(*past_source, "source");
        DUET_EXPECT_MENTIONS(*past_source, "256 bytes");
    }
    auto past_destination =
        expect_error<InvalidArgument>([&] { from_queue().copy_bytes(dst, 100, src, 0, 100, PeerRoute::staged); });
    if (past_destination) {
        DUET_EXPECT_MENTIONS(*past_destination, "destination");
        DUET_EXPECT_MENTIONS(*past_destination, "128 bytes");
    }
    EXPECT_TRUE(same_bytes(before, download_bytes(to_queue(), dst))) << "a refused copy wrote the destination";
}

TEST_P(PeerCopy, StagedRouteWithinOneDeviceIsRefused)
{
    RawBuffer a = filled(to(), to_queue(), pattern_bytes(64, test_seed()));
    RawBuffer b = to().alloc_bytes(64);
    auto error = expect_error<InvalidArgument>([&] { to_queue().copy_bytes(b, 0, a, 0, 64, PeerRoute::staged); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "two devices");
        DUET_EXPECT_MENTIONS(*error, to().selector());
    }
}

TEST_P(PeerCopy, QueueOfAThirdDeviceIsRefusedNamingAllThree)
{
    std::optional<Device> third;
    for (const Device& device : all_devices()) {
        if (device.backend() == to().backend() && !(device == to()) && !(device == from())) {
            third = device;
        }
    }
    if (!third) {
        GTEST_SKIP() << "needs a third device of " << to().backend()
                     << (to().backend() == "opencl" ? " (run with POCL_DEVICES=\"pthread pthread pthread\")" : "");
    }
    RawBuffer src = filled(from(), from_queue(), pattern_bytes(64, test_seed()));
    RawBuffer dst = to().alloc_bytes(64);
    Queue queue = third->create_queue();
    auto error = expect_error<InvalidArgument>([&] { queue.copy_bytes(dst, 0, src, 0, 64); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "neither buffer is on the queue's device");
        for (const Device& device : {from(), to(), *third}) {
            DUET_EXPECT_MENTIONS(*error, device.selector());
        }
    }
}

TEST_P(PeerCopy, BufferOfAnotherBackendIsRefusedNamingBoth)
{
    std::optional<Device> foreign;
    for (const Device& device : all_devices()) {
        if (device.backend() != to().backend()) {
            foreign = device;
        }
    }
    if (!foreign) {
        GTEST_SKIP() << "needs a device of another backend than " << to().backend();
    }
    RawBuffer theirs = foreign->alloc_bytes(64);
    RawBuffer ours = to().alloc_bytes(64);
    for (const bool into_ours : {true, false}) {
        auto error = expect_error<InvalidArgument>([&] {
            if (into_ours) {
                to_queue().copy_bytes(ours, 0, theirs, 0, 64);
            } else {
                to_queue().copy_bytes(theirs, 0, ours, 0, 64);
            }
        });
        if (error) {
            DUET_EXPECT_MENTIONS(*error, foreign->backend() + " backend");
            DUET_EXPECT_MENTIONS(*error, to().backend() + " backend");
        }
    }
    auto route = expect_error<InvalidArgument>([&] { static_cast<void>(to().peer_route(*foreign)); });
    if (route) {
        DUET_EXPECT_MENTIONS(*route, "different backends");
    }
}

TEST_P(PeerCopy, CopyBetweenDevicesIsRefusedInsideARecording)
{
    RawBuffer src = filled(from(), from_queue(), pattern_bytes(64, test_seed()));
    RawBuffer dst = to().alloc_bytes(64);
    auto error = expect_error<InvalidArgument>(
        [&] { static_cast<void>(to_queue().record_sequence([&](Queue& q) { q.copy_bytes(dst, 0, src, 0, 64); })); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "cannot copy between devices");
    }
}

INSTANTIATE_TEST_SUITE_P(Pairs, PeerCopy, ::testing::ValuesIn(peer_pairs()),
                         [](const ::testing::TestParamInfo<PeerPair>& info) { return info.param.name; });

} // namespace
} // namespace duet::test
