// duet explain end to end on PoCL: each kernel the workload launched, with the geometry it launched
// it at, the CPU's occupancy "not applicable" and the reason PoCL keeps no PTX; a manifest port;
// the JSON's keys; a failed run reported beside one explained; usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "json_reader.hpp"
#include "process.hpp"
#include "stencil1d.hpp"

namespace duet::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

/// PoCL's first device; empty where PoCL has none here.
json::Value explain_json(const std::vector<std::string>& args, const EnvChanges& env = {})
{
    auto command = std::vector<std::string>{"explain"};
    command.insert(command.end(), args.begin(), args.end());
    command.push_back("--json");
    const auto result = run_duet(command, env);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return json::parse(result.out);
}

std::vector<std::string> keys(const json::Value& object)
{
    std::vector<std::string> names;
    for (const auto& [key, value] : object.members()) {
        names.push_back(key);
    }
    return names;
}

std::vector<double> dims(const json::Value& array)
{
    std::vector<double> sizes;
    for (const auto& size : array.array()) {
        sizes.push_back(size.number());
    }
    return sizes;
}

/// What every run on a CPU says in place of occupancy and an instruction mix.
void expect_cpu_and_no_ptx(const json::Value& kernel)
{
    for (const auto& launch : kernel["launches"].array()) {
        EXPECT_TRUE(launch["occupancy"]["model"].is_null());
        EXPECT_EQ(launch["occupancy"]["model_absent"].string(), "not applicable: work-groups run on CPU threads");
        EXPECT_FALSE(launch["occupancy"]["disagree"].boolean());
    }
    EXPECT_TRUE(kernel["mix"].is_null());
    EXPECT_THAT(kernel["mix_absent"].string(), HasSubstr("program binary is not PTX text"));
}

TEST(ExplainCli, VectorAddShowsTheLaunchItMadeAndWhyPoclHasNoOccupancyOrCode)
{
    REQUIRE_POCL(device);
    const std::vector<std::string> args{"vector_add", "--devices", device, "--set", "n=1000", "--set", "block=64"};
    const auto document = explain_json(args);
    EXPECT_EQ(document["schema"].string(), "duet.explain/1");
    ASSERT_EQ(document["runs"].array().size(), 1U);
    const auto& run = document["runs"].array()[0];
    EXPECT_EQ(run["status"].string(), "ok");
    EXPECT_EQ(run["device"].string(), device);
    // The timed pass's one launch; the runner's spacer before it is counted apart.
    EXPECT_EQ(run["spacer_launches"].number(), 1);
    ASSERT_EQ(run["kernels"].array().size(), 1U);
    const auto& kernel = run["kernels"].array()[0];
    EXPECT_EQ(kernel["name"].string(), "vector_add");
    ASSERT_EQ(kernel["launches"].array().size(), 1U);
    const auto& launch = kernel["launches"].array()[0];
    EXPECT_THAT(dims(launch["grid"]), ElementsAre(16, 1, 1)); // ceil(1000 / 64)
    EXPECT_THAT(dims(launch["block"]), ElementsAre(64, 1, 1));
    EXPECT_EQ(launch["threads_per_block"].number(), 64);
    EXPECT_EQ(launch["dynamic_local_bytes"].number(), 0);
    EXPECT_EQ(launch["count"].number(), 1);
    expect_cpu_and_no_ptx(kernel);
    EXPECT_EQ(run["programs"].array()[0]["assembly_absent"].string(), kernel["mix_absent"].string());

    const auto table = run_duet({"explain", "vector_add", "--devices", device, "--set", "n=1000", "--set", "block=64"});
    EXPECT_EQ(table.exit_code, 0) << table.err;
    EXPECT_THAT(table.out, HasSubstr("kernel vector_add: 1 launch\n"));
    EXPECT_THAT(table.out, HasSubstr("occupancy: not applicable: work-groups run on CPU threads"));
    EXPECT_THAT(table.out, HasSubstr("compiled code: none: program 'vector_add': the Portable Computing Language"));
    EXPECT_THAT(table.out, HasSubstr("1 run: 1 explained, 0 unsupported, 0 failed"));
    std::size_t start = 0;
    while (start < table.out.size()) {
        const auto end = table.out.find('\n', start);
        const std::string line = table.out.substr(start, end - start);
        // The backends' notes quote a loader's message as it is; the blocks fit 100 columns.
        if (!line.starts_with("note: ")) {
            EXPECT_LE(line.size(), 100U) << line;
        }
        start = end == std::string::npos ? table.out.size() : end + 1;
    }
}

