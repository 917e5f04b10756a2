// The kit's timing of a distributed pass: the ranks start the kernel phase together, and a pass's
// kernel phase and communication are the slowest rank's own split of its phase. A rank that waits
// in an exchange for a slower one must not add its wait to the slower rank's compute.
#include "distributed.hpp"

#include <devices.hpp>
#include <random.hpp>

#include <duet/workload/kit.hpp>

#include <chrono>
#include <string>
#include <thread>

namespace duet::test {
namespace {

using namespace duet::workload;

constexpr auto late = std::chrono::milliseconds(300);

/// y = x, all-reduced over the ranks; the last rank's host waits `late` before the exchange, as a
/// rank whose kernels ran longer would keep the others waiting in it.
Spec late_rank_spec()
{
    Spec spec;
    spec.info = {.name = "late_rank",
                 .description = "y = x summed over the ranks, the last rank late to the exchange",
                 .parameters = {integer_parameter("n", 1024, 1, 1 << 20, "elements")}};
    const auto n = [](const Settings& settings) { return static_cast<std::size_t>(settings.integer("n")); };
    spec.buffers = {input("x", n), output("y", n)};
    spec.prepare = [n](const Device&, const Settings& settings, const std::string&) -> Launch {
        return [count = n(settings)](Queue& queue, const DeviceBuffers& buffers) {
            Communicator& ranks = buffers.communicator();
            queue.copy(buffers.get("y"), buffers.get("x"));
            if (ranks.rank() == ranks.size() - 1) {
                queue.finish();
                std::this_thread::sleep_for(late);
            }
            ranks.all_reduce(queue, buffers.get("y").raw(), 0, count, ElementType::f32, ReduceOp::sum);
        };
    };
    spec.reference = [](const Settings&, const HostArrays& arrays) {
        const auto x = arrays.in("x");
        auto y = arrays.out("y");
        for (std::size_t i = 0; i < x.size(); ++i) {
            y[i] = x[i] * static_cast<float>(arrays.ranks());
        }
    };
    spec.tolerance = [](const Settings&) { return Tolerance{1e-6, "a sum of equal terms, rounded once a rank"}; };
    return spec;
}

TEST(SlowestRank, KernelPhaseAndCommunicationAddUpToTheSlowestRanksPhase)
{
    DUET_REQUIRE_TWO_RANKS();
    // The ranks run one request, so their devices share a platform.
    const std::vector<Device> devices = one_platforms_devices_for_the_ranks();
    if (devices.empty()) {
        GTEST_SKIP() << world().local_size() << " ranks on this node but no OpenCL platform with as many devices";
    }
    const Device device = distributed::rank_device(devices, world());
    distributed::MpiCommunicator communicator(world(), device, std::nullopt);
    const SpecWorkload workload(late_rank_spec());
    RunRequest request{device, "default", Settings(workload.info(), {}), true, test_seed(), Timing::exactly(2, 0)};
    request.communicator = &communicator;
    const Measurement result = workload.run(request);

    if (world().rank() == 0) {
        EXPECT_TRUE(result.matches_reference()) << result.agreement.describe();
    }
    const double late_ms = std::chrono::duration<double, std::milli>(late).count();
    for (const Sample& sample : result.samples) {
        double communication = -1;
        for (const auto& [name, ms] : sample.extra_phases) {
            communication = name == "communication" ? ms : communication;
        }
        ASSERT_GE(communication, 0) << "a distributed pass reports its communication";
        // Every rank's kernel phase holds the late rank's wait once: on the late rank as the time
        // before its exchange, on the others inside the exchange. Each taken apart, their sum held it twice.
        EXPECT_GE(sample.kernel_ms + communication, late_ms);
        EXPECT_LT(sample.kernel_ms + communication, 1.5 * late_ms)
            << "kernel " << sample.kernel_ms << " ms + communication " << communication << " ms";
    }
}

} // namespace
} // namespace duet::test
