// A workload written against the plugin interface alone, without the kit: <duet/duet.hpp> and
// <duet/workload.hpp>, its own kernel pair, built into libduet_workload_user_saxpy.so and found
// through DUET_PLUGIN_PATH. The CLI tests check that `duet list` shows it and `duet run` passes it.
#include <duet/duet.hpp>
#include <duet/workload.hpp>
#include <duet_kernels/user_saxpy.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

class UserSaxpy final : public duet::Workload {
public:
    duet::WorkloadInfo info() const override
    {
        using Type = duet::WorkloadParameter::Type;
        return {.name = "user_saxpy",
                .description = "y = a*x + y over n floats, from a plugin outside duet's tree",
                .variants = {"default"},
                .parameters = {{"n", Type::integer, "4096", "number of floats", 1, 1 << 26, {}, {}},
                               {"a", Type::real, "2.5", "the scale of x", -100, 100, {}, {}},
                               {"block", Type::integer, "128", "threads (work-items) per block", 1, 1024, {}, {}}},
                .test_cases = {{{"n", "1"}}, {{"n", "1000"}, {"a", "-0.5"}}}};
    }

    duet::Footprint footprint(const duet::RunRequest& request) const override
    {
        const std::uint64_t bytes = request.settings.integer("n") * sizeof(float);
        return {2 * bytes, bytes, 3 * bytes}; // x and y on the device; x, y and the result on the host
    }

    duet::Measurement run(const duet::RunRequest& request) const override
    {
        const auto n = static_cast<std::size_t>(request.settings.integer("n"));
        const auto a = static_cast<float>(request.settings.real("a"));
        const auto block = static_cast<std::size_t>(request.settings.integer("block"));
        std::mt19937_64 engine(request.seed);
        std::uniform_real_distribution<float> values(-2.0f, 2.0f);
        std::vector<float> x(n), y(n);
        std::generate(x.begin(), x.end(), [&] { return values(engine); });
        std::generate(y.begin(), y.end(), [&] { return values(engine); });

        const duet::Device& device = request.device;
        const duet::Kernel kernel = device.build(duet::kernels::user_saxpy()).kernel("saxpy");
        auto queue = device.create_queue();
        auto dx = device.alloc<float>(n), dy = device.alloc<float>(n);

        duet::Measurement result;
        std::vector<float>& output = result.output.as<float>();
        output.resize(n);
        const duet::Event start = queue.record();
        queue.write(dx, x);
        queue.write(dy, y);
        const duet::Event copied_in = queue.record();
        queue.launch(kernel, duet::Range::cover(n, block), static_cast<std::uint32_t>(n), a, dx, dy);
        const duet::Event computed = queue.record();
        queue.read(output, dy);
        const duet::Event copied_out = queue.record();
        queue.finish();
        duet::Sample sample;
        sample.h2d_ms = duet::elapsed_ms(start, copied_in);
        sample.kernel_ms = duet::elapsed_ms(copied_in, computed);
        sample.d2h_ms = duet::elapsed_ms(computed, copied_out);
        sample.total_ms = duet::elapsed_ms(start, copied_out);
        result.samples = {sample}; // one pass: a plugin may ignore request.timing
        result.set_medians();
        result.bytes = 3.0 * n * sizeof(float); // x and y read, y written
        result.flops = 2.0 * n;                 // a multiply and an add each
        // |a·x| < 200 here: two roundings (or one, fused) stay below 2^-23 of it, relative to max(|y|, 1).
        result.tolerance = 200 * std::ldexp(1.0, -22);
        result.tolerance_reason = "a multiply and an add, fused or not: up to two roundings of |a*x| < 200";
        if (request.verify) {
            for (std::size_t i = 0; i < n; ++i) {
                const double want = static_cast<double>(a) * x[i] + y[i];
                const double error = std::abs(output[i] - want) / std::max(1.0, std::abs(want));
                result.max_error = std::isnan(error) ? INFINITY : std::max(result.max_error, error);
            }
            result.verified = true;
        }
        return result;
    }
};

} // namespace

DUET_EXPORT_WORKLOAD(UserSaxpy)
