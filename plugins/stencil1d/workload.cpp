// stencil1d as a workload: the spec the kit runs. The runner draws the input into host memory of
// the chosen kind (for mapped memory the kernel reads it there, with no copy in), poisons the
// output, times the copy in, the moving average and the copy out, and checks the output against
// the CPU reference. Its figures put the kernel's bandwidth beside a device-to-device copy's,
// measured in the same run.
#include "stencil1d.hpp"

#include <duet/workload/kit.hpp>

#include <cstdint>
#include <memory>

namespace duet::stencil1d {
namespace {

using namespace duet::workload;

std::size_t n(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

HostMemoryKind memory(const Settings& settings)
{
    return host_memory_kind(settings.text("memory"));
}

/// One read and one write per element: the halo's extra reads are served by the cache.
double bytes_moved(const Settings& settings)
{
    return 2.0 * n(settings) * sizeof(float);
}

/// Each output off the edge: 2·radius adds over its window and one division; the edge is copied.
double flops(const Settings& settings)
{
    const auto window = static_cast<std::size_t>(2 * settings.integer("radius"));
    return n(settings) > window ? static_cast<double>(n(settings) - window) * static_cast<double>(window + 1) : 0.0;
}

Spec spec()
{
    Spec spec;
    spec.info = {
        .name = "stencil1d",
        .description = "moving average over radius R of n floats, the first and last R copied through; naive: 2R+1 "
                       "global reads per output, shared: a tile with its halo staged in local memory",
        .variants = {"naive", "shared"},
        .parameters = {integer_parameter("n", 1 << 24, 1, std::int64_t{1} << 31, "number of floats"),
                       integer_parameter(
                           "radius", 2, 0, 1 << 16,
                           "R: each output averages 2R+1 inputs; the shared kernel refuses an R whose tile "
                           "does not fit the device's local memory"),
                       integer_parameter("block", 256, 1, 1024, "threads (work-items) per block"),
                       choice_parameter("memory", {"pageable", "pinned", "write_combined", "mapped"},
                                        "host memory of the input: mapped lets the kernel read it in place")},
        // Tiny, all copied through (n <= 2R), R = 0, one computed element (n = 2R+1), odd,
        // not a multiple of the block or the tile, a halo wider than the block, radii the
        // shared kernel unrolls (1 to 8) and one it loops over, large, and every memory
        // kind; kept modest since PoCL on two cores runs each on both variants.
        .test_cases = {{{"n", "1"}},
                       {{"n", "4"}, {"radius", "0"}},
                       {{"n", "5"}},
                       {{"n", "37"}, {"radius", "1"}, {"block", "1"}},
                       {{"n", "1000"}, {"radius", "1"}, {"block", "64"}},
                       {{"n", "5003"}, {"radius", "100"}, {"block", "64"}},
                       {{"n", "1000003"}, {"radius", "7"}},
                       {{"n", "4194304"}},
                       {{"n", "100003"}, {"memory", "pinned"}},
                       {{"n", "100003"}, {"radius", "3"}, {"memory", "write_combined"}},
                       {{"n", "100003"}, {"radius", "8"}, {"block", "64"}, {"memory", "mapped"}}},
    };
    BufferSpec in = input("in", n);
    in.host_memory = memory;
    BufferSpec out = output("out", n);
    // The kinds are the input's: the output, which the CPU reads, is pinned for every kind but pageable.
    out.host_memory = [](const Settings& settings) {
        return memory(settings) == HostMemoryKind::pageable ? HostMemoryKind::pageable : HostMemoryKind::pinned;
    };
    spec.buffers = {in, out};
    spec.prepare = [](const Device& device, const Settings& settings, const std::string& variant_name) -> Launch {
        const auto launcher = std::make_shared<const Launcher>(device);
        const Variant variant = variant_name == "naive" ? Variant::naive : Variant::shared;
        const auto radius = static_cast<std::size_t>(settings.integer("radius"));
        const auto block = static_cast<std::size_t>(settings.integer("block"));
        // The device's local memory bounds the shared kernel's radius: refused here, before any
        // buffer exists, as something this device cannot do rather than a bad argument.
        if (variant == Variant::shared) {
            if (const auto refusal = launcher->shared_radius_refusal(radius, block)) {
                throw Unsupported(device.backend(), "stencil1d", *refusal);
            }
        }
        return [launcher, variant, size = n(settings), radius, block](Queue& queue, const DeviceBuffers& buffers) {
            launcher->run(queue, variant, buffers.get("in"), buffers.get("out"), size, radius, block);
        };
    };
    spec.reference = [](const Settings& settings, const HostArrays& arrays) {
        reference(arrays.in("in"), arrays.out("out"), static_cast<std::size_t>(settings.integer("radius")));
    };
    spec.bytes = bytes_moved;
    spec.flops = flops;
    spec.unit = Measurement::Unit::bytes;
    spec.tolerance = [](const Settings&) { return Tolerance{tolerance, tolerance_reason}; };
    // The benchmark's yardstick: the kernel's best bandwidth against a device-to-device copy of
    // the same n floats (one read and one write per element).
    copy_yardstick_figures(spec, "out", [](const Settings& settings) { return n(settings) * sizeof(float); });
    return spec;
}

} // namespace
} // namespace duet::stencil1d

DUET_EXPORT_WORKLOAD_SPEC(duet::stencil1d::spec)
