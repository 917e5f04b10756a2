// Host memory of every kind: each either works as a copy source and destination or is refused
// with Unsupported, never silently replaced by another kind; mapped memory is read by a kernel.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>

#include "duet_test.hpp"

namespace duet::test {
namespace {

constexpr HostMemoryKind allocated_kinds[] = {HostMemoryKind::pageable, HostMemoryKind::pinned,
                                              HostMemoryKind::write_combined, HostMemoryKind::mapped};

class HostMemoryConformance : public DeviceTest {
protected:
    // Copies through `host` both ways and checks the data.
    void copy_through(const HostBuffer& host)
    {
        const std::size_t n = host.bytes() / sizeof(float);
        const std::vector<float> values = random_floats(n, test_seed());
        std::span<float> view = host.as<float>();
        ASSERT_EQ(view.size(), n);
        std::copy(values.begin(), values.end(), view.begin());
        Buffer<float> buffer = device().alloc<float>(n);
        queue().write(BufferView<float>(buffer), std::span<const float>(view));
        queue().finish();
        std::fill(view.begin(), view.end(), poison());
        queue().read(view, BufferView<float>(buffer));
        queue().finish();
        EXPECT_TRUE(bitwise_equal(values, std::vector<float>(view.begin(), view.end())));
    }

    // A kernel reads the host memory through its device view: out = 2 * host.
    void kernel_reads(const HostBuffer& host)
    {
        const std::size_t n = host.bytes() / sizeof(float);
        const std::vector<float> values = random_floats(n, test_seed() + 1);
        std::copy(values.begin(), values.end(), host.as<float>().begin());
        const RawBuffer device_view = host.device_buffer();
        ASSERT_TRUE(static_cast<bool>(device_view));
        EXPECT_GE(device_view.bytes(), host.bytes());
        EXPECT_TRUE(device_view.device() == device());
        Buffer<float> out = device().alloc<float>(n);
        queue().fill(BufferView<float>(out), poison());
        queue().launch(test_kernel(device(), "scale"), Range::cover(n, 64), device_view, out, 2.0f,
                       static_cast<std::uint32_t>(n));
        std::vector<float> expected = values;
        for (float& v : expected) {
            v *= 2.0f;
        }
        EXPECT_TRUE(within_ulps(expected, download(queue(), out), tolerance::scale_ulps));
    }
};

TEST_P(HostMemoryConformance, EveryKindWorksOrIsUnsupported)
{
    for (const HostMemoryKind kind : allocated_kinds) {
        SCOPED_TRACE(std::string(to_string(kind)));
        const std::size_t bytes = 4099 * sizeof(float);
        try {
            const HostBuffer host = device().alloc_host(bytes, kind);
            EXPECT_NE(host.data(), nullptr);
            EXPECT_EQ(host.bytes(), bytes);
            EXPECT_EQ(host.kind(), kind) << "asked for one kind, got another";
            copy_through(host);
        } catch (const Unsupported& error) {
            EXPECT_NE(kind, HostMemoryKind::pageable) << "pageable memory is always available";
            EXPECT_TRUE(mentions(error.what(), {std::string(to_string(kind)), "write", "combined"}));
        }
    }
}

TEST_P(HostMemoryConformance, WriteCombinedIsRefusedWhereTheBackendHasNone)
{
    if (!shows(known::no_write_combined_memory)) {
        GTEST_SKIP() << device().backend() << " has write-combined memory, covered above";
    }
    auto error = expect_error<Unsupported>([&] { (void)device().alloc_host(4096, HostMemoryKind::write_combined); });
    if (error) {
        EXPECT_EQ(error->backend(), "opencl");
    }
}

TEST_P(HostMemoryConformance, PinnedMemoryIsAFasterPathNotADifferentResult)
{
    try {
        copy_through(device().alloc_host((std::size_t{1} << 20) + 12, HostMemoryKind::pinned));
    } catch (const Unsupported& error) {
        GTEST_SKIP() << "pinned memory unsupported on " << device().selector() << ": " << error.what();
    }
}

TEST_P(HostMemoryConformance, MappedMemoryIsReadByAKernel)
{
    HostBuffer host;
    try {
        host = device().alloc_host(1001 * sizeof(float), HostMemoryKind::mapped);
    } catch (const Unsupported& error) {
        if (props().can_map_host_memory) {
            FAIL() << "the device reports can_map_host_memory, yet: " << error.what();
        }
        GTEST_SKIP() << "mapped memory unsupported on " << device().selector() << ": " << error.what();
    }
    kernel_reads(host);
}

TEST_P(HostMemoryConformance, RegisteredMemoryWorksOrIsUnsupported)
{
    const std::size_t bytes = 16 * 4096;
    std::unique_ptr<void, void (*)(void*)> memory(std::aligned_alloc(4096, bytes), std::free);
    ASSERT_NE(memory, nullptr);
    HostBuffer host;
    try {
        host = device().register_host(memory.get(), bytes);
    } catch (const Unsupported& error) {
        GTEST_SKIP() << "registering host memory unsupported on " << device().selector() << ": " << error.what();
    }
    EXPECT_EQ(host.data(), memory.get()) << "registration must not move the memory";
    EXPECT_EQ(host.bytes(), bytes);
    EXPECT_EQ(host.kind(), HostMemoryKind::registered);
    copy_through(host);
    try {
        kernel_reads(host);
    } catch (const Unsupported& error) {
        GTEST_SKIP() << "registered memory works for copies; kernels cannot read it here: " << error.what();
    }
    host = HostBuffer{}; // unregister before the memory is freed
}

TEST_P(HostMemoryConformance, RegisteringANullPointerIsRefused)
{
    try {
        (void)device().register_host(nullptr, 4096);
        ADD_FAILURE() << "registering a null pointer succeeded";
    } catch (const InvalidArgument& error) {
        EXPECT_TRUE(mentions(error.what(), {"null"}));
    } catch (const Unsupported&) {
        // Registration itself unsupported here: nothing more to check.
    }
}

TEST_P(HostMemoryConformance, PageableMemoryHasNoDeviceView)
{
    const HostBuffer host = device().alloc_host(4096, HostMemoryKind::pageable);
    auto error = expect_error<InvalidArgument>([&] { (void)host.device_buffer(); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, "pageable");
    }
}

TEST_P(HostMemoryConformance, HostMemoryBeyondTheMachineIsOutOfMemory)
{
    // 2^60 bytes: no machine has them, and with overcommit only this size is refused at once.
    const std::size_t bytes = std::size_t{1} << 60;
    auto pageable = expect_error<OutOfMemory>([&] { (void)device().alloc_host(bytes, HostMemoryKind::pageable); });
    if (pageable) {
        DUET_EXPECT_MENTIONS(*pageable, dec(bytes));
    }
    // The other kinds come from the driver: OutOfMemory, or Unsupported where the kind is; never
    // std::bad_alloc or another exception.
    for (const HostMemoryKind kind : {HostMemoryKind::pinned, HostMemoryKind::write_combined, HostMemoryKind::mapped}) {
        SCOPED_TRACE(std::string(to_string(kind)));
        try {
            (void)device().alloc_host(bytes, kind);
            ADD_FAILURE() << "an allocation of " << bytes << " bytes succeeded";
        } catch (const OutOfMemory&) {
        } catch (const Unsupported&) {
        } catch (const std::exception& error) {
            ADD_FAILURE() << "expected OutOfMemory, got " << type_name(typeid(error)) << ": " << error.what();
        }
    }
}

TEST(HostMemoryKinds, HaveDistinctNames)
{
    std::set<std::string> names;
    for (const HostMemoryKind kind : {HostMemoryKind::pageable, HostMemoryKind::pinned, HostMemoryKind::write_combined,
                                      HostMemoryKind::mapped, HostMemoryKind::registered}) {
        const std::string name(to_string(kind));
        EXPECT_FALSE(name.empty());
        names.insert(name);
    }
    EXPECT_EQ(names.size(), 5u);
}

// A default-constructed HostBuffer holds nothing: no data, no bytes, and the rest is refused.
TEST(HostMemoryEmptyHandleDeathTest, EveryUseIsRefused)
{
    EXPECT_EQ(HostBuffer{}.data(), nullptr);
    EXPECT_EQ(HostBuffer{}.bytes(), 0u);
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)HostBuffer{}.kind());
    DUET_EXPECT_REFUSED_WITHOUT_CRASH((void)HostBuffer{}.device_buffer());
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(HostMemoryConformance);

} // namespace
} // namespace duet::test
