// stencil1d as a workload plugin: the input copied in from host memory of the chosen kind (or, for
// mapped memory, read by the kernel straight from the host), the moving average, the result
// copied out, each phase timed on the device clock, and the check against the CPU reference.
// Extras put the kernel's bandwidth beside a device-to-device copy's, measured in the same run.
#include "stencil1d.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace duet::stencil1d {
namespace {

/// Runs of the kernel and of the copy whose best gives the extras' rates.
constexpr int benchmark_repeats = 3;

class Stencil1d final : public Workload {
public:
    WorkloadInfo info() const override
    {
        using workload::integer_parameter;
        return {"stencil1d",
                "moving average over radius R of n floats, the first and last R copied through; naive: 2R+1 "
                "global reads per output, shared: a tile with its halo staged in local memory",
                {"naive", "shared"},
                {integer_parameter("n", 1 << 24, 1, std::int64_t{1} << 31, "number of floats"),
                 integer_parameter("radius", 2, 0, 1 << 16,
                                   "R: each output averages 2R+1 inputs; the shared kernel refuses an R whose tile "
                                   "does not fit the device's local memory"),
                 integer_parameter("block", 256, 1, 1024, "threads (work-items) per block"),
                 workload::choice_parameter("memory", {"pageable", "pinned", "write_combined", "mapped"},
                                            "host memory of the input: mapped lets the kernel read it in place")},
                // Tiny, all copied through (n <= 2R), R = 0, one computed element (n = 2R+1), odd,
                // not a multiple of the block or the tile, a halo wider than the block, radii the
                // shared kernel unrolls (1 to 8) and one it loops over, large, and every memory
                // kind; kept modest since PoCL on two cores runs each on both variants.
                {{{"n", "1"}},
                 {{"n", "4"}, {"radius", "0"}},
                 {{"n", "5"}},
                 {{"n", "37"}, {"radius", "1"}, {"block", "1"}},
                 {{"n", "1000"}, {"radius", "1"}, {"block", "64"}},
                 {{"n", "5003"}, {"radius", "100"}, {"block", "64"}},
                 {{"n", "1000003"}, {"radius", "7"}},
                 {{"n", "4194304"}},
                 {{"n", "100003"}, {"memory", "pinned"}},
                 {{"n", "100003"}, {"radius", "3"}, {"memory", "write_combined"}},
                 {{"n", "100003"}, {"radius", "8"}, {"block", "64"}, {"memory", "mapped"}}}};
    }

    Footprint footprint(const RunRequest& request) const override
    {
        const std::uint64_t bytes = request.settings.integer("n") * sizeof(float);
        const bool zero_copy = request.settings.text("memory") == "mapped";
        // Device: the input (unless the kernel reads it from the host), the output and the copy's
        // destination. Host: the drawn input, the input and output host buffers, the result and
        // the reference's.
        return {(zero_copy ? 2 : 3) * bytes, bytes, 5 * bytes};
    }

    Measurement run(const RunRequest& request) const override
    {
        const auto n = static_cast<std::size_t>(request.settings.integer("n"));
        const auto radius = static_cast<std::size_t>(request.settings.integer("radius"));
        const auto block = static_cast<std::size_t>(request.settings.integer("block"));
        const HostMemoryKind memory = workload::host_memory_kind(request.settings.text("memory"));
        const Variant variant = request.variant == "naive" ? Variant::naive : Variant::shared;
        const std::size_t bytes = n * sizeof(float);
        const Device& device = request.device;
        const Launcher launcher(device);
        auto queue = device.create_queue();

        const auto input = workload::random_floats(n, request.seed);
        // Kinds a backend lacks throw Unsupported here, before anything runs.
        const HostBuffer host_in = device.alloc_host(bytes, memory);
        // The output is read by the CPU: pinned for every kind but pageable, never write-combined
        // (uncached reads) or mapped (the kernel writes device memory, as with the other kinds).
        const HostBuffer host_out =
            device.alloc_host(bytes, memory == HostMemoryKind::pageable ? memory : HostMemoryKind::pinned);
        std::memcpy(host_in.data(), input.data(), bytes);
        std::ranges::fill(host_out.as<float>(), workload::poison());
        const bool zero_copy = memory == HostMemoryKind::mapped;
        const Buffer<float> in = zero_copy ? Buffer<float>(host_in.device_buffer()) : device.alloc<float>(n);
        const Buffer<float> out = device.alloc<float>(n);
        queue.fill(out, workload::poison());
        queue.finish();

        Measurement result;
        workload::PhaseTimer timer(queue);
        if (!zero_copy) {
            queue.write(in, host_in.as<const float>());
        }
        timer.mark("h2d");
        launcher.run(queue, variant, in, out, n, radius, block);
        timer.mark("kernel");
        queue.read(host_out.as<float>(), out);
        timer.mark("d2h");
        timer.add_phases_to(result);
        result.output.assign(host_out.as<float>().begin(), host_out.as<float>().end());
        // One read and one write per element: the halo's extra reads are served by the cache.
        result.work = 2.0 * bytes;
        result.unit = Measurement::Unit::bytes;
        result.tolerance = tolerance;
        result.tolerance_reason = tolerance_reason;

        // The benchmark's yardstick: the kernel's best bandwidth against a device-to-device copy
        // of the same n floats (one read and one write per element), both timed here, after the
        // phases, so neither figure carries the first launch's one-time costs.
        const Buffer<float> copy = device.alloc<float>(n);
        const double kernel_ms = workload::best_device_ms(
            queue, benchmark_repeats, [&] { launcher.run(queue, variant, in, out, n, radius, block); });
        const double copy_ms = workload::best_device_ms(queue, benchmark_repeats, [&] { queue.copy(copy, out); });
        const auto gbps = [&](double ms) { return ms > 0 ? 2.0 * bytes / (ms * 1e-3) / 1e9 : 0.0; };
        result.extras = {{"kernel_best_gbps", gbps(kernel_ms)},
                         {"d2d_copy_gbps", gbps(copy_ms)},
                         {"kernel_over_copy", copy_ms > 0 && kernel_ms > 0 ? copy_ms / kernel_ms : 0.0}};

        workload::check_against_reference(request, result, n,
                                          [&](std::span<float> expected) { reference(input, expected, radius); });
        return result;
    }
};

} // namespace
} // namespace duet::stencil1d

DUET_EXPORT_WORKLOAD(duet::stencil1d::Stencil1d)
