// Mirror<T>: a host array and a device buffer that know which side is current. Data makes the
// round trip through a kernel; every read of a stale side, and every transfer that would
// overwrite newer data, is refused naming the missing transfer, and the data stays as it was.
#include "duet_test.hpp"

namespace duet::test {
namespace {

class MirrorConformance : public DeviceTest {};

TEST_P(MirrorConformance, DataMakesTheRoundTripThroughAKernel)
{
    const std::size_t n = 1003; // not a multiple of the block
    Mirror<float> in(device(), n), out(device(), n);
    const std::vector<float> values = random_floats(n, test_seed());
    std::copy(values.begin(), values.end(), in.host().begin());
    in.host_written();
    EXPECT_EQ(in.current(), Mirror<float>::Current::host);
    in.to_device(queue());
    EXPECT_EQ(in.current(), Mirror<float>::Current::both);

    queue().launch(test_kernel(device(), "scale"), Range::cover(n, 64), in.device(), out.device(), 2.0f,
                   static_cast<std::uint32_t>(n));
    out.device_written();
    out.to_host(queue());
    const std::span<float> result = out.host(); // waits for the copy
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(result[i], 2.0f * values[i]) << "element " << i;
    }
}

TEST_P(MirrorConformance, AStaleSideIsRefusedNamingTheMissingTransfer)
{
    Mirror<float> mirror(device(), 64);
    std::fill(mirror.host().begin(), mirror.host().end(), 1.0f);
    mirror.host_written();
    auto error = expect_error<InvalidArgument>([&] { (void)mirror.device(); });
    ASSERT_TRUE(error);
    DUET_EXPECT_MENTIONS(*error, "to_device");
    DUET_EXPECT_MENTIONS(*error, "64 elements");
    error = expect_error<InvalidArgument>([&] { mirror.to_host(queue()); });
    ASSERT_TRUE(error);
    DUET_EXPECT_MENTIONS(*error, "would be overwritten");
    EXPECT_EQ(mirror.host()[0], 1.0f) << "the refused transfer changed nothing";

    mirror.to_device(queue());
    mirror.device_written();
    error = expect_error<InvalidArgument>([&] { (void)mirror.host(); });
    ASSERT_TRUE(error);
    DUET_EXPECT_MENTIONS(*error, "to_host");
    EXPECT_THROW(mirror.host_written(), InvalidArgument) << "both sides changed";
    EXPECT_THROW(mirror.to_device(queue()), InvalidArgument);
    mirror.to_host(queue());
    EXPECT_EQ(mirror.host()[63], 1.0f);
}

TEST_P(MirrorConformance, AHostKindTheBackendCannotGiveIsRefused)
{
    for (const auto kind : {HostMemoryKind::pageable, HostMemoryKind::pinned, HostMemoryKind::write_combined}) {
        SCOPED_TRACE(std::string(to_string(kind)));
        try {
            Mirror<int> mirror(device(), 16, kind);
            std::fill(mirror.host().begin(), mirror.host().end(), 7);
            mirror.host_written();
            mirror.to_device(queue());
            mirror.device_written();
            mirror.to_host(queue());
            EXPECT_EQ(mirror.host()[15], 7);
        } catch (const Unsupported& error) {
            EXPECT_EQ(kind, HostMemoryKind::write_combined) << error.message();
        }
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(MirrorConformance);

} // namespace
} // namespace duet::test
