// A Spec without a reference (info.has_reference false, as a manifest that names none): its run is
// checked for what it wrote but compared with nothing; and a Spec's footprint saturates, so that
// sizes past any machine's (a manifest's, from its expressions) never wrap to one that fits.
#include <duet/workload/kit.hpp>

#include <limits>

#include "duet_test.hpp"

namespace duet::test {
namespace {

using namespace duet::workload;

std::size_t size_n(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

/// y = x copied by the device, or, where `writes` is false, y left as it was: a spec without a
/// reference, whose reference step would throw were it called.
Spec unreferenced_copy(bool writes)
{
    Spec spec;
    spec.info = {.name = "kit_unreferenced",
                 .description = "y = x, with no reference",
                 .variants = {"default"},
                 .parameters = {integer_parameter("n", 1000, 1, std::int64_t{1} << 62, "floats")},
                 .test_cases = {{}},
                 .rules = {},
                 .has_reference = false};
    spec.buffers = {input("x", size_n), output("y", size_n)};
    spec.prepare = [writes](const Device&, const Settings& settings, const std::string&) -> Launch {
        const std::size_t n = size_n(settings);
        return [writes, n](Queue& queue, DeviceBuffers& buffers) {
            if (writes) {
                queue.copy_bytes(buffers.get("y").raw(), 0, buffers.get("x").raw(), 0, n * sizeof(float));
            }
        };
    };
    spec.bytes = [](const Settings& settings) { return 8.0 * static_cast<double>(size_n(settings)); };
    spec.tolerance = [](const Settings&) { return Tolerance{0, "exact"}; };
    return spec;
}

class KitWithoutReference : public DeviceTest {};

TEST_P(KitWithoutReference, ARunIsCheckedForWritesButComparedWithNothing)
{
    for (const bool writes : {true, false}) {
        SCOPED_TRACE(writes ? "y written" : "y left unwritten");
        const SpecWorkload workload(unreferenced_copy(writes));
        const Measurement result = workload.run(
            {device(), "default", Settings(workload.info(), {{"n", "1001"}}), true, test_seed(), Timing::once()});
        EXPECT_FALSE(result.verified);
        EXPECT_EQ(result.agreement.count, 0u) << "compared with nothing";
        EXPECT_TRUE(result.writes.checked);
        EXPECT_EQ(result.writes.unwritten, writes ? 0u : 1001u);
        EXPECT_EQ(result.output.size(), 1001u);
        EXPECT_EQ(result.tolerance_reason, "exact");
    }
}

TEST_P(KitWithoutReference, AFootprintPastAnyMachineSaturatesRatherThanWraps)
{
    // 2^62 floats in each of x and y: 2^64 bytes and more, which wrap to a few KiB in 64 bits.
    const SpecWorkload workload(unreferenced_copy(true));
    const Footprint footprint = workload.footprint(
        {device(), "default", Settings(workload.info(), {{"n", std::to_string(std::int64_t{1} << 62)}}), true,
         test_seed(), Timing::once()});
    EXPECT_EQ(footprint.device_bytes, std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(footprint.largest_buffer, std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(footprint.host_bytes, std::numeric_limits<std::uint64_t>::max());
}

INSTANTIATE_TEST_SUITE_P(Devices, KitWithoutReference, ::testing::ValuesIn(device_params()), ParamName());

} // namespace
} // namespace duet::test
