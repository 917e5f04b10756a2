// mat_add as a workload plugin: A and B copied into pitched buffers with rectangular copies, added
// by the 2D or the 3D kernel, C copied back out dense, each phase timed on the device clock, and
// the check against the CPU reference.
#include "mat_add.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <cstdint>

namespace duet::mat_add {
namespace {

class MatAdd final : public Workload {
public:
    WorkloadInfo info() const override
    {
        using workload::integer_parameter;
        return {"mat_add",
                "C = A + B on pitched buffers (rows padded to the device's pitch) moved with rectangular copies: "
                "2d over width x height, 3d over width x height x depth",
                {"2d", "3d"},
                {integer_parameter("width", 2048, 1, 1 << 20, "floats per row"),
                 integer_parameter("height", 2048, 1, 1 << 20, "rows per slice"),
                 integer_parameter("depth", 1, 1, 1 << 16, "slices (3d only; 2d takes one)"),
                 integer_parameter("block_x", 32, 1, 1024, "threads per block along a row"),
                 integer_parameter("block_y", 8, 1, 1024, "threads per block across rows"),
                 integer_parameter("block_z", 1, 1, 64, "threads per block across slices (3d only)")},
                // Tiny, odd, not a multiple of the block in any dimension, and large in 2D and 3D.
                {{{"width", "1"}, {"height", "1"}},
                 {{"width", "7"}, {"height", "5"}, {"depth", "3"}},
                 {{"width", "100"}, {"height", "37"}, {"depth", "9"}, {"block_x", "16"}, {"block_y", "4"},
                  {"block_z", "2"}},
                 {{"width", "2048"}, {"height", "2048"}},
                 {{"width", "256"}, {"height", "256"}, {"depth", "64"}}}};
    }

    Footprint footprint(const RunRequest& request) const override
    {
        const bool volume = request.variant == "3d";
        const std::uint64_t width = request.settings.integer("width");
        const std::uint64_t rows = request.settings.integer("height") * (volume ? request.settings.integer("depth") : 1);
        // Rows padded as the backends pad them: to the device's alignment, and cuMemAllocPitch's
        // 512 bytes, whichever is larger.
        const std::uint64_t alignment = std::max<std::uint64_t>(request.device.properties().base_address_alignment, 512);
        const std::uint64_t pitched = (width * sizeof(float) + alignment - 1) / alignment * alignment * rows;
        const std::uint64_t dense = width * rows * sizeof(float);
        // A, B and C pitched on the device; A, B, the result and the reference's dense on the host.
        return {3 * pitched, pitched, 4 * dense};
    }

    Measurement run(const RunRequest& request) const override
    {
        const bool volume = request.variant == "3d";
        const auto width = static_cast<std::size_t>(request.settings.integer("width"));
        const auto height = static_cast<std::size_t>(request.settings.integer("height"));
        const auto depth = volume ? static_cast<std::size_t>(request.settings.integer("depth")) : std::size_t{1};
        const Dim3 block{static_cast<std::size_t>(request.settings.integer("block_x")),
                         static_cast<std::size_t>(request.settings.integer("block_y")),
                         volume ? static_cast<std::size_t>(request.settings.integer("block_z")) : std::size_t{1}};
        const std::size_t count = width * height * depth;
        const auto a = workload::random_floats(count, request.seed);
        const auto b = workload::random_floats(count, request.seed + 1);
        const Device& device = request.device;
        const Launcher launcher(device);
        auto queue = device.create_queue();
        auto da = device.alloc_pitched<float>(width, height, depth);
        auto db = device.alloc_pitched<float>(width, height, depth);
        auto dc = device.alloc_pitched<float>(width, height, depth);
        // The padding too: a kernel that wrote C's padding instead of its elements fails the check.
        const float poison = workload::poison();
        queue.fill_bytes(dc.raw(), 0, dc.raw().bytes(), &poison, sizeof poison);
        queue.finish();

        Measurement result;
        result.output.assign(count, workload::poison());
        workload::PhaseTimer timer(queue);
        queue.write(da, a);
        queue.write(db, b);
        timer.mark("h2d");
        if (volume) {
            launcher.run_3d(queue, da, db, dc, block);
        } else {
            launcher.run_2d(queue, da, db, dc, block);
        }
        timer.mark("kernel");
        queue.read(result.output, dc);
        timer.mark("d2h");
        timer.add_phases_to(result);
        result.work = 3.0 * count * sizeof(float);
        result.unit = Measurement::Unit::bytes;
        result.tolerance = 0;
        result.tolerance_reason = "one IEEE add per element is exact on every device";
        result.extras = {{"pitch_bytes", static_cast<double>(dc.pitch())}};
        workload::check_against_reference(request, result, count,
                                          [&](std::span<float> expected) { reference(a, b, expected); });
        return result;
    }
};

} // namespace
} // namespace duet::mat_add

DUET_EXPORT_WORKLOAD(duet::mat_add::MatAdd)
