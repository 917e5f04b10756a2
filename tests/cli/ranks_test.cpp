// duet under mpirun: every rank runs the command on a device of its own, rank 0 reports; and
// `duet scale`, which starts mpirun itself. Two ranks on PoCL's two CPU devices
// (POCL_DEVICES="pthread pthread"), oversubscribing this machine's cores.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "environment.hpp"
#include "json_reader.hpp"
#include "process.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

namespace duet::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

/// This test process's folder for Open MPI's session directories: two mpiruns that start at once
/// (CTest runs tests in parallel) race to make the same one under /tmp, and one fails.
std::string mpi_session_folder()
{
    static const std::string folder = [] {
        const auto path = std::filesystem::temp_directory_path() / ("duet-ompi-" + std::to_string(::getpid()));
        std::filesystem::create_directories(path);
        return path.string();
    }();
    return folder;
}

/// Open MPI refuses root unless told; each rank takes one of PoCL's two CPU devices, the only
/// OpenCL devices listed (a GPU machine's loader may list NVIDIA's platform first).
EnvChanges two_pocl_devices()
{
    return pocl_alone({{"POCL_DEVICES", "pthread pthread"},
                       {"OMPI_ALLOW_RUN_AS_ROOT", "1"},
                       {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
                       {"OMPI_MCA_orte_tmpdir_base", mpi_session_folder()}});
}

class Ranks : public ::testing::Test {
protected:
    void SetUp() override
    {
#ifndef DUET_TEST_MPIEXEC
        GTEST_SKIP() << "duet was built without MPI (no Open MPI found): no distributed runs to test";
#else
        const auto listed = run_duet({"devices", "--json"}, two_pocl_devices());
        const auto devices = json::parse(listed.out);
        std::size_t pocl = 0;
        for (const auto& device : devices["devices"].array()) {
            pocl += device["api"].string() == "OpenCL (PoCL)" ? 1 : 0;
        }
        if (pocl < 2) {
            GTEST_SKIP() << "two ranks need two PoCL devices; POCL_DEVICES=\"pthread pthread\" gave " << pocl << " ("
                         << backends_said(listed.out) << ")";
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
        std::filesystem::remove_all(mpi_session_folder());
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
    // OpenCL's exchanges go through the host; the result says so.
    EXPECT_NE(runs[0]["exchanges"].string().find("halo_exchange: staged through pinned host memory"), std::string::npos)
        << runs[0]["exchanges"].string();
    EXPECT_NE(run.out.find("exchanges on opencl:0+1 (global): halo_exchange: staged"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("comm ms"), std::string::npos) << "the exchanges' time has a column:\n" << run.out;
    std::size_t tables = 0;
    for (std::size_t at = run.out.find("heat  rows="); at != std::string::npos;
         at = run.out.find("heat  rows=", at + 1)) {
        ++tables;
    }
    EXPECT_LE(tables, 1u) << "only rank 0 prints:\n" << run.out;
}

TEST_F(Ranks, TwoRanksJudgeTheSameWritesAsOne)
{
    // An odd number of steps ends heat's grid on the scratch buffer it was swapped with, which starts
    // poisoned whole: its writes are judged, on two ranks as on one, over the whole grid.
    std::vector<std::string> args{"compare", "heat",    "--devices", "opencl:0", "--set",     "rows=40",
                                  "--set",   "cols=24", "--set",     "steps=7",  "--repeats", "3"};
    const std::string one_path = file("one.json"), two_path = file("two.json");
    auto one_args = args;
    one_args.push_back("--json=" + one_path);
    const auto one = run_duet(one_args, two_pocl_devices());
    ASSERT_EQ(one.exit_code, 0) << one.err;
    args.push_back("--json=" + two_path);
    const auto two = mpirun(2, args);
    ASSERT_EQ(two.exit_code, 0) << two.out << two.err;
    const auto one_run = json::parse(read_file(one_path))["runs"].array().at(0);
    const auto two_run = json::parse(read_file(two_path))["runs"].array().at(0);
    EXPECT_EQ(one_run["writes"]["judged"].number(), 40 * 24);
    EXPECT_EQ(two_run["writes"]["judged"].number(), one_run["writes"]["judged"].number());
    EXPECT_EQ(two_run["writes"]["unwritten"].number(), 0);
    EXPECT_EQ(two_run["writes"]["outputs"].array().at(0)["name"].string(), "grid");
}

TEST_F(Ranks, ScaleReportsARankCountWithoutAResultAndKeepsTheOthers)
{
    // Three ranks on two devices are refused; a result an earlier scale kept in --runs is not taken
    // for theirs.
    const std::string runs = file("runs");
    std::filesystem::create_directories(runs);
    {
        std::ofstream stale(runs + "/ranks-3.json");
        stale << R"({"runs": []})";
    }
    const std::string json_path = file("scale.json");
    const auto run = run_duet({"scale", "heat", "--ranks", "1,3", "--devices", "opencl:0", "--set", "rows=64", "--set",
                               "steps=2", "--runs=" + runs, "--json=" + json_path},
                              two_pocl_devices(), {.timeout_seconds = 240});
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_NE(run.err.find("3 ranks: mpirun exited with"), std::string::npos) << run.err;
    const auto document = json::parse(read_file(json_path));
    const auto& points = document["tables"].array().at(0)["points"].array();
    ASSERT_EQ(points.size(), 1u);
    EXPECT_EQ(points[0]["ranks"].number(), 1);
    EXPECT_EQ(points[0]["status"].string(), "ok");
}

TEST_F(Ranks, TestOnTwoRanksChecksEveryCaseAndRefusesAGridWithFewerRowsThanRanks)
{
    // PoCL's two devices: a GPU machine's others would add runs.
    const auto run = mpirun(2, {"test", "heat", "--devices", "opencl:0"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("4 runs: 3 checked, 1 unsupported"), std::string::npos) << run.out;
    const auto json_run = mpirun(2, {"test", "reduce", "--variants", "tree", "--json"});
    ASSERT_EQ(json_run.exit_code, 0) << json_run.out << json_run.err;
    EXPECT_NE(json_run.out.find("would own none (a distributed run takes a row a rank at least)"), std::string::npos)
        << json_run.out;
}

class JacobiRanks : public Ranks {
protected:
    /// `compare` (of jacobi on opencl:0) on one rank and on two, by variant: each converges
    /// (status ok), and each rank's rows computed as on one device give the same iterates, so the
    /// same iterations, last delta and errors (against the reference and against x*) as on one
    /// rank. Only the one-rank run has the copy yardstick, which needs the whole A on one device.
    void expect_two_ranks_as_one(std::vector<std::string> compare)
    {
        const std::string one_path = file("jacobi-one.json");
        const std::string two_path = file("jacobi-two.json");
        compare.push_back("--json=" + one_path);
        const auto one = run_duet(compare, two_pocl_devices(), {.timeout_seconds = 240});
        ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
        compare.back() = "--json=" + two_path;
        const auto two = mpirun(2, compare);
        ASSERT_EQ(two.exit_code, 0) << two.out << two.err;
        expect_same_iterates(json::parse(read_file(one_path))["runs"].array(),
                             json::parse(read_file(two_path))["runs"].array());
    }

private:
    static void expect_same_iterates(const std::vector<json::Value>& one_runs, const std::vector<json::Value>& two_runs)
    {
        ASSERT_EQ(one_runs.size(), two_runs.size());
        ASSERT_FALSE(one_runs.empty());
        for (std::size_t i = 0; i < one_runs.size(); ++i) {
            const auto& single = one_runs[i];
            const auto& split = two_runs[i];
            const std::string variant = split["variant"].string();
            EXPECT_EQ(variant, single["variant"].string());
            EXPECT_EQ(split["device"].string(), "opencl:0+1") << variant;
            ASSERT_EQ(split["status"].string(), "ok") << variant << ": " << split["reason"].string();
            ASSERT_EQ(single["status"].string(), "ok") << variant << ": " << single["reason"].string();
            EXPECT_GT(split["max_error"].number(), 0) << variant << ": a zero error would not tell iterates apart";
            EXPECT_EQ(split["max_error"].number(), single["max_error"].number()) << variant;
            for (const char* figure : {"iterations", "last_delta", "max_error_vs_exact"}) {
                EXPECT_EQ(split["extras"][figure].number(), single["extras"][figure].number())
                    << variant << ": " << figure;
            }
            EXPECT_GT(split["extra_phases"]["communication"].number(), 0)
                << variant << ": x is all-gathered every step";
            EXPECT_TRUE(single["extras"].has("d2d_copy_gbps")) << variant;
            EXPECT_FALSE(split["extras"].has("d2d_copy_gbps")) << variant << ": no rank holds the whole A to copy";
            EXPECT_TRUE(split["extras"].has("ms_per_iteration")) << variant;
            // Aggregate: the whole A streamed each iteration, whatever the ranks.
            EXPECT_EQ(split["work"].number(), single["work"].number()) << variant;
        }
    }
};

TEST_F(JacobiRanks, InFloatCheckedOnTheDeviceTwoRanksIterateAsOneInEveryLayout)
{
    expect_two_ranks_as_one(
        {"compare", "jacobi", "--devices", "opencl:0", "--variants", "rows,transposed,tiled", "--set", "n=1000"});
}

TEST_F(JacobiRanks, InDoubleCheckedOnTheHostTwoRanksIterateAsOne)
{
    // Rows a block does not divide and that split unevenly (351 and 350), over two segments.
    expect_two_ranks_as_one({"compare", "jacobi", "--devices", "opencl:0", "--variants", "rows,tiled", "--set", "n=701",
                             "--set", "type=double", "--set", "check=host", "--set", "eps=1e-15", "--set", "block=64"});
}

TEST_F(JacobiRanks, TestOnTwoRanksChecksEveryCaseAndRefusesOneEquation)
{
    const auto run = mpirun(2, {"test", "jacobi", "--devices", "opencl:0"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    // n = 1 in each of the three variants: a row for one rank only.
    EXPECT_NE(run.out.find("21 runs: 18 checked, 3 unsupported"), std::string::npos) << run.out;
    const auto json_run = mpirun(2, {"test", "jacobi", "--variants", "rows", "--json"});
    ASSERT_EQ(json_run.exit_code, 0) << json_run.out << json_run.err;
    EXPECT_NE(json_run.out.find("'A' has 1 row(s) of 1 elements over 2 ranks: rank 1 would own none"),
              std::string::npos)
        << json_run.out;
}

TEST_F(Ranks, RunAndBenchWorkOnTwoRanks)
{
    const auto run = mpirun(2, {"run", "heat", "--device", "opencl:0", "--set", "rows=64", "--set", "steps=3"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("communication"), std::string::npos) << "the exchanges' phase:\n" << run.out;
    EXPECT_NE(run.out.find("result: matches the CPU reference"), std::string::npos) << run.out;
    const auto bench = mpirun(
        2, {"bench", "heat", "--devices", "opencl:0", "--sweep", "rows=32,64", "--set", "steps=2", "--repeats", "2"});
    ASSERT_EQ(bench.exit_code, 0) << bench.out << bench.err;
    EXPECT_NE(bench.out.find("opencl:0+1"), std::string::npos) << bench.out;
    EXPECT_NE(bench.out.find("2 points: 2 checked."), std::string::npos) << bench.out;
}

TEST_F(Ranks, APlainWorkloadPluginIsRefusedOnTwoRanksSayingWhy)
{
    // user_saxpy is a duet::Workload of its own, not built on the kit: its run() would do the whole
    // job on each rank, and rank 1's verdict would go unheard.
    EnvChanges env = two_pocl_devices();
    env["DUET_PLUGIN_PATH"] = DUET_TEST_USER_PLUGIN_DIR;
    const auto refused = mpirun(2, {"run", "user_saxpy", "--device", "opencl:0", "--warmup", "0"}, env);
    EXPECT_NE(refused.exit_code, 0) << refused.out << refused.err;
    EXPECT_THAT(refused.out + refused.err,
                AllOf(HasSubstr("unsupported"), HasSubstr("cannot share a run between 2 ranks"),
                      HasSubstr("plain duet::Workload"), HasSubstr("Run it without mpirun")));
    const auto alone = run_duet({"run", "user_saxpy", "--device", "opencl:0", "--warmup", "0"}, env);
    EXPECT_EQ(alone.exit_code, 0) << alone.out << alone.err;
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

TEST_F(Ranks, OversubscribedRanksShareTheDevicesAndSaySo)
{
    EnvChanges env = two_pocl_devices();
    env["DUET_OVERSUBSCRIBE"] = "1";
    const auto run =
        mpirun(3, {"compare", "heat", "--devices", "opencl:0", "--set", "rows=64", "--set", "steps=2"}, env);
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.err.find("note: 3 ranks on this node share 2 device(s) like opencl:0"), std::string::npos) << run.err;
    EXPECT_NE(run.out.find("opencl:0+1+0"), std::string::npos) << run.out;
}

TEST_F(Ranks, ARankRefusedForMemoryMakesTheRunUnsupportedNamingTheRankAndItsDevice)
{
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: nothing runs under a limit";
#endif
#ifdef DUET_TEST_MPIEXEC
    const std::uint64_t available = available_host_memory().value_or(0);
    if (available < 8'000'000'000) {
        GTEST_SKIP() << "this machine has " << available << " bytes available; rank 0's run needs about 4 GB";
    }
    // Rank 1 runs under `ulimit -v 3000000` (less than 2 GB left to it), where a 512 MiB grid's run
    // does not fit; rank 0 has the machine's memory. The ranks agree not to start, and rank 0 names
    // rank 1 and its device.
    const std::string json_path = file("refused.json");
    const std::vector<std::string> args{
        "compare",   "heat",  "--devices", "opencl:0",           "--set", "rows=16384", "--set",
        "cols=8192", "--set", "steps=1",   "--json=" + json_path};
    std::string limited = "ulimit -v 3000000; exec " + std::string(DUET_EXECUTABLE);
    for (const auto& arg : args) {
        limited += " '" + arg + "'";
    }
    std::vector<std::string> command{DUET_TEST_MPIEXEC, "-n", "1", "--oversubscribe", DUET_EXECUTABLE};
    command.insert(command.end(), args.begin(), args.end());
    command.insert(command.end(), {":", "-n", "1", "/bin/sh", "-c", limited});
    // PoCL alone: NVIDIA's drivers would take more address space than rank 1's limit on loading.
    const auto run = run_program(command, few_malloc_arenas(two_pocl_devices()), {.timeout_seconds = 120});
    EXPECT_FALSE(run.timed_out) << "the job hung";
    EXPECT_EQ(run.exit_code, 1) << "nothing checked: " << run.out << run.err;
    const auto runs = json::parse(read_file(json_path))["runs"].array();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0]["status"].string(), "unsupported");
    EXPECT_NE(runs[0]["reason"].string().find("rank 1 (opencl:1): unsupported:"), std::string::npos)
        << runs[0]["reason"].string();
    EXPECT_NE(runs[0]["reason"].string().find("address-space limit"), std::string::npos) << runs[0]["reason"].string();
#endif
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
                               "cols=64", "--set", "steps=4", "--oversubscribe", "--json=" + json_path,
                               "--runs=" + file("runs"), "--report=" + file("scale.html")},
                              two_pocl_devices(), {.timeout_seconds = 240});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto document = json::parse(read_file(json_path));
    ASSERT_EQ(document["tables"].array().size(), 1u) << "strong scaling alone without --weak";
    const auto& table = document["tables"].array()[0];
    EXPECT_EQ(table["scaling"].string(), "strong");
    const auto& points = table["points"].array();
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
    // The compare behind each rank count, kept where --runs says.
    EXPECT_EQ(json::parse(read_file(file("runs/ranks-2.json")))["runs"].array().size(), 1u);
    // The report's charts: the speedup beside the ideal one, the communication share in percent.
    const std::string html = read_file(file("scale.html"));
    for (const char* expected :
         {"speedup over one rank", "data-series=\"ideal\"", "communication share", "% of the time"}) {
        EXPECT_NE(html.find(expected), std::string::npos) << expected;
    }
}

TEST_F(Ranks, WeakScalingGrowsTheParameterWithTheRanks)
{
    const std::string json_path = file("weak.json");
    const auto run = run_duet({"scale", "heat", "--ranks", "1,2", "--weak", "rows", "--devices", "opencl:0", "--set",
                               "rows=32", "--set", "cols=64", "--set", "steps=4", "--json=" + json_path},
                              two_pocl_devices(), {.timeout_seconds = 240});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto document = json::parse(read_file(json_path));
    // Strong scaling at the given rows, then weak: the one-rank run shared, rows doubled on two.
    const auto& tables = document["tables"].array();
    ASSERT_EQ(tables.size(), 2u);
    EXPECT_EQ(tables[0]["scaling"].string(), "strong");
    EXPECT_EQ(tables[1]["scaling"].string(), "weak");
    EXPECT_NE(tables[0]["points"].array().at(1)["settings"].string().find("rows=32"), std::string::npos);
    const auto& points = tables[1]["points"].array();
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