TEST(ExplainCli, Stencil1dVariantsShowTheirOwnGeometryAndLocalMemory)
{
    REQUIRE_POCL(device);
    const std::size_t n = 5000, block = 128, radius = 3;
    const std::vector<std::string> settings{"--devices", device,
                                            "--set",     "n=" + std::to_string(n),
                                            "--set",     "block=" + std::to_string(block),
                                            "--set",     "radius=" + std::to_string(radius)};
    // Without --variants, the first variant alone.
    auto args = std::vector<std::string>{"stencil1d"};
    args.insert(args.end(), settings.begin(), settings.end());
    const auto first = explain_json(args);
    ASSERT_EQ(first["runs"].array().size(), 1U);
    EXPECT_EQ(first["runs"].array()[0]["variant"].string(), "naive");

    args.insert(args.end(), {"--variants", "naive,shared"});
    const auto both = explain_json(args);
    ASSERT_EQ(both["runs"].array().size(), 2U);
    const auto& naive = both["runs"].array()[0]["kernels"].array().at(0);
    EXPECT_EQ(naive["name"].string(), "stencil1d_naive");
    const auto& naive_launch = naive["launches"].array().at(0);
    EXPECT_THAT(dims(naive_launch["grid"]), ElementsAre((n + block - 1) / block, 1, 1));
    EXPECT_THAT(dims(naive_launch["block"]), ElementsAre(block, 1, 1));
    EXPECT_EQ(naive_launch["dynamic_local_bytes"].number(), 0);
    expect_cpu_and_no_ptx(naive);

    const auto& shared = both["runs"].array()[1]["kernels"].array().at(0);
    EXPECT_EQ(shared["name"].string(), "stencil1d_shared");
    const std::size_t span = block * stencil1d::items_per_thread;
    const auto& shared_launch = shared["launches"].array().at(0);
    EXPECT_THAT(dims(shared_launch["grid"]), ElementsAre((n + span - 1) / span, 1, 1));
    EXPECT_THAT(dims(shared_launch["block"]), ElementsAre(block, 1, 1));
    // The tile and its halo, as a __local argument.
    EXPECT_EQ(shared_launch["dynamic_local_bytes"].number(), (span + 2 * radius) * sizeof(float));
    // Every launch of a run is one row: the count is how many, each the same.
    for (const auto& kernel : {naive, shared}) {
        EXPECT_EQ(kernel["launches"].array().size(), 1U);
        EXPECT_GE(kernel["launches"].array()[0]["count"].number(), 1);
    }
    expect_cpu_and_no_ptx(shared);
}

TEST(ExplainCli, AManifestPortIsExplainedByItsPath)
{
    REQUIRE_POCL(device);
    const std::string manifest = std::string(DUET_PORTS_DIR) + "/saxpy/saxpy.duet.toml";
    const auto document = explain_json({manifest, "--devices", device, "--set", "n=1000"});
    const auto& run = document["runs"].array().at(0);
    EXPECT_EQ(run["workload"].string(), "saxpy");
    EXPECT_EQ(run["status"].string(), "ok");
    const auto& kernel = run["kernels"].array().at(0);
    EXPECT_EQ(kernel["name"].string(), "saxpy");
    // The manifest's launch: a domain of n over blocks of 256.
    EXPECT_THAT(dims(kernel["launches"].array().at(0)["grid"]), ElementsAre(4, 1, 1));
    EXPECT_THAT(dims(kernel["launches"].array().at(0)["block"]), ElementsAre(256, 1, 1));
    expect_cpu_and_no_ptx(kernel);
}

