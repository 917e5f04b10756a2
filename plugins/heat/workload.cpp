// heat as a workload: `steps` steps of five-point diffusion on a rows × cols grid. On a distributed
// run the grid is split by rows over the ranks, each step's halo rows exchanged with the
// neighbours before the step (the communication phase); the edge of the whole grid stays fixed.
// Every rank computes each point as one device does, so the result is the same bit for bit
// whatever the number of ranks; weak scaling grows `rows` with the ranks, strong keeps it.
#include "heat.hpp"

#include <duet/workload/kit.hpp>

#include <cfloat>
#include <cstdint>
#include <memory>
#include <vector>

namespace duet::heat {
namespace {

using namespace duet::workload;

std::size_t count(const Settings& settings, const char* name)
{
    return static_cast<std::size_t>(settings.integer(name));
}

std::size_t points(const Settings& settings)
{
    return count(settings, "rows") * count(settings, "cols");
}

Spec spec()
{
    Spec spec;
    spec.info = {
        .name = "heat",
        .description = "steps of 2D heat diffusion (five-point stencil) on a rows x cols grid, its edge held fixed; "
                       "split by rows over the ranks of a distributed run, halo rows exchanged before each step",
        .variants = {"global"},
        .parameters = {integer_parameter("rows", 4096, 1, std::int64_t{1} << 30, "rows of the grid"),
                       integer_parameter("cols", 4096, 1, std::int64_t{1} << 30, "columns of the grid"),
                       integer_parameter("steps", 20, 1, 1 << 20, "diffusion steps"),
                       real_parameter("alpha", 0.2, 0, 0.25,
                                      "diffusion number k·dt/h²: above 0.25 the explicit step is unstable")},
        // One row, a grid all edge, odd sizes a block does not divide, and one step or several
        // (an odd count ends on the other buffer of the pair).
        .test_cases = {{{"rows", "1"}, {"cols", "5"}},
                       {{"rows", "3"}, {"cols", "3"}, {"steps", "1"}},
                       {{"rows", "37"}, {"cols", "45"}, {"steps", "7"}},
                       {{"rows", "256"}, {"cols", "300"}, {"steps", "20"}}},
    };
    const auto by_rows = [](const Settings& settings) { return count(settings, "cols"); };
    BufferSpec grid = in_out("grid", points);
    grid.split = Split{.row = by_rows, .halo = 1};
    BufferSpec next = scratch("next", points);
    next.split = Split{.row = by_rows, .halo = 1};
    spec.buffers = {grid, next};
    spec.prepare = [](const Device& device, const Settings& settings, const std::string&) -> Launch {
        const auto launcher = std::make_shared<const Launcher>(device);
        const std::size_t steps = count(settings, "steps");
        const auto alpha = static_cast<float>(settings.real("alpha"));
        return [launcher, steps, alpha](Queue& queue, DeviceBuffers& buffers) {
            const Part& part = buffers.part("grid");
            Communicator& ranks = buffers.communicator();
            const Block block{part.row, part.rows, part.halo_low, part.first_row, part.total_rows};
            // The first owned row goes down to the lower neighbour's high halo, the last up to the upper's.
            const Communicator::Halo halo{.send_low = part.halo_low * part.row,
                                          .recv_low = 0,
                                          .send_high = (part.halo_low + part.rows - 1) * part.row,
                                          .recv_high = (part.halo_low + part.rows) * part.row,
                                          .count = part.row};
            for (std::size_t step = 0; step < steps; ++step) {
                if (ranks.size() > 1) {
                    ranks.halo_exchange(queue, buffers.get("grid").raw(), halo, ElementType::f32);
                }
                launcher->step(queue, buffers.get("grid"), buffers.get("next"), block, alpha);
                buffers.swap("grid", "next");
            }
        };
    };
    spec.reference = [](const Settings& settings, const HostArrays& arrays) {
        std::vector<float> scratch(points(settings));
        reference(arrays.out("grid"), scratch, count(settings, "rows"), count(settings, "cols"),
                  count(settings, "steps"), static_cast<float>(settings.real("alpha")));
    };
    spec.extra_host_bytes = [](const Settings& settings) { return points(settings) * sizeof(float); };
    // Each step reads and writes every point once; the neighbours' reads are served by the cache.
    spec.bytes = [](const Settings& settings) {
        return 2.0 * points(settings) * sizeof(float) * count(settings, "steps");
    };
    // Each step, at each point off the edge: three adds of the neighbours, 4·C, the subtraction and
    // the fma (two). The edge is copied.
    spec.flops = [](const Settings& settings) {
        const auto inner = [](std::size_t extent) { return extent > 2 ? static_cast<double>(extent - 2) : 0.0; };
        return 7.0 * inner(count(settings, "rows")) * inner(count(settings, "cols")) *
               static_cast<double>(count(settings, "steps"));
    };
    spec.unit = Measurement::Unit::bytes;
    spec.tolerance = [](const Settings&) {
        return Tolerance{2 * FLT_EPSILON, "every device and the reference do the same operations in the same order, "
                                          "the last an explicit fma, so they agree bit for bit; 2 ulp against a "
                                          "compiler that reorders the neighbours' sum"};
    };
    return spec;
}

} // namespace
} // namespace duet::heat

DUET_EXPORT_WORKLOAD_SPEC(duet::heat::spec)
