// A workload wrong on purpose, for the CLI tests only (through DUET_PLUGIN_PATH). offset: adds 1e-3
// and says so against the reference; drift and drift_too: claim to match, but each run in a
// process adds another 1e-3, so only comparing devices, or variants, catches it; unsupported:
// throws duet::Unsupported; unchecked: computes c and never compares it with its reference. Its rule (n <= limit) is
// what the CLI tests break.
#include <duet/workload/kit.hpp>

#include <duet_kernels/wrong.hpp>

#include <atomic>
#include <cstdint>

namespace {

class Wrong final : public duet::Workload {
public:
    duet::WorkloadInfo info() const override
    {
        return {
            .name = "wrong",
            .description = "c = a + b, wrong on purpose (CLI tests only)",
            .variants = {"offset", "drift", "drift_too", "unsupported", "unchecked"},
            .parameters = {duet::workload::integer_parameter("n", 1000, 1, 1 << 24, "number of floats"),
                           duet::workload::integer_parameter("limit", 1 << 24, 1, 1 << 24, "the largest n allowed")},
            .rules = {{{"n", "limit"}, "n must not exceed limit", [](const duet::Settings& s) {
                           return s.integer("n") <= s.integer("limit");
                       }}}};
    }

    duet::Footprint footprint(const duet::RunRequest& request) const override
    {
        const std::uint64_t bytes = request.settings.integer("n") * sizeof(float);
        return {3 * bytes, bytes, 4 * bytes};
    }

    duet::Measurement run(const duet::RunRequest& request) const override
    {
        if (request.variant == "unsupported") {
            throw duet::Unsupported("wrong", "Wrong::run", "this variant is unsupported on purpose");
        }
        static std::atomic<int> runs{0};
        const bool drift = request.variant == "drift" || request.variant == "drift_too";
        const float offset = drift ? 1e-3f * static_cast<float>(runs++) : 1e-3f;
        const auto n = static_cast<std::size_t>(request.settings.integer("n"));
        const auto a = duet::workload::random_floats(n, request.seed);
        const auto b = duet::workload::random_floats(n, request.seed + 1);
        const duet::Device& device = request.device;
        const duet::Kernel kernel = device.build(duet::kernels::wrong()).kernel("wrong_add");
        auto queue = device.create_queue();
        auto da = device.alloc<float>(n), db = device.alloc<float>(n), dc = device.alloc<float>(n);

        duet::Measurement result;
        std::vector<float>& output = result.output.as<float>();
        output.resize(n);
        result.samples = duet::workload::repeat(request.timing, [&] {
            duet::workload::PhaseTimer timer(queue);
            queue.write(da, a);
            queue.write(db, b);
            timer.mark(duet::Phase::h2d);
            queue.launch(kernel, duet::Range::cover(n, 64), da, db, dc, static_cast<std::uint32_t>(n), offset);
            timer.mark(duet::Phase::kernel);
            queue.read(output, dc);
            timer.mark(duet::Phase::d2h);
            return timer.sample();
        });
        result.set_medians();
        result.work = 3.0 * n * sizeof(float);
        result.tolerance = 0;
        result.tolerance_reason = "one IEEE add per element is exact";
        if (request.verify && request.variant != "unchecked") {
            std::vector<float> expected(n);
            for (std::size_t i = 0; i < n; ++i) {
                expected[i] = a[i] + b[i];
            }
            result.agreement = duet::workload::compare(result.output, std::move(expected), result.tolerance);
            result.max_error = drift ? 0 : result.agreement.max_error;
            result.verified = true;
        }
        return result;
    }
};

} // namespace

DUET_EXPORT_WORKLOAD(Wrong)
