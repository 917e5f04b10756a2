// vector_add as a workload plugin: the description the CLI lists, and one run that copies the
// inputs in, adds, copies the sum out, each phase timed on the device clock, and checks the
// result against the CPU reference.
#include "vector_add.hpp"

#include <workload_support.hpp>

#include <cstdint>

namespace duet::vector_add {
namespace {

class VectorAdd final : public Workload {
public:
    WorkloadInfo info() const override
    {
        return {"vector_add",
                "c = a + b over n floats: the worked example, one read of a and b and one write of c per element",
                {"default"},
                {workload::integer_parameter("n", 1 << 24, 1, std::int64_t{1} << 31, "number of floats"),
                 workload::integer_parameter("block", 256, 1, 1024, "threads (work-items) per block")},
                {{{"n", "1"}}, {{"n", "7"}, {"block", "64"}}, {{"n", "1000003"}}, {{"n", "1048576"}, {"block", "128"}}}};
    }

    Footprint footprint(const RunRequest& request) const override
    {
        const std::uint64_t bytes = request.settings.integer("n") * sizeof(float);
        // a, b and c on the device; a, b, the result and the reference's on the host.
        return {3 * bytes, bytes, 4 * bytes};
    }

    Measurement run(const RunRequest& request) const override
    {
        const auto n = static_cast<std::size_t>(request.settings.integer("n"));
        const auto block = static_cast<std::size_t>(request.settings.integer("block"));
        const auto a = workload::random_floats(n, request.seed);
        const auto b = workload::random_floats(n, request.seed + 1);
        const Device& device = request.device;
        const Launcher launcher(device);
        auto queue = device.create_queue();
        auto da = device.alloc<float>(n), db = device.alloc<float>(n), dc = device.alloc<float>(n);
        queue.fill(dc, workload::poison());
        queue.finish();

        Measurement result;
        result.output.assign(n, workload::poison());
        workload::PhaseTimer timer(queue);
        queue.write(da, a);
        queue.write(db, b);
        timer.mark("h2d");
        launcher.run(queue, da, db, dc, n, block);
        timer.mark("kernel");
        queue.read(result.output, dc);
        timer.mark("d2h");
        timer.add_phases_to(result);
        result.work = 3.0 * n * sizeof(float);
        result.unit = Measurement::Unit::bytes;
        // One correctly rounded IEEE add per element on every device: results agree exactly.
        result.tolerance = 0;
        result.tolerance_reason = "one IEEE add per element is exact on every device";
        workload::check_against_reference(request, result, n,
                                          [&](std::span<float> expected) { reference(a, b, expected); });
        return result;
    }
};

} // namespace
} // namespace duet::vector_add

DUET_EXPORT_WORKLOAD(duet::vector_add::VectorAdd)
