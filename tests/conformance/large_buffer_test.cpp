// Buffers past 8 GiB: a write, a fill and a device-to-device copy that each cross 2^31, 2^32 and
// 2^33 bytes in one command, where 32-bit byte or element counts in a driver or in duet would
// wrap. A dense Jacobi of n = 49152 floats holds 9.7 GB in A and copies it whole for its yardstick.
#include <algorithm>
#include <cstring>

#include "duet_test.hpp"

namespace duet::test {
namespace {

constexpr std::size_t large_bytes = (std::size_t{9} << 30) + 4096; // 9 GiB and a page
constexpr std::size_t patch_bytes = 4096;

// Where a wrapped count would land: each boundary straddled, and the last page.
constexpr std::size_t patch_offsets[] = {
    0,
    (std::size_t{1} << 31) - patch_bytes / 2,
    (std::size_t{1} << 32) - patch_bytes / 2,
    (std::size_t{1} << 33) - patch_bytes / 2,
    large_bytes - patch_bytes,
};

/// Device tests on buffers of gigabytes: a skip where the device or the host has no room for them,
/// and a read of a window back.
class GibibyteBuffers : public DeviceTest {
protected:
    using Bytes = std::vector<unsigned char>;

    /// Skips unless the device takes `count` allocations of `bytes` with 1 GiB to spare, and the
    /// host has `host_bytes` available.
    void require_room(std::size_t bytes, std::size_t count, std::uint64_t host_bytes)
    {
        if (props().max_allocation < bytes || props().global_memory < count * bytes + (std::size_t{1} << 30)) {
            GTEST_SKIP() << "needs " << (count == 1 ? "an allocation" : std::to_string(count) + " allocations")
                         << " of " << bytes << " bytes; this device allows " << props().max_allocation
                         << " bytes in one and has " << props().global_memory << " in all";
        }
        const std::uint64_t available = available_host_memory().value_or(0);
        if (available < host_bytes) {
            GTEST_SKIP() << "needs " << host_bytes << " bytes of host memory; this machine has " << available
                         << " available";
        }
    }

