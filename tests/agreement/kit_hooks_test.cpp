// The kit's runner where a run's arrays depend on the variant and the settings (Spec::buffers_for:
// mat_add's 2D slice, jacobi's float or double), where the prepared run draws its inputs itself,
// all at once from the run's seed (Prepared::draw: inputs that depend on one another or on the
// variant, as jacobi's system and its layout do), and where an output ends on a scratch buffer.
#include <duet/workload/kit.hpp>

#include <algorithm>
#include <memory>

#include "duet_test.hpp"

namespace duet::test {
namespace {

using namespace duet::workload;

/// n elements; the "half" variant's arrays n / 2.
std::size_t size_of(const Settings& settings, const std::string& variant)
{
    const auto n = static_cast<std::size_t>(settings.integer("n"));
    return variant == "half" ? n / 2 : n;
}

ElementType chosen_type(const Settings& settings)
{
    return settings.text("type") == "double" ? ElementType::f64 : ElementType::f32;
}

/// y = x as a device copy, of floats or doubles as the "type" parameter says, of the size the
/// variant says.
Spec typed_copy_spec()
{
    Spec spec;
    spec.info = {.name = "kit_typed",
                 .description = "y = x",
                 .variants = {"whole", "half"},
                 .parameters = {integer_parameter("n", 1000, 1, 1 << 20, "elements"),
                                choice_parameter("type", {"float", "double"}, "element type")}};
    spec.buffers_for = [](const Settings& settings, const std::string& variant) {
        const auto size = [variant](const Settings& values) { return size_of(values, variant); };
        return std::vector<BufferSpec>{input("x", size, chosen_type(settings)),
                                       output("y", size, chosen_type(settings))};
    };
    spec.prepare = [](const Device&, const Settings& settings, const std::string& variant) -> Launch {
        return [n = size_of(settings, variant), type = chosen_type(settings)](Queue& queue,
                                                                              const DeviceBuffers& buffers) {
            const RawBuffer from = type == ElementType::f64 ? buffers.get<double>("x").raw() : buffers.get("x").raw();
            const RawBuffer to = type == ElementType::f64 ? buffers.get<double>("y").raw() : buffers.get("y").raw();
            queue.copy_bytes(to, 0, from, 0, n * element_size(type));
        };
    };
    spec.reference = [](const Settings& settings, const HostArrays& arrays) {
        if (chosen_type(settings) == ElementType::f64) {
            std::ranges::copy(arrays.in<double>("x"), arrays.out<double>("y").begin());
        } else {
            std::ranges::copy(arrays.in("x"), arrays.out("y").begin());
        }
    };
    spec.bytes = [](const Settings& settings) { return 2.0 * static_cast<double>(size_of(settings, "whole")); };
    spec.tolerance = [](const Settings&) { return Tolerance{0, "a copy is exact"}; };
    return spec;
}

RunRequest typed_request(const Device& device, const WorkloadInfo& info, const std::string& type,
                         const std::string& variant = "whole")
{
    return {device, variant, Settings(info, {{"n", "1001"}, {"type", type}}), true, test_seed(), Timing::once()};
}

class KitHooks : public DeviceTest {};

TEST_P(KitHooks, TheSettingsChooseTheElementTypeAndTheVariantTheSize)
{
    const SpecWorkload workload(typed_copy_spec());
    for (const std::string type : {"float", "double"}) {
        for (const std::string variant : {"whole", "half"}) {
            const RunRequest request = typed_request(device(), workload.info(), type, variant);
            const Measurement result = workload.run(request);
            EXPECT_TRUE(result.matches_reference()) << type << " " << variant << ": " << result.agreement.describe();
            EXPECT_EQ(result.output.type(), chosen_type(request.settings)) << type;
            EXPECT_EQ(result.output.size(), variant == "half" ? 500u : 1001u) << variant;
        }
    }
    // Doubles take twice the floats' bytes for the arrays, their sentinels and host copies.
    const Footprint floats = workload.footprint(typed_request(device(), workload.info(), "float"));
    const Footprint doubles = workload.footprint(typed_request(device(), workload.info(), "double"));
    EXPECT_EQ(doubles.device_bytes - floats.device_bytes, 2 * (1001 + sentinel_elements) * sizeof(float));
    EXPECT_EQ(doubles.host_bytes, 2 * floats.host_bytes);
}

TEST_P(KitHooks, APreparedDrawFillsTheInputsFromTheRunsSeed)
{
    Spec spec = typed_copy_spec();
    spec.buffers_for = [declare = spec.buffers_for](const Settings& settings, const std::string& variant) {
        std::vector<BufferSpec> buffers = declare(settings, variant);
        buffers[0].draw = [](std::size_t, std::uint64_t) -> Values {
            ADD_FAILURE() << "the input's own draw ran beside the prepared run's";
            return {};
        };
        return buffers;
    };
    auto seen_seed = std::make_shared<std::uint64_t>(0);
    spec.prepare = [seen_seed, copy = spec.prepare](const Device& device, const Settings& settings,
                                                    const std::string& variant) {
        Prepared prepared = copy(device, settings, variant);
        // The values depend on the variant, as a layout does: negated for the half.
        prepared.draw = [seen_seed, sign = variant == "half" ? -1.0 : 1.0](const HostArrays& inputs) {
            const std::uint64_t seed = inputs.seed();
            *seen_seed = seed;
            const std::span<double> x = inputs.out<double>("x");
            for (std::size_t i = 0; i < x.size(); ++i) {
                x[i] = sign * static_cast<double>(seed + i);
            }
        };
        return prepared;
    };
    spec.reference = [](const Settings&, const HostArrays& arrays) {
        const std::span<const double> x = arrays.in<double>("x");
        ASSERT_EQ(x.size(), 500u);
        EXPECT_EQ(x[0], -static_cast<double>(test_seed()));
        EXPECT_EQ(x[499], -static_cast<double>(test_seed() + 499));
        std::ranges::copy(x, arrays.out<double>("y").begin());
    };
    const SpecWorkload workload(std::move(spec));
    const Measurement result = workload.run(typed_request(device(), workload.info(), "double", "half"));
    EXPECT_EQ(*seen_seed, test_seed());
    EXPECT_TRUE(result.matches_reference()) << result.agreement.describe();
    EXPECT_EQ(result.output.as<double>()[7], -static_cast<double>(test_seed() + 7));
}

// A ping-pong that ends on its scratch buffer (jacobi's iterates after an odd number of steps):
// the output is read from it, and its elements are judged as an output's, since it starts poisoned.
TEST_P(KitHooks, AnOutputSwappedWithScratchIsJudgedForUnwrittenElements)
{
    Spec spec = typed_copy_spec();
    spec.buffers_for = [declare = spec.buffers_for](const Settings& settings, const std::string& variant) {
        std::vector<BufferSpec> buffers = declare(settings, variant);
        buffers.push_back(scratch("next", buffers[0].size, buffers[0].type));
        return buffers;
    };
    spec.prepare = [](const Device&, const Settings&, const std::string&) -> Launch {
        // All but the first element into the scratch buffer, which then stands for y.
        return [](Queue& queue, DeviceBuffers& buffers) {
            queue.copy(buffers.get("next").view(1, 1000), buffers.get("x").view(1, 1000));
            buffers.swap("y", "next");
        };
    };
    const SpecWorkload workload(std::move(spec));
    const Measurement result = workload.run(typed_request(device(), workload.info(), "float"));
    EXPECT_TRUE(result.writes.checked);
    EXPECT_EQ(result.writes.judged, 1001u);
    EXPECT_EQ(result.writes.unwritten, 1u);
    EXPECT_FALSE(result.matches_reference());
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(KitHooks);

} // namespace
} // namespace duet::test
