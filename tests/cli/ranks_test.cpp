// duet under mpirun: every rank runs the command on a device of its own, rank 0 reports; and
// `duet scale`, which starts mpirun itself. Two ranks on PoCL's two CPU devices
// (POCL_DEVICES="pthread pthread"), oversubscribing this machine's cores.
#include <gtest/gtest.h>

#include "json_reader.hpp"
#include "process.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace duet::test {
namespace {

/// Open MPI refuses root unless told; each rank takes one of PoCL's two CPU devices.
EnvChanges two_pocl_devices()
{
    return {
        {"POCL_DEVICES", "pthread pthread"}, {"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}};
}

class Ranks : public ::testing::Test {
protected:
    void SetUp() override
    {
#ifndef DUET_TEST_MPIEXEC
        GTEST_SKIP() << "duet was built without MPI (no Open MPI found): no distributed runs to test";
#else
        const auto devices = json::parse(run_duet({"devices", "--json"}, two_pocl_devices()).out);
        std::size_t pocl = 0;
        for (const auto& device : devices["devices"].array()) {
            pocl += device["api"].string() == "OpenCL (PoCL)" ? 1 : 0;
        }
        if (pocl < 2) {
            GTEST_SKIP() << "two ranks need two PoCL devices; POCL_DEVICES=\"pthread pthread\" gave " << pocl;
        }
#endif
    }

    /// duet under `ranks` ranks of mpirun, the arguments after it.
    static Completed mpirun(int ranks, const std::vector<std::string>& args, EnvChanges env = two_pocl_devices())
    {
#ifdef DUET_TEST_MPIEXEC
        std::vector<std::string> command{DUET_TEST_MPIEXEC, "-n", std::to_string(ranks), "--oversubscribe",
                                         DUET_EXECUTABLE};
        command.insert(command.end(), args.begin(), args.end());
        return run_program(command, env, {.timeout_seconds = 240});
#else
        (void)ranks, (void)args, (void)env;
        return {};
#endif
    }

    std::filesystem::path scratch =
        std::filesystem::temp_directory_path() / ("duet-ranks-test-" + std::to_string(::getpid()));
    void TearDown() override
    {
        std::filesystem::remove_all(scratch);
    }
    std::string file(const std::string& name)
    {
        std::filesystem::create_directories(scratch);
        return (scratch / name).string();
    }
};

TEST_F(Ranks, CompareOfHeatOnTwoRanksSplitsTheGridAndMatchesTheReferenceBitForBit)
{
    const std::string json_path = file("heat.json");
    const auto run = mpirun(2, {"compare", "heat", "--devices", "opencl:0", "--set", "rows=64", "--set", "cols=80",
                                "--set", "steps=5", "--json=" + json_path});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto runs = json::parse(read_file(json_path))["runs"].array();
    ASSERT_EQ(runs.size(), 1u);
    // Rank 0 reports for both: one table, one run, on both ranks' devices.
    EXPECT_EQ(runs[0]["device"].string(), "opencl:0+1");
    EXPECT_EQ(runs[0]["status"].string(), "ok") << runs[0]["reason"].string();
    // Each point computed by the same operations as on one device: the same bits as the reference.
    EXPECT_EQ(runs[0]["max_error"].number(), 0);
    EXPECT_GT(runs[0]["extra_phases"]["communication"].number(), 0) << "two ranks exchange halos every step";
    std::size_t tables = 0;
    for (std::size_t at = run.out.find("heat  rows="); at != std::string::npos;
         at = run.out.find("heat  rows=", at + 1)) {
        ++tables;
    }
    EXPECT_LE(tables, 1u) << "only rank 0 prints:\n" << run.out;
}

TEST_F(Ranks, TestOnTwoRanksChecksEveryCaseAndRefusesAGridWithFewerRowsThanRanks)
{
    const auto run = mpirun(2, {"test", "heat"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("4 runs: 3 checked, 1 unsupported"), std::string::npos) << run.out;
    const auto json_run = mpirun(2, {"test", "reduce", "--variants", "tree", "--json"});
    ASSERT_EQ(json_run.exit_code, 0) << json_run.out << json_run.err;
    EXPECT_NE(json_run.out.find("would own none (a distributed run takes a row a rank at least)"), std::string::npos)
        << json_run.out;
}

TEST_F(Ranks, MoreRanksOnANodeThanDevicesIsRefusedNamingBothCounts)
{
    const auto run = mpirun(3, {"compare", "heat", "--devices", "opencl:0", "--set", "rows=64"});
    EXPECT_NE(run.exit_code, 0);
    EXPECT_FALSE(run.timed_out);
    EXPECT_NE((run.out + run.err).find("3 ranks on this node need 3 devices like opencl:0"), std::string::npos)
        << run.out << run.err;
    EXPECT_NE((run.out + run.err).find("but there are 2"), std::string::npos) << run.err;
}

TEST_F(Ranks, ARankThatFailsAloneEndsEveryRankWithinSeconds)
{
#ifdef DUET_TEST_MPIEXEC
    // Rank 1 sees one device where rank 0 sees two: it cannot take its place and fails alone, while
    // rank 0 waits for it in a collective.
    const std::vector<std::string> args{"compare", "heat", "--devices", "opencl:0", "--set", "rows=64"};
    std::vector<std::string> command{DUET_TEST_MPIEXEC, "-n", "1", "--oversubscribe", DUET_EXECUTABLE};
    command.insert(command.end(), args.begin(), args.end());
    command.insert(command.end(), {":", "-n", "1", "/usr/bin/env", "POCL_DEVICES=pthread", DUET_EXECUTABLE});
    command.insert(command.end(), args.begin(), args.end());
    const auto start = std::chrono::steady_clock::now();
    const auto run = run_program(command, two_pocl_devices(), {.timeout_seconds = 120});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(run.timed_out) << "the job hung";
    EXPECT_NE(run.exit_code, 0);
    EXPECT_LT(seconds, 30);
    EXPECT_NE(run.err.find("rank 1"), std::string::npos) << run.err;
#endif
}

TEST_F(Ranks, ScaleReportsEachRankCountsTimeCommunicationAndEfficiency)
{
    const std::string json_path = file("scale.json");
    const auto run = run_duet({"scale", "heat", "--ranks", "1,2", "--devices", "opencl:0", "--set", "rows=64", "--set",
                               "cols=64", "--set", "steps=4", "--oversubscribe", "--json=" + json_path},
                              two_pocl_devices(), {.timeout_seconds = 240});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto document = json::parse(read_file(json_path));
    EXPECT_EQ(document["scaling"].string(), "strong");
    const auto& points = document["points"].array();
    ASSERT_EQ(points.size(), 2u);
    EXPECT_EQ(points[0]["ranks"].number(), 1);
    EXPECT_EQ(points[1]["ranks"].number(), 2);
    for (const auto& point : points) {
        EXPECT_EQ(point["status"].string(), "ok") << point["reason"].string();
        EXPECT_GT(point["time_ms"].number(), 0);
    }
    EXPECT_EQ(points[0]["communication_ms"].number(), 0) << "one rank exchanges nothing";
    EXPECT_GT(points[1]["communication_ms"].number(), 0);
    EXPECT_DOUBLE_EQ(points[0]["speedup"].number(), 1);
    EXPECT_NEAR(points[1]["efficiency"].number(), points[1]["speedup"].number() / 2, 1e-12);
    EXPECT_NE(run.out.find("strong scaling"), std::string::npos) << run.out;
}

TEST_F(Ranks, WeakScalingGrowsTheParameterWithTheRanks)
{
    const std::string json_path = file("weak.json");
    const auto run = run_duet({"scale", "heat", "--ranks", "1,2", "--weak", "rows", "--devices", "opencl:0", "--set",
                               "rows=32", "--set", "cols=64", "--set", "steps=4", "--json=" + json_path},
                              two_pocl_devices(), {.timeout_seconds = 240});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto document = json::parse(read_file(json_path));
    const auto& points = document["points"].array();
    ASSERT_EQ(points.size(), 2u);
    EXPECT_NE(points[0]["settings"].string().find("rows=32"), std::string::npos);
    EXPECT_NE(points[1]["settings"].string().find("rows=64"), std::string::npos);
    EXPECT_TRUE(points[1]["speedup"].is_null()) << "weak scaling has no speedup";
    EXPECT_GT(points[1]["efficiency"].number(), 0);
}

TEST_F(Ranks, ScaleRefusesAWeakParameterTheWorkloadLacks)
{
    const auto run = run_duet({"scale", "heat", "--weak", "depth"}, two_pocl_devices());
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("--weak depth: heat has no integer parameter of that name"), std::string::npos) << run.err;
}

} // namespace
} // namespace duet::test
