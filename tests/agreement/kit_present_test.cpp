// Arrays that some runs of a spec lack (BufferSpec::present): a variant without one neither draws,
// allocates nor counts it, its name is not found, and the inputs it has take the seed's streams in
// their order.
#include <duet/workload/kit.hpp>

#include "duet_test.hpp"
#include "vector_add.hpp"

namespace duet::test {
namespace {

using namespace duet::workload;

std::size_t size_n(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

/// "sum": c = b + a; "copy": c = a, a run without b. b is declared first, so that in "copy" a
/// is drawn from the first stream.
Spec sum_or_copy_spec()
{
    Spec spec;
    spec.info = {.name = "kit_present",
                 .description = "c = b + a, or c = a without b",
                 .variants = {"sum", "copy"},
                 .parameters = {integer_parameter("n", 1000, 1, 1 << 20, "floats")},
                 .test_cases = {},
                 .rules = {}};
    BufferSpec b = input("b", size_n);
    b.present = [](const Settings&, const std::string& variant) { return variant == "sum"; };
    spec.buffers = {b, input("a", size_n), output("c", size_n)};
    spec.prepare = [](const Device& device, const Settings& settings, const std::string& variant) {
        const auto launcher = std::make_shared<vector_add::Launcher>(device);
        const std::size_t n = size_n(settings);
        Prepared prepared = [launcher, n, variant](Queue& queue, const DeviceBuffers& buffers) {
            if (variant == "sum") {
                launcher->run(queue, buffers.get("b"), buffers.get("a"), buffers.get("c"), n);
                return;
            }
            EXPECT_TRUE(expect_error<NotFound>([&] { buffers.get("b"); }));
            queue.copy(buffers.get("c").view(0, n), buffers.get("a").view(0, n));
        };
        prepared.reference = [variant](const HostArrays& arrays) {
            if (variant == "sum") {
                vector_add::reference(arrays.in("b"), arrays.in("a"), arrays.out("c"));
                return;
            }
            EXPECT_TRUE(expect_error<NotFound>([&] { arrays.in("b"); }));
            const auto a = arrays.in("a");
            const std::vector<float> first_stream = random_floats(a.size(), test_seed());
            EXPECT_TRUE(std::ranges::equal(a, first_stream));
            std::ranges::copy(a, arrays.out("c").begin());
        };
        return prepared;
    };
    spec.work = [](const Settings& settings) { return 12.0 * static_cast<double>(size_n(settings)); };
    spec.tolerance = [](const Settings&) { return Tolerance{0, "exact"}; };
    return spec;
}

RunRequest request_for(const Device& device, const WorkloadInfo& info, const std::string& variant)
{
    return {device, variant, Settings(info, {{"n", "1001"}}), true, test_seed(), Timing::once()};
}

class KitPresent : public DeviceTest {};

TEST_P(KitPresent, ARunWithoutAnArrayNeitherDrawsNorFindsIt)
{
    const SpecWorkload workload(sum_or_copy_spec());
    for (const char* variant : {"sum", "copy"}) {
        SCOPED_TRACE(variant);
        const Measurement result = workload.run(request_for(device(), workload.info(), variant));
        EXPECT_TRUE(result.matches_reference()) << result.agreement.describe();
        EXPECT_EQ(result.output.size(), 1001u);
    }
}

TEST_P(KitPresent, AnArrayARunLacksIsNotCountedInItsFootprint)
{
    const SpecWorkload workload(sum_or_copy_spec());
    const Footprint sum = workload.footprint(request_for(device(), workload.info(), "sum"));
    const Footprint copy = workload.footprint(request_for(device(), workload.info(), "copy"));
    // b on the device with its sentinels; on the host its values and their host buffer.
    EXPECT_EQ(sum.device_bytes - copy.device_bytes, (1001 + sentinel_elements) * sizeof(float));
    EXPECT_EQ(sum.host_bytes - copy.host_bytes, 2 * 1001 * sizeof(float));
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(KitPresent);

} // namespace
} // namespace duet::test
