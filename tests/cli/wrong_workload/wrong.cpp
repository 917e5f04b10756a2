// A workload wrong on purpose, for the CLI tests only (through DUET_PLUGIN_PATH). offset: adds 1e-3
// and says so against the reference; drift and drift_too: claim to match, but each run in a
// process adds another 1e-3, so only comparing devices, or variants, catches it; unsupported:
// throws duet::Unsupported; unchecked: computes c and never compares it with its reference. Its rule (n <= limit) is
// what the CLI tests break; drift_too has a rule of its own (n <= limit / 2), and a parameter of its own (`unused`,
// which changes nothing) that a sweep need not repeat the other variants for.
#include <duet/workload/kit.hpp>

#include <duet_kernels/wrong.hpp>

#include <atomic>
#include <cstdint>

namespace {

using namespace duet::workload;

std::size_t n(const duet::Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

bool drifts(const std::string& variant)
{
    return variant == "drift" || variant == "drift_too";
}

Spec spec()
{
    Spec spec;
    spec.info = {.name = "wrong",
                 .description = "c = a + b, wrong on purpose (CLI tests only)",
                 .variants = {"offset", "drift", "drift_too", "unsupported", "unchecked"},
                 .parameters = {integer_parameter("n", 1000, 1, 1 << 24, "number of floats"),
                                integer_parameter("limit", 1 << 24, 1, 1 << 24, "the largest n allowed"),
                                integer_parameter("unused", 1, 1, 100, "changes nothing", {"drift_too"})},
                 .rules = {{.parameters = {"n", "limit"},
                            .text = "n must not exceed limit",
                            .holds = [](const duet::Settings& s) { return s.integer("n") <= s.integer("limit"); }},
                           {.parameters = {"n", "limit"},
                            .text = "n must not exceed limit / 2",
                            .holds = [](const duet::Settings& s) { return 2 * s.integer("n") <= s.integer("limit"); },
                            .variants = {"drift_too"}}}};
    spec.buffers = {input("a", n), input("b", n), output("c", n)};
    spec.prepare = [](const duet::Device& device, const duet::Settings& settings, const std::string& variant) {
        if (variant == "unsupported") {
            throw duet::Unsupported("wrong", "Wrong::run", "this variant is unsupported on purpose");
        }
        static std::atomic<int> runs{0};
        const float offset = drifts(variant) ? 1e-3f * static_cast<float>(runs++) : 1e-3f;
        const duet::Kernel kernel = device.build(duet::kernels::wrong()).kernel("wrong_add");
        Prepared prepared = [kernel, offset, size = n(settings)](duet::Queue& queue, const DeviceBuffers& buffers) {
            queue.launch(kernel, duet::Range::cover(size, 64), buffers.get("a"), buffers.get("b"), buffers.get("c"),
                         static_cast<std::uint32_t>(size), offset);
        };
        if (drifts(variant)) {
            // Claims to match whatever it computed.
            prepared.finish = [](Finish& finish) { finish.set_error(0); };
        }
        return prepared;
    };
    spec.reference = [](const duet::Settings&, const HostArrays& arrays) {
        const auto a = arrays.in("a"), b = arrays.in("b");
        const auto c = arrays.out("c");
        for (std::size_t i = 0; i < c.size(); ++i) {
            c[i] = a[i] + b[i];
        }
    };
    spec.bytes = [](const duet::Settings& settings) { return 3.0 * static_cast<double>(n(settings)) * sizeof(float); };
    spec.tolerance = [](const duet::Settings&) { return Tolerance{0, "one IEEE add per element is exact"}; };
    return spec;
}

/// The spec's run, whose unchecked variant then forgets its check.
class Wrong final : public SpecWorkload {
public:
    Wrong() : SpecWorkload(spec()) {}
    duet::Measurement run(const duet::RunRequest& request) const override
    {
        duet::Measurement result = SpecWorkload::run(request);
        if (request.variant == "unchecked") {
            result.verified = false;
            result.max_error = 0;
            result.agreement = {};
        }
        return result;
    }
};

} // namespace

DUET_EXPORT_WORKLOAD(Wrong)
