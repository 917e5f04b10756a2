// Every workload the registry holds declares both the bytes a launch moves and the flops it
// performs, so that every comparison can place it on the roofline: its last test case (the
// largest of most), its first variant, on every device. A kernel that does no arithmetic (a copy,
// a gather) declares 0 flops, named here with why; any other must count some.
#include <map>
#include <string>

#include "duet_test.hpp"

namespace duet::test {
namespace {

/// Workloads whose kernels do no floating-point work, and why 0 flops is their honest count.
const std::map<std::string, std::string> no_arithmetic{
    {"access", "a gather: each output a copy of one input"},
    {"bandwidth", "copies between host and device, or device to device"},
};

class DeclaredWork : public DeviceTest {};

TEST_P(DeclaredWork, EveryWorkloadDeclaresItsBytesAndFlops)
{
    std::size_t measured = 0;
    for (const auto& workload : WorkloadRegistry::global().workloads()) {
        const WorkloadInfo info = workload->info();
        SCOPED_TRACE(info.name);
        ASSERT_FALSE(info.test_cases.empty());
        const Settings settings(info, info.test_cases.back());
        Measurement m;
        try {
            m = run_within_limits(
                *workload, {device(), info.variants.front(), settings, false, test_seed(), workload::Timing::once()});
        } catch (const Unsupported&) {
            continue; // this device cannot run it (newton without doubles): nothing declared to check
        }
        ++measured;
        ASSERT_TRUE(m.bytes.has_value()) << "no bytes declared";
        ASSERT_TRUE(m.flops.has_value()) << "no flops declared";
        EXPECT_GT(*m.bytes, 0.0);
        if (const auto why = no_arithmetic.find(info.name); why != no_arithmetic.end()) {
            EXPECT_EQ(*m.flops, 0.0) << why->second;
        } else {
            EXPECT_GT(*m.flops, 0.0);
        }
        // The rate is in the workload's own unit, of what it declares.
        EXPECT_EQ(m.work(), m.unit == Measurement::Unit::bytes ? *m.bytes : *m.flops);
    }
    EXPECT_GT(measured, 0u);
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(DeclaredWork);

} // namespace
} // namespace duet::test
