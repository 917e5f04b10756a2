// mat_add as a workload plugin: A and B copied into pitched buffers with rectangular copies, added
// by the 2D or the 3D kernel, C copied back out dense, the pass repeated until its median settles
// with each phase timed on the device clock; then C's row padding checked for stray writes and C
// against the CPU reference. Pitched buffers do not fit the kit's flat Spec: run() is written here
// with the kit's pieces.
#include "mat_add.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace duet::mat_add {
namespace {

using namespace duet::workload;

/// What one run adds: the 2d variant takes a single slice whatever depth says.
struct Volume {
    std::size_t width;
    std::size_t height;
    std::size_t depth;

    std::size_t count() const { return width * height * depth; }
};

Volume volume_of(const RunRequest& request)
{
    const Settings& settings = request.settings;
    return {static_cast<std::size_t>(settings.integer("width")), static_cast<std::size_t>(settings.integer("height")),
            request.variant == "3d" ? static_cast<std::size_t>(settings.integer("depth")) : std::size_t{1}};
}

/// Throws naming the first row of C (counted across slices) whose padding, poisoned before the
/// pass, a kernel wrote: the kernels index rows by the pitch and must stop at the width.
void check_padding(Queue& queue, const PitchedBuffer<float>& c)
{
    std::vector<float> pitched(c.raw().bytes() / sizeof(float));
    queue.read_bytes(pitched.data(), c.raw(), 0, pitched.size() * sizeof(float));
    queue.finish();
    const std::size_t row_floats = c.pitch() / sizeof(float);
    for (std::size_t row = 0; row < c.height() * c.depth(); ++row) {
        check_sentinels(std::span<const float>(pitched).subspan(row * row_floats + c.width(), row_floats - c.width()),
                        "row " + std::to_string(row) + " of C");
    }
}

class MatAdd final : public Workload {
public:
    WorkloadInfo info() const override
    {
        return {"mat_add",
                "C = A + B on pitched buffers (rows padded to the device's pitch) moved with rectangular copies: "
                "2d over width x height, 3d over width x height x depth",
                {"2d", "3d"},
                {integer_parameter("width", 2048, 1, 1 << 20, "floats per row"),
                 integer_parameter("height", 2048, 1, 1 << 20, "rows per slice"),
                 integer_parameter("depth", 1, 1, 1 << 16, "slices (3d only; 2d takes one)", {"3d"}),
                 integer_parameter("block_x", 32, 1, 1024, "threads per block along a row"),
                 integer_parameter("block_y", 8, 1, 1024, "threads per block across rows"),
                 integer_parameter("block_z", 1, 1, 64, "threads per block across slices (3d only)", {"3d"})},
                // Tiny, odd, not a multiple of the block in any dimension, and large in 2D and 3D.
                {{{"width", "1"}, {"height", "1"}},
                 {{"width", "7"}, {"height", "5"}, {"depth", "3"}},
                 {{"width", "100"},
                  {"height", "37"},
                  {"depth", "9"},
                  {"block_x", "16"},
                  {"block_y", "4"},
                  {"block_z", "2"}},
                 {{"width", "2048"}, {"height", "2048"}},
                 {{"width", "256"}, {"height", "256"}, {"depth", "64"}}},
                {}};
    }

    Footprint footprint(const RunRequest& request) const override
    {
        const Volume volume = volume_of(request);
        const std::uint64_t rows = volume.height * volume.depth;
        // Rows padded as the backends pad them: to the device's alignment, and cuMemAllocPitch's
        // 512 bytes, whichever is larger.
        const std::uint64_t alignment =
            std::max<std::uint64_t>(request.device.properties().base_address_alignment, 512);
        const std::uint64_t pitched = (volume.width * sizeof(float) + alignment - 1) / alignment * alignment * rows;
        const std::uint64_t dense = volume.count() * sizeof(float);
        // A, B and C pitched on the device. On the host A, B and the result dense, then C read
        // back pitched for its padding, freed before the reference's dense C is computed.
        return {3 * pitched + workload::Spacer::bytes(request.device),
                std::max(pitched, workload::Spacer::bytes(request.device)), 3 * dense + std::max(pitched, dense)};
    }

    Measurement run(const RunRequest& request) const override
    {
        const Volume volume = volume_of(request);
        const bool three_d = request.variant == "3d";
        const Dim3 block{static_cast<std::size_t>(request.settings.integer("block_x")),
                         static_cast<std::size_t>(request.settings.integer("block_y")),
                         three_d ? static_cast<std::size_t>(request.settings.integer("block_z")) : std::size_t{1}};
        const std::size_t count = volume.count();
        const auto a = random_floats(count, request.seed);
        const auto b = random_floats(count, request.seed + 1);
        const Device& device = request.device;
        const Launcher launcher(device);
        auto queue = device.create_queue();
        const auto da = device.alloc_pitched<float>(volume.width, volume.height, volume.depth);
        const auto db = device.alloc_pitched<float>(volume.width, volume.height, volume.depth);
        const auto dc = device.alloc_pitched<float>(volume.width, volume.height, volume.depth);

        const workload::Spacer spacer(device);
        Measurement result;
        const auto pass = [&] {
            // The padding too: check_padding then catches a kernel that wrote it.
            const float poisoned = poison();
            queue.fill_bytes(dc.raw(), 0, dc.raw().bytes(), &poisoned, sizeof poisoned);
            result.output = std::vector<float>(count, poisoned);
            queue.finish();
            PhaseTimer timer(queue);
            queue.write(da, a);
            queue.write(db, b);
            timer.mark(Phase::h2d);
            timer.space(spacer);
            if (three_d) {
                launcher.run_3d(queue, da, db, dc, block);
            } else {
                launcher.run_2d(queue, da, db, dc, block);
            }
            timer.mark(Phase::kernel);
            queue.read(result.output.as<float>(), dc);
            timer.mark(Phase::d2h);
            return timer.sample();
        };
        result.samples = repeat(request.timing, pass);
        result.set_medians();
        check_padding(queue, dc);
        result.work = 3.0 * count * sizeof(float);
        result.unit = Measurement::Unit::bytes;
        result.tolerance = 0;
        result.tolerance_reason = "one IEEE add per element is exact on every device";
        result.output_shape = workload::Shape{volume.width};
        result.extras = {{"pitch_bytes", static_cast<double>(dc.pitch())}};
        check_against_reference(request, result, [&](Values& expected) { reference(a, b, expected.as<float>()); });
        return result;
    }
};

} // namespace
} // namespace duet::mat_add

DUET_EXPORT_WORKLOAD(duet::mat_add::MatAdd)