    Bytes read_at(const RawBuffer& buffer, std::size_t offset, std::size_t bytes)
    {
        Bytes out(bytes);
        queue().read_bytes(out.data(), buffer, offset, bytes);
        queue().finish();
        return out;
    }
};

class LargeBufferConformance : public GibibyteBuffers {
protected:
    void SetUp() override
    {
        DeviceTest::SetUp();
        if (!IsSkipped()) {
            // Two device buffers, and on the host the copy of one and what is read back; a CPU
            // device's two buffers are host memory too.
            require_room(large_bytes, 2, (is_cpu() ? 4 : 2) * large_bytes + (std::size_t{2} << 30));
        }
    }
};

// The host's bytes go in with one write; what comes back at every boundary is what was written.
TEST_P(LargeBufferConformance, OneWriteAndReadsPastEightGibibytesKeepEveryByte)
{
    std::vector<std::uint32_t> host(large_bytes / sizeof(std::uint32_t));
    for (std::size_t i = 0; i < host.size(); ++i) {
        host[i] = static_cast<std::uint32_t>(i * 2654435761u); // each word its own, unlike its neighbours
    }
    const RawBuffer buffer = device().alloc_bytes(large_bytes);
    queue().write_bytes(buffer, 0, host.data(), large_bytes);
    queue().finish();
    const auto* bytes = reinterpret_cast<const unsigned char*>(host.data());
    for (const std::size_t offset : patch_offsets) {
        SCOPED_TRACE("offset " + std::to_string(offset));
        EXPECT_EQ(read_at(buffer, offset, patch_bytes), Bytes(bytes + offset, bytes + offset + patch_bytes));
    }
    // And the whole buffer in one read.
    std::vector<std::uint32_t> back(host.size());
    queue().read_bytes(back.data(), buffer, 0, large_bytes);
    queue().finish();
    EXPECT_TRUE(back == host) << "the read of " << large_bytes << " bytes differs from what was written";
}

// A fill over the whole buffer, patches written at the boundaries, then one copy of all of it into
// a second buffer filled with a one-byte pattern: the copy carries both the patches and the fill.
// NVIDIA's OpenCL faulted fills that reached 8 GiB; a one-byte pattern counts 2^31 of its elements
// at 2 GiB already.
TEST_P(LargeBufferConformance, OneFillAndOneCopyPastEightGibibytesReachEveryByte)
{
    const RawBuffer source = device().alloc_bytes(large_bytes);
    const RawBuffer destination = device().alloc_bytes(large_bytes);
    const std::uint32_t fill_pattern = 0xa5c3e187u;
    const unsigned char byte_pattern = 0x3c;
    queue().fill_bytes(source, 0, large_bytes, &fill_pattern, sizeof(fill_pattern));
    queue().fill_bytes(destination, 0, large_bytes, &byte_pattern, sizeof(byte_pattern));
    for (const std::size_t offset : patch_offsets) {
        EXPECT_EQ(read_at(destination, offset, patch_bytes), Bytes(patch_bytes, byte_pattern))
            << "the one-byte fill, at " << offset;
    }
    std::vector<Bytes> patches;
    for (const std::size_t offset : patch_offsets) {
        patches.push_back(random_values<unsigned char>(patch_bytes, test_seed() + offset));
        queue().write_bytes(source, offset, patches.back().data(), patch_bytes);
    }
    queue().copy_bytes(destination, 0, source, 0, large_bytes);
    queue().finish();

    Bytes filled(patch_bytes);
    for (std::size_t i = 0; i < patch_bytes; i += sizeof(fill_pattern)) {
        std::memcpy(filled.data() + i, &fill_pattern, sizeof(fill_pattern));
    }
    for (std::size_t i = 0; i < std::size(patch_offsets); ++i) {
        const std::size_t offset = patch_offsets[i];
        SCOPED_TRACE("offset " + std::to_string(offset));
        EXPECT_EQ(read_at(destination, offset, patch_bytes), patches[i]);
        // The fill's bytes beside the patch (a page after it, or before the last one).
        const std::size_t beside =
            offset + 2 * patch_bytes <= large_bytes ? offset + patch_bytes : offset - patch_bytes;
        EXPECT_EQ(read_at(destination, beside, patch_bytes), filled) << "beside the patch, at " << beside;
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(LargeBufferConformance);

// Fills past 2 GiB go through a sub-buffer from the fill's offset rounded down to the device's
// base-address alignment (the OpenCL backend): fills that cross 2^31 or start past it, at offsets
// off any alignment and with patterns of 1, 4 and 16 bytes, land on their bytes and no others.
constexpr std::size_t two_gib = std::size_t{1} << 31;
constexpr std::size_t crossing_bytes = two_gib + (std::size_t{1} << 20);

class FillPastTwoGibibytes : public GibibyteBuffers {
protected:
    void SetUp() override
    {
        DeviceTest::SetUp();
        if (!IsSkipped()) {
            require_room(crossing_bytes, 1, (is_cpu() ? crossing_bytes : 0) + (std::size_t{1} << 30));
        }
    }
};

TEST_P(FillPastTwoGibibytes, FillsOffAnyAlignmentReachTheirBytesAndNoOthers)
{
    struct Fill {
        std::size_t offset;
        std::size_t bytes;
        Bytes pattern;
    };
    const Fill fills[] = {
        {0, crossing_bytes, {0x11}}, // the whole buffer, its last piece past 2^31
        {two_gib - 1000, 2000, {0x3c}},
        {two_gib + 100, 4096, {0x87, 0xe1, 0xc3, 0xa5}},
        {two_gib + 4096 + 112, 4096, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
        {crossing_bytes - 64, 64, {0x5a, 0x5b, 0x5c, 0x5d}},
    };
    const RawBuffer buffer = device().alloc_bytes(crossing_bytes);
    for (const Fill& fill : fills) {
        queue().fill_bytes(buffer, fill.offset, fill.bytes, fill.pattern.data(), fill.pattern.size());
    }
    // What each byte of two windows should hold: the fills applied in order on the host.
    for (const std::size_t window : {two_gib - 8192, crossing_bytes - 16384}) {
        SCOPED_TRACE("window at " + std::to_string(window));
        constexpr std::size_t window_bytes = 16384;
        Bytes expected(window_bytes);
        for (const Fill& fill : fills) {
            for (std::size_t at = std::max(fill.offset, window);
                 at < std::min(fill.offset + fill.bytes, window + window_bytes); ++at) {
                expected[at - window] = fill.pattern[(at - fill.offset) % fill.pattern.size()];
            }
        }
        const Bytes back = read_at(buffer, window, window_bytes);
        for (std::size_t i = 0; i < window_bytes; ++i) {
            if (back[i] != expected[i]) {
                ADD_FAILURE() << "byte " << window + i << " holds " << int{back[i]} << ", not " << int{expected[i]};
                break;
            }
        }
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(FillPastTwoGibibytes);

} // namespace
} // namespace duet::test
