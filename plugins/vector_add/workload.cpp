// vector_add as a workload: the spec the kit runs. The runner draws a and b, poisons c, times the
// copies in, the launch and the copy out, and checks c against the CPU reference.
#include "vector_add.hpp"

#include <duet/workload/kit.hpp>

#include <cstdint>

namespace duet::vector_add {
namespace {

using namespace duet::workload;

std::size_t n(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

Spec spec()
{
    Spec spec;
    spec.info = {
        .name = "vector_add",
        .description =
            "c = a + b over n floats: the worked example, one read of a and b and one write of c per element",
        .variants = {"default"},
        .parameters = {integer_parameter("n", 1 << 24, 1, std::int64_t{1} << 31, "number of floats"),
                       integer_parameter("block", 256, 1, 1024, "threads (work-items) per block")},
        .test_cases = {
            {{"n", "1"}}, {{"n", "7"}, {"block", "64"}}, {{"n", "1000003"}}, {{"n", "1048576"}, {"block", "128"}}}};
    spec.buffers = {input("a", n), input("b", n), output("c", n)};
    spec.prepare = [](const Device& device, const Settings& settings, const std::string&) -> Launch {
        const auto launcher = std::make_shared<Launcher>(device);
        const auto block = static_cast<std::size_t>(settings.integer("block"));
        return [launcher, size = n(settings), block](Queue& queue, const DeviceBuffers& buffers) {
            launcher->run(queue, buffers.get("a"), buffers.get("b"), buffers.get("c"), size, block);
        };
    };
    spec.reference = [](const Settings&, const HostArrays& arrays) {
        reference(arrays.in("a"), arrays.in("b"), arrays.out("c"));
    };
    // Per element a and b read and c written, and one add.
    spec.bytes = [](const Settings& settings) { return 3.0 * n(settings) * sizeof(float); };
    spec.flops = [](const Settings& settings) { return static_cast<double>(n(settings)); };
    spec.unit = Measurement::Unit::bytes;
    spec.tolerance = [](const Settings&) { return Tolerance{0, "one IEEE add per element is exact on every device"}; };
    return spec;
}

} // namespace
} // namespace duet::vector_add

DUET_EXPORT_WORKLOAD_SPEC(duet::vector_add::spec)
