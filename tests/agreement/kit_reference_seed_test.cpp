// The seed a reference sees (HostArrays::seed): the run's, the one its inputs were drawn from, so
// that a reference checking a sample of the outputs (matmul's rows) draws the sample from it.
#include <duet/workload/kit.hpp>

#include <memory>

#include "duet_test.hpp"
#include "vector_add.hpp"

namespace duet::test {
namespace {

using namespace duet::workload;

constexpr std::size_t elements = 257;

class KitReferenceSeed : public DeviceTest {};

TEST_P(KitReferenceSeed, IsTheRunsOwnWhichTheInputsWereDrawnFrom)
{
    for (const std::uint64_t seed : {std::uint64_t{7}, std::uint64_t{123456789}}) {
        const auto seen = std::make_shared<std::uint64_t>(0);
        const auto first_input = std::make_shared<std::vector<float>>();
        Spec spec;
        spec.info = {.name = "kit_seed", .description = "c = a + b", .variants = {"default"}};
        const auto size = [](const Settings&) { return elements; };
        spec.buffers = {input("a", size), input("b", size), output("c", size)};
        spec.prepare = [seen, first_input](const Device& device, const Settings&, const std::string&) {
            const auto launcher = std::make_shared<vector_add::Launcher>(device);
            Prepared prepared([launcher](Queue& queue, const DeviceBuffers& buffers) {
                launcher->run(queue, buffers.get("a"), buffers.get("b"), buffers.get("c"), elements);
            });
            prepared.reference = [seen, first_input](const HostArrays& arrays) {
                *seen = arrays.seed();
                first_input->assign(arrays.in("a").begin(), arrays.in("a").end());
                vector_add::reference(arrays.in("a"), arrays.in("b"), arrays.out("c"));
            };
            return prepared;
        };
        spec.bytes = [](const Settings&) { return 12.0 * elements; };
        spec.tolerance = [](const Settings&) { return Tolerance{0, "exact"}; };
        const SpecWorkload workload(spec);
        const Measurement result =
            workload.run({device(), "default", Settings(workload.info(), {}), true, seed, Timing::once()});
        EXPECT_TRUE(result.matches_reference());
        EXPECT_EQ(*seen, seed);
        // The first input is the seed's own stream.
        EXPECT_EQ(*first_input, random_floats(elements, seed));
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(KitReferenceSeed);

} // namespace
} // namespace duet::test
