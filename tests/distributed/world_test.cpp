// What surrounds the exchanges: the rank's device, the one-rank communicator, DUET_EXCHANGE's
// words, and a path some rank cannot take.
#include "distributed.hpp"

#include <devices.hpp>

#include <cstdlib>

namespace duet::test {
namespace {

using workload::ElementType;
using workload::ExchangePath;
using workload::ReduceOp;

std::vector<Device> opencl_devices()
{
    std::vector<Device> devices;
    for (const DeviceParam& param : backend_params("opencl")) {
        if (param.device) {
            devices.push_back(*param.device);
        }
    }
    return devices;
}

TEST(World, RankDeviceIsTheLocalRanksDevice)
{
    const auto devices = opencl_devices();
    if (devices.size() < static_cast<std::size_t>(world().local_size())) {
        GTEST_SKIP() << world().local_size() << " ranks on this node but " << devices.size() << " OpenCL devices";
    }
    EXPECT_EQ(distributed::rank_device(devices, world()), devices[static_cast<std::size_t>(world().local_rank())]);
    EXPECT_EQ(world().local_size(), world().size()) << "every rank of this test runs on one node";
}

TEST(World, RankDeviceRefusesMoreRanksThanDevicesNamingBoth)
{
    // Each rank is offered fewer devices than its local rank needs: the first local_rank() of them.
    auto devices = opencl_devices();
    if (devices.size() < static_cast<std::size_t>(world().local_rank())) {
        GTEST_SKIP() << "fewer OpenCL devices than ranks";
    }
    devices.erase(devices.begin() + world().local_rank(), devices.end());
    try {
        distributed::rank_device(devices, world());
        ADD_FAILURE() << "rank " << world().rank() << " was given a device of " << devices.size();
    } catch (const InvalidArgument& error) {
        const std::string expected =
            std::to_string(world().local_size()) + (world().local_size() == 1 ? " rank" : " ranks") +
            " on this node but " + std::to_string(devices.size()) + (devices.size() == 1 ? " device (" : " devices (");
        EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
        if (devices.empty()) {
            EXPECT_NE(std::string(error.what()).find("(none)"), std::string::npos) << error.what();
        } else {
            EXPECT_NE(std::string(error.what()).find(devices[0].selector()), std::string::npos) << error.what();
        }
    }
}

TEST(World, LaunchedByMpirunReadsTheEnvironment)
{
    EXPECT_TRUE(distributed::MpiWorld::launched_by_mpirun()) << "these tests run under mpirun";
    EXPECT_NE(world().library_version().find("MPI"), std::string::npos) << world().library_version();
}

TEST(World, ExchangeWordsAndTheUnknownOnesRefused)
{
    EXPECT_EQ(distributed::parse_exchange("staged"), ExchangePath::staged);
    EXPECT_EQ(distributed::parse_exchange("device_pointers"), ExchangePath::device_pointers);
    EXPECT_EQ(distributed::parse_exchange("nccl"), ExchangePath::nccl);
    EXPECT_EQ(distributed::parse_exchange("auto"), std::nullopt);
    try {
        distributed::parse_exchange("mpi");
        ADD_FAILURE() << "'mpi' was taken as a path";
    } catch (const InvalidArgument& error) {
        EXPECT_NE(std::string(error.what()).find("unknown exchange path 'mpi'"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("staged, device_pointers, nccl and auto"), std::string::npos)
            << error.what();
    }
}

TEST(World, NcclOnOpenClIsUnsupportedOnEveryRankNamingWhy)
{
    const auto devices = opencl_devices();
    if (devices.size() < static_cast<std::size_t>(world().local_size())) {
        GTEST_SKIP() << world().local_size() << " ranks on this node but " << devices.size() << " OpenCL devices";
    }
    const Device device = distributed::rank_device(devices, world());
    try {
        distributed::MpiCommunicator communicator(world(), device, ExchangePath::nccl);
        ADD_FAILURE() << "NCCL was taken on " << device.selector();
    } catch (const Unsupported& error) {
        const std::string text = error.what();
        EXPECT_NE(text.find("DUET_EXCHANGE=nccl"), std::string::npos) << text;
        EXPECT_NE(text.find("rank(s) 0"), std::string::npos) << text;
        EXPECT_NE(text.find("(" + device.selector() + ") is not a CUDA device"), std::string::npos) << text;
    }
}

TEST(OneRank, IsOneRankWhoseExchangesMoveNothing)
{
    workload::Communicator& one = workload::one_rank();
    EXPECT_EQ(one.rank(), 0);
    EXPECT_EQ(one.size(), 1);
    EXPECT_EQ(one.describe(), "one rank");
    EXPECT_EQ(one.gather_text("verdict"), std::vector<std::string>{"verdict"});
    EXPECT_EQ(one.max_over_ranks(2.5), 2.5);
    EXPECT_EQ(one.sum_over_ranks(2.5), 2.5);

    const auto devices = opencl_devices();
    if (devices.empty()) {
        GTEST_SKIP() << "no OpenCL device for the exchanges";
    }
    Queue queue = devices[0].create_queue();
    const std::vector<float> values{1.5f, -2.0f, 3.25f, 4.0f};
    Buffer<float> buffer = devices[0].alloc<float>(values.size());
    queue.write(buffer, values);
    const std::vector<std::size_t> counts{4};
    const workload::ExchangeRecord records[] = {
        one.all_reduce(queue, buffer.raw(), 1, 3, ElementType::f32, ReduceOp::sum),
        one.all_gather(queue, buffer.raw(), counts, ElementType::f32),
        one.halo_exchange(queue, buffer.raw(), {0, 1, 2, 3, 1}, ElementType::f32),
    };
    std::vector<float> result(values.size());
    queue.read(std::span<float>(result), buffer);
    queue.finish();
    EXPECT_EQ(result, values);
    for (const auto& record : records) {
        EXPECT_EQ(record.path, ExchangePath::local) << record.exchange;
        EXPECT_EQ(record.bytes, 0u) << record.exchange;
        EXPECT_GE(elapsed_ms(record.start, record.end), 0.0) << record.exchange;
    }
    EXPECT_EQ(to_string(records[0].path), "one rank");
    // Its arguments are checked as every communicator's are.
    const std::vector<std::size_t> two{2, 2};
    try {
        one.all_gather(queue, buffer.raw(), two, ElementType::f32);
        ADD_FAILURE() << "one rank took 2 counts";
    } catch (const InvalidArgument& error) {
        EXPECT_NE(std::string(error.what()).find("2 counts for 1 rank: one count per rank"), std::string::npos)
            << error.what();
    }
    try {
        one.all_reduce(queue, buffer.raw(), 0, 5, ElementType::f32, ReduceOp::max);
        ADD_FAILURE() << "one rank reduced 5 elements of 4";
    } catch (const InvalidArgument& error) {
        EXPECT_NE(std::string(error.what()).find("ends at byte 20, past the buffer's 16 bytes"), std::string::npos)
            << error.what();
    }
}

} // namespace
} // namespace duet::test