TEST(ExplainCli, JsonKeysAreTheSameForEveryRun)
{
    REQUIRE_POCL(device);
    const auto document = explain_json({"vector_add", "--devices", device, "--set", "n=100"});
    EXPECT_THAT(keys(document), ElementsAre("schema", "environment", "seed", "runs", "pairs"));
    EXPECT_TRUE(document["pairs"].array().empty()) << "PoCL has no PCI bus id, so no GPU seen through both APIs";
    const auto& run = document["runs"].array().at(0);
    EXPECT_THAT(keys(run), ElementsAre("workload", "variant", "settings", "device", "device_name", "api", "pci_bus_id",
                                       "status", "reason", "kernels", "programs", "spacer_launches"));
    const auto& kernel = run["kernels"].array().at(0);
    EXPECT_THAT(keys(kernel), ElementsAre("name", "properties", "launches", "program", "mix", "mix_absent",
                                          "registers_from", "ptxas", "sass", "sass_absent", "earlier_builds"));
    EXPECT_THAT(keys(kernel["properties"]),
                ElementsAre("max_block_size", "max_block_limit", "registers", "static_local_memory", "private_memory",
                            "required_block", "driver_max_block_size"));
    const auto& launch = kernel["launches"].array().at(0);
    EXPECT_THAT(keys(launch), ElementsAre("dims", "grid", "block", "threads_per_block", "dynamic_local_bytes", "count",
                                          "recorded", "occupancy"));
    EXPECT_THAT(keys(launch["occupancy"]), ElementsAre("model", "model_absent", "registers_unknown", "driver_blocks",
                                                       "driver_absent", "disagree"));
    EXPECT_THAT(keys(run["programs"].array().at(0)),
                ElementsAre("kernels", "assembly", "assembly_absent", "build_options", "build_options_absent",
                            "sass_architecture", "ptxas_version", "sass_absent"));
    EXPECT_EQ(kernel["program"].number(), 0);
}

TEST(ExplainCli, EveryDeviceByDefaultEachRunOnItsOwn)
{
    const EnvChanges two{{"POCL_DEVICES", "pthread pthread"}};
    std::size_t pocl = 0;
    const auto listed = json::parse(run_duet({"devices", "--json"}, two).out);
    for (const auto& device : listed["devices"].array()) {
        pocl += device["api"].string() == "OpenCL (PoCL)" ? 1 : 0;
    }
    if (pocl < 2) {
        GTEST_SKIP() << "POCL_DEVICES=\"pthread pthread\" gave " << pocl << " PoCL devices";
    }
    const auto document = explain_json({"vector_add", "--set", "n=100"}, two);
    std::vector<std::string> devices;
    for (const auto& run : document["runs"].array()) {
        devices.push_back(run["device"].string());
        EXPECT_EQ(run["status"].string(), "ok");
        // Each device's log holds its own run's launches alone.
        EXPECT_EQ(run["kernels"].array().at(0)["launches"].array().at(0)["count"].number(), 1);
    }
    EXPECT_EQ(devices.size(), document["environment"]["devices"].array().size());
}

TEST(ExplainCli, AFailedRunIsReportedBesideTheOthersAndExitsOne)
{
    REQUIRE_POCL(device);
    const EnvChanges misbehaving{{"DUET_PLUGIN_PATH", DUET_TEST_MISBEHAVING_PLUGIN_DIR}};
    const auto result =
        run_duet({"explain", "misbehaving", "--devices", device, "--variants", "fine,run_throws"}, misbehaving);
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_THAT(result.out, HasSubstr("misbehaving/fine on " + device));
    EXPECT_THAT(result.out, HasSubstr("kernel "));
    EXPECT_THAT(result.out, HasSubstr("failed: [duet] Workload::run: the workload plugin 'misbehaving' threw"));
    EXPECT_THAT(result.out, HasSubstr("2 runs: 1 explained, 0 unsupported, 1 failed"));
    EXPECT_THAT(result.err, HasSubstr("1 run failed"));
    EXPECT_THAT(result.err, HasSubstr("misbehaving/run_throws on " + device + ": failed: "));
}

TEST(ExplainCli, AnUnknownWorkloadOrDeviceIsAUsageError)
{
    const auto workload = run_duet({"explain", "no_such_workload"});
    EXPECT_EQ(workload.exit_code, 2);
    EXPECT_THAT(workload.err, HasSubstr("no workload 'no_such_workload'; workloads: "));
    EXPECT_THAT(workload.err, HasSubstr("vector_add"));

    const auto device = run_duet({"explain", "vector_add", "--devices", "opencl:99"});
    EXPECT_EQ(device.exit_code, 2);
    EXPECT_THAT(device.err, HasSubstr("no device 99 in the opencl backend"));
    EXPECT_THAT(device.err, HasSubstr("devices that exist:"));

    const auto variant = run_duet({"explain", "vector_add", "--variants", "fast"});
    EXPECT_EQ(variant.exit_code, 2);
    EXPECT_THAT(variant.err, HasSubstr("fast"));
}

} // namespace
} // namespace duet::test
