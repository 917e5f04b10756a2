// mat_add as a workload: C = A + B on pitched buffers, rows padded to the device's pitch. The
// runner copies A and B in and C out with rectangular copies, poisons C's row padding with C and
// checks that it survives as sentinels do, and checks C against the CPU reference. The 2d variant
// adds a single slice whatever depth says.
#include "mat_add.hpp"

#include <duet/workload/kit.hpp>

#include <memory>

namespace duet::mat_add {
namespace {

using namespace duet::workload;

std::size_t setting(const Settings& settings, const std::string& name)
{
    return static_cast<std::size_t>(settings.integer(name));
}

/// What one run adds: the 2d variant takes one slice.
Extent3 volume(const Settings& settings, const std::string& variant)
{
    return {setting(settings, "width"), setting(settings, "height"), variant == "3d" ? setting(settings, "depth") : 1};
}

Spec spec()
{
    Spec spec;
    spec.info = {
        .name = "mat_add",
        .description = "C = A + B on pitched buffers (rows padded to the device's pitch) moved with rectangular "
                       "copies: 2d over width x height, 3d over width x height x depth",
        .variants = {"2d", "3d"},
        .parameters = {integer_parameter("width", 2048, 1, 1 << 20, "floats per row"),
                       integer_parameter("height", 2048, 1, 1 << 20, "rows per slice"),
                       integer_parameter("depth", 1, 1, 1 << 16, "slices (3d only; 2d takes one)", {"3d"}),
                       integer_parameter("block_x", 32, 1, 1024, "threads per block along a row"),
                       integer_parameter("block_y", 8, 1, 1024, "threads per block across rows"),
                       integer_parameter("block_z", 1, 1, 64, "threads per block across slices (3d only)", {"3d"})},
        // Tiny, odd, not a multiple of the block in any dimension, and large in 2D and 3D.
        .test_cases = {
            {{"width", "1"}, {"height", "1"}},
            {{"width", "7"}, {"height", "5"}, {"depth", "3"}},
            {{"width", "100"}, {"height", "37"}, {"depth", "9"}, {"block_x", "16"}, {"block_y", "4"}, {"block_z", "2"}},
            {{"width", "2048"}, {"height", "2048"}},
            {{"width", "256"}, {"height", "256"}, {"depth", "64"}}}};
    spec.buffers_for = [](const Settings&, const std::string& variant) {
        const auto extent = [variant](const Settings& settings) { return volume(settings, variant); };
        const auto count = [extent](const Settings& settings) { return extent(settings).count(); };
        std::vector<BufferSpec> buffers = {input("A", count), input("B", count), output("C", count)};
        for (auto& buffer : buffers) {
            buffer.pitched = extent;
        }
        buffers[2].shape = [](const Settings& settings) { return Shape{setting(settings, "width")}; };
        return buffers;
    };
    spec.prepare = [](const Device& device, const Settings& settings, const std::string& variant) {
        const auto launcher = std::make_shared<const Launcher>(device);
        const bool three_d = variant == "3d";
        const Dim3 block{setting(settings, "block_x"), setting(settings, "block_y"),
                         three_d ? setting(settings, "block_z") : 1};
        Prepared prepared = [launcher, three_d, block](Queue& queue, const DeviceBuffers& buffers) {
            const auto a = buffers.pitched("A"), b = buffers.pitched("B"), c = buffers.pitched("C");
            if (three_d) {
                launcher->run_3d(queue, a, b, c, block);
            } else {
                launcher->run_2d(queue, a, b, c, block);
            }
        };
        // A and B read and C written, once each, and one add per element; the padding is neither.
        // The variant's volume.
        prepared.finish = [count = volume(settings, variant).count()](Finish& finish) {
            finish.result.bytes = 3.0 * static_cast<double>(count) * sizeof(float);
            finish.result.flops = static_cast<double>(count);
        };
        return prepared;
    };
    spec.reference = [](const Settings&, const HostArrays& arrays) {
        reference(arrays.in("A"), arrays.in("B"), arrays.out("C"));
    };
    spec.unit = Measurement::Unit::bytes;
    spec.tolerance = [](const Settings&) { return Tolerance{0, "one IEEE add per element is exact on every device"}; };
    // The pitch the device chose for C's rows, in bytes.
    spec.figures = [](Queue&, DeviceBuffers& buffers, const Launch&, const Settings&, const std::string&) -> Report {
        return {{"pitch_bytes", static_cast<double>(buffers.pitched("C").pitch())}};
    };
    return spec;
}

} // namespace
} // namespace duet::mat_add

DUET_EXPORT_WORKLOAD_SPEC(duet::mat_add::spec)
