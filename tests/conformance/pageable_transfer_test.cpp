// Transfers of pageable host memory at sizes and offsets on either side of the OpenCL backend's
// staging chunks and slots, in order with the device's own commands: what comes back is what went
// in, staged or not. DUET_OPENCL_STAGING=on stages on every OpenCL device, PoCL included, and off
// never; the staging's chunk size, slot count and threads are read when a queue first stages.
// CUDA's driver stages pageable memory itself.
#include "duet_test.hpp"

#include <optional>
#include <tuple>

namespace duet::test {
namespace {

using Bytes = std::vector<unsigned char>;

constexpr std::size_t sizes[] = {
    1,
    4093,
    (std::size_t{256} << 10) - 1,
    (std::size_t{256} << 10) + 3,
    (std::size_t{1} << 20) + 5,
    (std::size_t{17} << 20) + 11, // more chunks than slots
};
constexpr std::size_t offset = 7;      // the host's bytes land off any alignment
constexpr unsigned char around = 0xee; // what the device's fill leaves on either side
/// The staging's own sizes, and the driver's path.
struct Setting {
    const char* staging;
    const char* chunk_bytes; ///< nullptr: the default
    const char* slots;
    const char* threads;
};
constexpr Setting settings[] = {
    {"on", nullptr, nullptr, nullptr},
    {"on", "262144", "2", "3"},  // many chunks of four 64 KiB pieces, two slots, three threads
    {"on", "1048576", "3", "2"}, // chunks of 1 MiB in three slots
    {"off", nullptr, nullptr, nullptr},
};

std::string describe(const Setting& setting)
{
    return std::string("DUET_OPENCL_STAGING=") + setting.staging +
           " CHUNK_BYTES=" + (setting.chunk_bytes ? setting.chunk_bytes : "default") +
           " SLOTS=" + (setting.slots ? setting.slots : "default") +
           " THREADS=" + (setting.threads ? setting.threads : "default");
}

/// A variable's value, or none (unset) for nullptr.
std::optional<std::string> value_or_unset(const char* value)
{
    return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
}

class PageableTransferConformance : public DeviceTest {};

TEST_P(PageableTransferConformance, WritesAndReadsOfEverySizeKeepEveryByteInOrderWithFills)
{
    for (const Setting& setting : settings) {
        const ScopedEnv staging("DUET_OPENCL_STAGING", setting.staging);
        const ScopedEnv chunk_bytes("DUET_OPENCL_STAGING_CHUNK_BYTES", value_or_unset(setting.chunk_bytes));
        const ScopedEnv slots("DUET_OPENCL_STAGING_SLOTS", value_or_unset(setting.slots));
        const ScopedEnv threads("DUET_OPENCL_STAGING_THREADS", value_or_unset(setting.threads));
        Queue queue = device().create_queue(); // its staging made under these settings
        for (const std::size_t size : sizes) {
            SCOPED_TRACE(describe(setting) + ", " + std::to_string(size) + " bytes");
            const std::size_t total = size + 2 * offset;
            const RawBuffer buffer = device().alloc_bytes(total);
            const Bytes sent = random_values<unsigned char>(size, test_seed() + size);
            // The fill before the write, and the read after both, all queued without a wait between.
            queue.fill_bytes(buffer, 0, total, &around, 1);
            queue.write_bytes(buffer, offset, sent.data(), size);
            Bytes back(total);
            queue.read_bytes(back.data(), buffer, 0, total);
            queue.finish();
            EXPECT_EQ(Bytes(back.begin(), back.begin() + offset), Bytes(offset, around));
            EXPECT_TRUE(Bytes(back.begin() + offset, back.end() - offset) == sent) << "the bytes written differ";
            EXPECT_EQ(Bytes(back.end() - offset, back.end()), Bytes(offset, around));
        }
    }
}

TEST_P(PageableTransferConformance, AReadWaitsForTheCopyBeforeIt)
{
    for (const char* setting : {"on", "off"}) {
        const ScopedEnv staging("DUET_OPENCL_STAGING", setting);
        SCOPED_TRACE(std::string("DUET_OPENCL_STAGING=") + setting);
        const std::size_t size = std::size_t{9} << 20;
        const RawBuffer first = device().alloc_bytes(size);
        const RawBuffer second = device().alloc_bytes(size);
        const Bytes sent = random_values<unsigned char>(size, test_seed());
        queue().write_bytes(first, 0, sent.data(), size);
        queue().copy_bytes(second, 0, first, 0, size);
        Bytes back(size);
        queue().read_bytes(back.data(), second, 0, size);
        queue().finish();
        EXPECT_TRUE(back == sent) << "the read did not see the copy";
    }
}

// As CUDA's pageable copies: the host's bytes may change once a write returns, and are there once
// a read returns, with no wait in between.
TEST_P(PageableTransferConformance, AStagedWriteTakesTheHostsBytesAndAStagedReadDeliversThemBeforeItReturns)
{
    if (!is_opencl()) {
        GTEST_SKIP() << "DUET_OPENCL_STAGING is the OpenCL backend's; CUDA's driver stages pageable memory itself";
    }
    const ScopedEnv staging("DUET_OPENCL_STAGING", "on");
    const std::size_t size = (std::size_t{17} << 20) + 11;
    const RawBuffer buffer = device().alloc_bytes(size);
    Bytes host = random_values<unsigned char>(size, test_seed());
    const Bytes sent = host;
    queue().write_bytes(buffer, 0, host.data(), size);
    std::fill(host.begin(), host.end(), around);
    Bytes back(size, 0);
    queue().read_bytes(back.data(), buffer, 0, size);
    EXPECT_TRUE(back == sent) << "the write took bytes written after it returned, or the read returned early";
    queue().finish();
}

TEST_P(PageableTransferConformance, AnUnknownStagingSettingIsRefusedNamingTheVariable)
{
    if (!is_opencl()) {
        GTEST_SKIP() << "DUET_OPENCL_STAGING is the OpenCL backend's";
    }
    const RawBuffer buffer = device().alloc_bytes(64);
    const Bytes sent(64, 1);
    {
        const ScopedEnv staging("DUET_OPENCL_STAGING", "sometimes");
        auto error = expect_error<InvalidArgument>([&] { queue().write_bytes(buffer, 0, sent.data(), 64); });
        if (error) {
            DUET_EXPECT_MENTIONS(*error, "DUET_OPENCL_STAGING=sometimes", "expected auto, on or off");
        }
    }
    // A size out of its limits, when a queue first stages.
    const ScopedEnv staging("DUET_OPENCL_STAGING", "on");
    for (const auto& [name, value, limits] :
         {std::tuple{"DUET_OPENCL_STAGING_SLOTS", "1", "from 2 to 16"},
          std::tuple{"DUET_OPENCL_STAGING_CHUNK_BYTES", "4096", "from 65536 to 268435456"},
          std::tuple{"DUET_OPENCL_STAGING_THREADS", "many", "from 1 to 16"}}) {
        SCOPED_TRACE(name);
        const ScopedEnv bad(name, value);
        Queue fresh = device().create_queue();
        auto error = expect_error<InvalidArgument>([&] { fresh.write_bytes(buffer, 0, sent.data(), 64); });
        if (error) {
            DUET_EXPECT_MENTIONS(*error, std::string(name) + "='" + value + "'", limits);
        }
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(PageableTransferConformance);

} // namespace
} // namespace duet::test
