// Device: its properties under common names, its selector, its factories, and an allocation
// larger than the device that must fail cleanly.
#include <bit>
#include <limits>

#include "duet_test.hpp"

namespace duet::test {
namespace {

class DeviceConformance : public DeviceTest {};

TEST_P(DeviceConformance, PropertiesAreFilledIn)
{
    const DeviceProperties& p = props();
    EXPECT_FALSE(p.name.empty());
    EXPECT_FALSE(p.vendor.empty());
    EXPECT_FALSE(p.platform.empty());
    EXPECT_FALSE(p.driver_version.empty());
    EXPECT_EQ(device().backend(), GetParam().backend);
    EXPECT_GT(p.compute_units, 0u);
    EXPECT_GT(p.max_block_size, 0u);
    for (int d = 0; d < 3; ++d) {
        EXPECT_GT(p.max_block_dims[d], 0u) << "dimension " << d;
        EXPECT_GT(p.max_grid_dims[d], 0u) << "dimension " << d;
    }
    EXPECT_LE(p.max_block_dims[0], p.max_block_size);
    EXPECT_GT(p.local_memory_per_block, 0u);
    EXPECT_GE(p.local_memory_per_block_optin, p.local_memory_per_block);
    EXPECT_GT(p.global_memory, 0u);
    EXPECT_GT(p.max_allocation, 0u);
    EXPECT_LE(p.max_allocation, p.global_memory);
    EXPECT_GT(p.base_address_alignment, 0u);
    EXPECT_TRUE(std::has_single_bit(p.base_address_alignment)) << p.base_address_alignment;
    EXPECT_FALSE(p.raw.empty()) << "the backend's own property list is empty";
    if (is_opencl()) {
        EXPECT_GE(p.opencl_version_major, 1u);
        EXPECT_NE(p.api_version.find("OpenCL"), std::string::npos) << p.api_version;
    }
    if (is_cuda()) {
        EXPECT_GE(p.compute_capability_major, 1u);
        EXPECT_EQ(p.platform, "CUDA");
        EXPECT_EQ(p.type, DeviceType::gpu);
        EXPECT_EQ(p.warp_width, 32u);
        EXPECT_GT(p.max_threads_per_multiprocessor, 0u);
        EXPECT_GT(p.registers_per_block, 0u);
        EXPECT_GT(p.l2_cache, 0u);
        EXPECT_GT(p.copy_engines, 0u);
        EXPECT_TRUE(p.unified_addressing);
        // Bus width and memory clock give the peak bandwidth: between 100 GB/s and 20 TB/s on any
        // GPU CUDA 13 supports.
        EXPECT_GT(p.theoretical_bandwidth_gbps(), 100.0);
        EXPECT_LT(p.theoretical_bandwidth_gbps(), 20000.0);
    }
}

TEST_P(DeviceConformance, RawPropertiesUseTheBackendsNames)
{
    const std::string prefix = is_opencl() ? "CL_DEVICE_" : is_cuda() ? "CU_DEVICE_ATTRIBUTE_" : "";
    if (prefix.empty()) {
        GTEST_SKIP() << "no naming convention known for backend " << device().backend();
    }
    bool any = false;
    for (const auto& [key, value] : props().raw) {
        EXPECT_FALSE(key.empty());
        any = any || key.rfind(prefix, 0) == 0;
    }
    EXPECT_TRUE(any) << "no raw property starts with " << prefix;
}

TEST_P(DeviceConformance, SelectorRoundTrips)
{
    const std::string selector = device().selector();
    EXPECT_EQ(selector, device().backend() + ":" + std::to_string(device().index()));
    const Device selected = Registry::global().select(selector);
    EXPECT_TRUE(selected == device()) << selector << " selected " << selected.properties().name;
}

TEST_P(DeviceConformance, NativeHandlesExist)
{
    const NativeDevice native = device().native();
    EXPECT_NE(native.context, nullptr);
    if (is_opencl()) {
        EXPECT_NE(native.device, nullptr); // a cl_device_id; CUdevice 0 is a valid CUDA handle
    }
}

TEST_P(DeviceConformance, QueueBelongsToItsDevice)
{
    Queue q = device().create_queue();
    EXPECT_TRUE(q.device() == device());
    EXPECT_NE(q.native(), nullptr);
    Queue second = device().create_queue();
    EXPECT_NE(second.native(), q.native()) << "two queues share one native queue";
}

TEST_P(DeviceConformance, AllocationLargerThanTheDeviceIsOutOfMemoryAndOthersSurvive)
{
    // The survivor is allocated first and must hold its data after the failed allocation.
    const std::vector<float> values = random_floats(4099, test_seed());
    Buffer<float> survivor = make_buffer(device(), queue(), values);

    const std::uint64_t memory = props().global_memory;
    const std::size_t too_big = memory > std::numeric_limits<std::size_t>::max() / 4
                                    ? std::numeric_limits<std::size_t>::max() / 2
                                    : static_cast<std::size_t>(memory) * 2;
    auto error = expect_error<OutOfMemory>([&] { (void)device().alloc_bytes(too_big); });
    if (error) {
        EXPECT_FALSE(error->message().empty());
        EXPECT_EQ(error->backend(), device().backend());
    }

    // The process goes on: the earlier buffer is intact and new work runs.
    EXPECT_TRUE(bitwise_equal(values, download(queue(), survivor)));
    Buffer<float> after = make_buffer(device(), queue(), values);
    EXPECT_TRUE(bitwise_equal(values, download(queue(), after)));
}

TEST_P(DeviceConformance, AllocationAboveTheLargestSingleBufferIsOutOfMemory)
{
    const std::uint64_t limit = props().max_allocation;
    if (limit >= std::numeric_limits<std::size_t>::max() / 2) {
        GTEST_SKIP() << "max_allocation " << limit << " leaves no size above it";
    }
    if (limit >= props().global_memory) {
        GTEST_SKIP() << "max_allocation equals global memory here; covered by the larger-than-device case";
    }
    const std::vector<float> values = random_floats(257, test_seed());
    Buffer<float> survivor = make_buffer(device(), queue(), values);
    auto error = expect_error<OutOfMemory>([&] { (void)device().alloc_bytes(static_cast<std::size_t>(limit) + 4096); });
    EXPECT_TRUE(bitwise_equal(values, download(queue(), survivor)));
}

// A moved-from Device is no device: every use is refused, none crashes.
TEST_P(DeviceConformance, AMovedFromDeviceRefusesEveryUse)
{
    Device moved = device();
    const Device taken = std::move(moved);
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { (void)moved.properties(); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { (void)moved.selector(); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { (void)moved.create_queue(); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { (void)moved.alloc<float>(16); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { (void)moved.alloc_host(64, HostMemoryKind::pageable); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { (void)moved.build(kernels::test_kernels()); }));
    EXPECT_TRUE(expect_error<InvalidArgument>([&] { (void)moved.native(); }));
    if (auto error = expect_error<InvalidArgument>([&] { (void)moved.create_queue(); })) {
        DUET_EXPECT_MENTIONS(*error, "moved from");
    }
    EXPECT_TRUE(taken == device()) << "the device moved to is whole";
}

TEST_P(DeviceConformance, ElementCountOverflowIsRefused)
{
    // count * sizeof(T) wraps around size_t: refused as invalid or as too large, never allocated.
    const std::size_t count = std::numeric_limits<std::size_t>::max() / 2;
    try {
        (void)device().alloc<double>(count);
        ADD_FAILURE() << "alloc<double>(" << count << ") succeeded";
    } catch (const InvalidArgument&) {
    } catch (const OutOfMemory&) {
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(DeviceConformance);

} // namespace
} // namespace duet::test
