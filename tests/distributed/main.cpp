// The distributed tests' main: MPI for the whole run, every rank running the same tests. Rank 0
// prints as gtest does; the other ranks print only their failures, each led by the rank, so that
// two ranks' output does not interleave line by line. Each rank's exit code is gtest's, and mpirun
// fails when any rank does.
#include "distributed.hpp"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <devices.hpp>

namespace duet::test {

namespace {

/// Failures of a rank other than 0, each with the rank's number.
class RankFailures : public ::testing::EmptyTestEventListener {
public:
    explicit RankFailures(int rank) : rank_(rank) {}
    void OnTestPartResult(const ::testing::TestPartResult& result) override
    {
        if (result.failed()) {
            std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                         result.file_name() != nullptr ? result.file_name() : "?", result.line_number(),
                         result.message());
        }
    }
    void OnTestEnd(const ::testing::TestInfo& info) override
    {
        if (info.result()->Failed()) {
            std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", rank_, info.test_suite_name(), info.name());
        }
    }

private:
    int rank_;
};

distributed::MpiWorld* the_world = nullptr;

} // namespace

std::vector<Device> one_platforms_devices_for_the_ranks()
{
    std::map<std::string, std::vector<Device>> platforms;
    for (const DeviceParam& param : backend_params("opencl")) {
        if (param.device) {
            auto& same = platforms[param.device->properties().platform];
            same.push_back(*param.device);
            if (same.size() == static_cast<std::size_t>(world().local_size())) {
                return same;
            }
        }
    }
    return {};
}

distributed::MpiWorld& world()
{
    return *the_world;
}

} // namespace duet::test

int main(int argc, char** argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    duet::distributed::MpiWorld world;
    duet::test::the_world = &world;
    if (world.rank() != 0) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new duet::test::RankFailures(world.rank()));
    }
    return RUN_ALL_TESTS();
}
