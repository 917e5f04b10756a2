// A workload plugin that misbehaves as a plugin may, for the CLI tests only (through
// DUET_PLUGIN_PATH). run_throws and footprint_throws throw an int, not a std::exception, from run()
// and from footprint(); fine adds two vectors (wrong.cl's kernel with no offset), so that a
// comparison shows the runs after a throw still happen. Its parameters reach past what works: n up
// to 2^24 under the rule n <= limit, limit 4096 by default; huge up to int64's largest, which the
// double of WorkloadParameter::max rounds up to 2^63; chunk up to 1000 under a rule that is no bound,
// chunk a multiple of grain (64 by default), so that the largest chunk that works, 960, is far from
// the first that does not, 1; trap up to 16 under a rule whose check throws an int at 7 and a
// std::runtime_error above it, rather than answering. Where DUET_TEST_RUN_LOG names a file, each run appends
// "start <device>" as it begins and "end <device>" as it ends, so that a test can see whether the
// runs of a comparison overlapped (took turns) or followed one another.
#include <duet/workload/kit.hpp>

#include <duet_kernels/misbehaving.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>

namespace {

using namespace duet::workload;

std::size_t n(const duet::Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

Spec spec()
{
    Spec spec;
    spec.info = {
        .name = "misbehaving",
        .description = "c = a + b, from a plugin that throws what is not a std::exception (CLI tests only)",
        .variants = {"fine", "run_throws", "footprint_throws"},
        .parameters = {integer_parameter("n", 1000, 1, 1 << 24, "number of floats"),
                       integer_parameter("limit", 4096, 1, 1 << 24, "the largest n allowed"),
                       integer_parameter("huge", 1, 1, std::numeric_limits<std::int64_t>::max(), "unused; no maximum"),
                       integer_parameter("chunk", 64, 1, 1000, "unused; a multiple of grain"),
                       integer_parameter("grain", 64, 1, 256, "unused; divides chunk"),
                       integer_parameter("trap", 0, 0, 16, "unused; its rule's check throws from 7 up")},
        .rules = {{{"n", "limit"},
                   "n must not exceed limit",
                   [](const duet::Settings& s) { return s.integer("n") <= s.integer("limit"); }},
                  {{"chunk", "grain"},
                   "chunk must be a multiple of grain",
                   [](const duet::Settings& s) { return s.integer("chunk") % s.integer("grain") == 0; }},
                  {{"trap"}, "trap must be below 7", [](const duet::Settings& s) -> bool {
                       if (s.integer("trap") == 7) {
                           throw 7;
                       }
                       if (s.integer("trap") > 7) {
                           throw std::runtime_error("trap " + std::to_string(s.integer("trap")) + " sprung");
                       }
                       return true;
                   }}}};
    spec.buffers = {input("a", n), input("b", n), output("c", n)};
    spec.prepare = [](const duet::Device& device, const duet::Settings& settings, const std::string&) -> Launch {
        const duet::Kernel kernel = device.build(duet::kernels::misbehaving()).kernel("wrong_add");
        return [kernel, size = n(settings)](duet::Queue& queue, const DeviceBuffers& buffers) {
            queue.launch(kernel, duet::Range::cover(size, 64), buffers.get("a"), buffers.get("b"), buffers.get("c"),
                         static_cast<std::uint32_t>(size), 0.0f);
        };
    };
    spec.reference = [](const duet::Settings&, const HostArrays& arrays) {
        const auto a = arrays.in("a"), b = arrays.in("b");
        const auto c = arrays.out("c");
        for (std::size_t i = 0; i < c.size(); ++i) {
            c[i] = a[i] + b[i];
        }
    };
    spec.bytes = [](const duet::Settings& settings) { return 3.0 * n(settings) * sizeof(float); };
    spec.tolerance = [](const duet::Settings&) { return Tolerance{0, "one IEEE add per element is exact"}; };
    return spec;
}

void log(const char* what, const duet::RunRequest& request)
{
    if (const char* path = std::getenv("DUET_TEST_RUN_LOG")) {
        std::ofstream(path, std::ios::app) << what << " " << request.device.selector() << "\n";
    }
}

class Misbehaving final : public SpecWorkload {
public:
    Misbehaving() : SpecWorkload(spec()) {}

    duet::Footprint footprint(const duet::RunRequest& request) const override
    {
        if (request.variant == "footprint_throws") {
            throw 42;
        }
        return SpecWorkload::footprint(request);
    }

    duet::Measurement run(const duet::RunRequest& request) const override
    {
        if (request.variant == "run_throws") {
            throw 7;
        }
        log("start", request);
        auto measurement = SpecWorkload::run(request);
        log("end", request);
        return measurement;
    }
};

} // namespace

DUET_EXPORT_WORKLOAD(Misbehaving)
