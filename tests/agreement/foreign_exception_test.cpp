// A workload that throws something other than a std::exception, from footprint() or run(), fails
// that run, named, on every device: workload::execute never lets it reach the command, which would
// end with std::terminate and lose every other result (`duet compare all`).
#include <duet/workload/check.hpp>

#include "duet_test.hpp"

namespace duet::test {
namespace {

/// Throws an int from `where`, "footprint" or "run"; runs nothing.
class Throwing final : public Workload {
public:
    explicit Throwing(std::string where) : where_(std::move(where)) {}
    WorkloadInfo info() const override
    {
        return {.name = "throwing", .description = "throws an int", .variants = {"default"}};
    }
    Footprint footprint(const RunRequest&) const override
    {
        if (where_ == "footprint") {
            throw 42;
        }
        return {};
    }
    Measurement run(const RunRequest&) const override { throw 7; }

private:
    std::string where_;
};

class ForeignException : public DeviceTest {};

TEST_P(ForeignException, FailsTheRunNamingTheWorkload)
{
    for (const char* where : {"footprint", "run"}) {
        SCOPED_TRACE(where);
        const auto workload = std::make_shared<const Throwing>(where);
        const WorkloadInfo info = workload->info();
        const workload::Job job{
            workload, info, "default", Settings(info, {}), device(), device().selector(), 1, workload::Timing::once()};
        const workload::Run run = workload::execute(job, true);
        EXPECT_EQ(run.status, workload::Status::failed);
        EXPECT_EQ(run.reason, foreign_exception_text("throwing", ""));
        EXPECT_NE(run.reason.find("'throwing' threw an exception that is not a std::exception"), std::string::npos)
            << run.reason;
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(ForeignException);

} // namespace
} // namespace duet::test
