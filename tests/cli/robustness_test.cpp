// The duet command where a user or a plugin does something unusual: outputs that name one file in
// ways a path comparison misses, a launch beyond a device limit, an address-space limit, a plugin
// that throws what is not a std::exception or whose parameters reach past what works, two files of
// one workload name, and a word after --json that is the command's argument.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "environment.hpp"
#include "json_reader.hpp"
#include "process.hpp"

namespace duet::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const std::vector<std::string> compare_small{"compare", "vector_add", "--set", "n=1000", "--warmup", "0"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

/// The selector of the first device whose type is `type` ("cpu"), or of the first device when
/// `type` is empty; nullopt where there is none.
std::optional<std::string> device_of_type(const std::string& type = "")
{
    const json::Value listed = json::parse(run_duet({"devices", "--json"}).out);
    for (const auto& device : listed["devices"].array()) {
        if (type.empty() || device["type"].string() == type) {
            return device["selector"].string();
        }
    }
    return std::nullopt;
}

/// The test process in `directory` until the end of the scope, and duet with it (its children
/// inherit the working directory), so that a file written under a bare name lands there.
class ScopedWorkingDirectory {
public:
    explicit ScopedWorkingDirectory(const fs::path& directory) : previous_(fs::current_path())
    {
        fs::current_path(directory);
    }
    ~ScopedWorkingDirectory() { fs::current_path(previous_); }
    ScopedWorkingDirectory(const ScopedWorkingDirectory&) = delete;
    ScopedWorkingDirectory& operator=(const ScopedWorkingDirectory&) = delete;

private:
    fs::path previous_;
};

// --- A6: two outputs to one file, however it is named ---

TEST(CliRobustness, TwoOutputsThroughALinkWhoseTargetDoesNotExistYetAreRefused)
{
    const TempDir out;
    const fs::path target = out.path() / "results.json";
    fs::create_symlink("results.json", out.path() / "link");       // relative, dangling
    fs::create_symlink(out.path() / "link", out.path() / "chain"); // a link to that link
    for (const char* name : {"link", "chain"}) {
        SCOPED_TRACE(name);
        const auto result = run_duet(compare_small + std::vector<std::string>{"--json=" + (out.path() / name).string(),
                                                                              "--csv=" + target.string()});
        EXPECT_EQ(result.exit_code, 2) << result.err;
        EXPECT_THAT(result.err, HasSubstr("are the same file"));
        EXPECT_FALSE(fs::exists(target)) << "the link's target was created";
        EXPECT_TRUE(fs::is_symlink(out.path() / "link"));
    }
}

TEST(CliRobustness, TwoOutputsToHardLinksOfOneFileAreRefused)
{
    const TempDir out;
    const fs::path first = out.path() / "first.json", second = out.path() / "second.csv";
    std::ofstream(first) << "kept\n";
    fs::create_hard_link(first, second);
    const auto result =
        run_duet(compare_small + std::vector<std::string>{"--json", first.string(), "--csv", second.string()});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_THAT(result.err, HasSubstr("are the same file"));
    EXPECT_EQ(read_file(first.string()), "kept\n");
    EXPECT_EQ(read_file(second.string()), "kept\n");
}

TEST(CliRobustness, StandardOutputByAnyOfItsNamesBesideADashIsRefused)
{
    for (const char* name : {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}) {
        if (!fs::exists(name)) {
            continue;
        }
        SCOPED_TRACE(name);
        for (const auto& pair : {std::vector<std::string>{"--json=" + std::string(name), "--csv", "-"},
                                 std::vector<std::string>{"--csv=" + std::string(name), "--json"}}) {
            const auto result = run_duet(compare_small + pair);
            EXPECT_EQ(result.exit_code, 2) << result.err;
            EXPECT_THAT(result.err, HasSubstr("can go to standard output"));
            EXPECT_EQ(result.out, "") << "nothing is written before the refusal";
        }
    }
}

TEST(CliRobustness, StandardOutputNamedAsAFileTakesThePlaceOfTheTable)
{
    const auto result = run_duet({"list", "vector_add", "--json=/dev/stdout"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(json::parse(result.out)["workloads"].array().at(0)["name"].string(), "vector_add")
        << "standard output holds the JSON alone, as with --json -";
}

// --- A7: a device limit at launch is something the device cannot do, not a failed run ---

TEST(CliRobustness, ALaunchBeyondTheDevicesLargestBlockIsUnsupportedNamingTheLimit)
{
    const auto device = device_of_type();
    if (!device) {
        GTEST_SKIP() << "no device";
    }
    // 64 × 64 × 64 = 262144 work-items: above every device's largest block.
    const auto result =
        run_duet({"run",   "mat_add",    "--device",  *device,      "--variant", "3d",       "--set", "block_x=64",
                  "--set", "block_y=64", "--set",     "block_z=64", "--set",     "width=64", "--set", "height=64",
                  "--set", "depth=64",   "--repeats", "1",          "--warmup",  "0"});
    EXPECT_EQ(result.exit_code, 2) << "unsupported, as asked: " << result.err;
    EXPECT_THAT(result.err, HasSubstr("cannot run"));
    EXPECT_THAT(result.err, HasSubstr("64×64×64 = 262144 work-items exceeds the device's max_block_size"));
}

// --- B15: an address-space limit counts as the host memory there is ---

TEST(CliRobustness, ARunAboveTheAddressSpaceLimitIsRefusedBeforeItStarts)
{
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: nothing runs under a limit";
#endif
    // PoCL alone: NVIDIA's drivers would take more address space than the limit leaves on loading.
    const EnvChanges env = few_malloc_arenas(pocl_alone());
    const std::string cpu = pocl_device(env);
    if (cpu.empty()) {
        GTEST_SKIP() << "no PoCL device, whose buffers are host memory ("
                     << backends_said(run_duet({"devices", "--json"}, env).out) << ")";
    }
    // The figures: 100 million floats need about 4 GB of host memory with a CPU device's
    // buffers; `ulimit -v 3000000` leaves less than 2 GB of it. More must be free on the machine,
    // or its own memory would be what refuses the run.
    const std::uint64_t available = available_host_memory().value_or(0);
    if (available < 6'000'000'000) {
        GTEST_SKIP() << "this machine has " << available << " bytes available; the test needs 6 GB";
    }
    const auto result =
        run_duet({"run", "vector_add", "--device", cpu, "--set", "n=100000000", "--repeats", "1", "--warmup", "0"}, env,
                 Limits{std::uint64_t{3'000'000} * 1024});
    EXPECT_EQ(result.exit_code, 2) << "refused as too large for this process, not aborted: " << result.err;
    EXPECT_THAT(result.err, HasSubstr("of host memory"));
    EXPECT_THAT(result.err, HasSubstr("a CPU device, whose memory is the host's"));
    EXPECT_THAT(result.err, HasSubstr("the address-space limit (RLIMIT_AS, ulimit -v) of 3072000000 bytes"));
    // The same run fits below the limit's room once it is smaller.
    const auto fits =
        run_duet({"run", "vector_add", "--device", cpu, "--set", "n=10000000", "--repeats", "1", "--warmup", "0"}, env,
                 Limits{std::uint64_t{3'000'000} * 1024});
    EXPECT_EQ(fits.exit_code, 0) << fits.err;
}

// --- B14: a plugin that throws what is not a std::exception fails that run, and only that run ---

const EnvChanges misbehaving{{"DUET_PLUGIN_PATH", DUET_TEST_MISBEHAVING_PLUGIN_DIR}};

TEST(CliRobustness, APluginThatThrowsWhatIsNotAStdExceptionFailsThatRunAlone)
{
    if (!device_of_type()) {
        GTEST_SKIP() << "no device";
    }
    const auto result = run_duet({"compare", "misbehaving", "--repeats", "1", "--warmup", "0", "--json"}, misbehaving);
    ASSERT_NE(result.exit_code, -1) << "duet died of a signal: " << result.err;
    EXPECT_EQ(result.exit_code, 1) << result.err;
    const auto runs = json::parse(result.out)["runs"].array();
    std::size_t fine = 0;
    for (const auto& run : runs) {
        const std::string& variant = run["variant"].string();
        SCOPED_TRACE(variant + " on " + run["device"].string());
        if (variant == "fine") {
            EXPECT_EQ(run["status"].string(), "ok") << run["reason"].string();
            ++fine;
            continue;
        }
        EXPECT_EQ(run["status"].string(), "failed");
        const std::string call = variant == "run_throws" ? "run()" : "footprint()";
        EXPECT_THAT(run["reason"].string(), HasSubstr("the workload plugin 'misbehaving' threw an exception that is "
                                                      "not a std::exception from its " +
                                                      call));
    }
    EXPECT_GE(fine, 1u) << "the runs after a throw still ran";
    EXPECT_EQ(runs.size(), 3 * fine);
}

// --- A rule's check that throws (an int, a std::runtime_error) is that rule broken, naming the
// workload and the rule: list, run and a bench sweep neither abort nor lose the other values ---

TEST(CliRobustness, ARuleWhoseCheckThrowsIsABrokenRuleNamingTheWorkloadAndTheRule)
{
    const std::string rule = "breaks a rule: trap must be below 7: the workload plugin 'misbehaving' threw ";
    const std::string foreign = rule + "an exception that is not a std::exception from its check of the rule 'trap "
                                       "must be below 7'";
    const auto list = run_duet({"list"}, misbehaving);
    ASSERT_NE(list.exit_code, -1) << "duet died of a signal: " << list.err;
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_THAT(list.out, HasSubstr("vector_add: ")) << "the listing went on after it";
    EXPECT_THAT(list.out,
                HasSubstr("integer 0..16; at most 6 (parameter 'trap' (7) of workload 'misbehaving' " + foreign));

    for (const auto& [value, why] : {std::pair{"7", foreign}, std::pair{"8", rule + "from its check of the rule "
                                                                                    "'trap must be below 7': trap 8 "
                                                                                    "sprung"}}) {
        const auto run = run_duet({"run", "misbehaving", "--set", std::string("trap=") + value}, misbehaving);
        ASSERT_NE(run.exit_code, -1) << "duet died of a signal: " << run.err;
        EXPECT_EQ(run.exit_code, 2) << run.err;
        EXPECT_THAT(run.err,
                    HasSubstr("parameter 'trap' (" + std::string(value) + ") of workload 'misbehaving' " + why));
    }

    if (!device_of_type()) {
        GTEST_SKIP() << "no device for the sweep";
    }
    const auto bench = run_duet({"bench", "misbehaving", "--variants", "fine", "--sweep", "trap=7,6,8,5", "--repeats",
                                 "1", "--warmup", "0", "--json"},
                                misbehaving);
    ASSERT_NE(bench.exit_code, -1) << "duet died of a signal: " << bench.err;
    EXPECT_EQ(bench.exit_code, 0) << bench.err;
    std::map<double, std::pair<std::string, std::string>> points; // trap -> status, reason
    const auto document = json::parse(bench.out);
    for (const auto& point : document["points"].array()) {
        points[point["settings"]["trap"].number()] = {point["status"].string(), point["reason"].string()};
    }
    ASSERT_EQ(points.size(), 4u) << bench.out;
    EXPECT_EQ(points[5].first, "ok") << points[5].second;
    EXPECT_EQ(points[6].first, "ok") << points[6].second;
    EXPECT_EQ(points[7].first, "unsupported");
    EXPECT_THAT(points[7].second, HasSubstr(foreign));
    EXPECT_EQ(points[8].first, "unsupported");
    EXPECT_THAT(points[8].second, HasSubstr("trap 8 sprung"));
}

// --- C18: a parameter whose maximum does not work is listed with the largest that does ---

TEST(CliRobustness, ListShowsTheLargestValueARuleAllowsAndNeverStops)
{
    const auto result = run_duet({"list"}, misbehaving);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr("misbehaving: "));
    EXPECT_THAT(result.out, HasSubstr("vector_add: ")) << "the listing went on after it";
    // n's maximum, 2^24, breaks n <= limit with limit at its default, 4096.
    EXPECT_THAT(result.out, HasSubstr("integer 1..16777216; at most 4096 (parameters 'n' (4097) and 'limit' (4096) of "
                                      "workload 'misbehaving' break a rule: n must not exceed limit, the rest at "
                                      "defaults)"));
    // huge's maximum is int64's largest, a double of 2^63: shown as the largest it takes, and no
    // value of it is too large.
    EXPECT_THAT(result.out, HasSubstr("integer 1..9223372036854775807  "));
}

TEST(CliRobustness, ListShowsTheLargestValueAManifestsExpressionsAllow)
{
    const TempDir folder;
    const fs::path ports = DUET_PORTS_DIR;
    for (const auto& file : fs::directory_iterator(ports / "saxpy")) {
        fs::copy(file.path(), folder.path() / file.path().filename());
    }
    const fs::path manifest = folder.path() / "saxpy.duet.toml";
    std::string text = read_file(manifest.string());
    // An int32 scalar takes n: 2^32 cannot reach the kernel, whatever the memory.
    text = std::regex_replace(text, std::regex("max = 1073741824"), "max = 4294967296");
    text = std::regex_replace(text, std::regex("count = \"n\""), "count = \"1\"");
    text = std::regex_replace(text, std::regex("domain = \\[\"n\"\\]"), "domain = [\"1\"]");
    std::ofstream(manifest) << text;
    const auto result = run_duet({"list"}, {{"DUET_PLUGIN_PATH", folder.path().string()}});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr("vector_add: ")) << "the listing went on";
    // The manifest's rule says so on any machine, before any device's memory is asked.
    EXPECT_THAT(result.out, HasSubstr("at most 2147483647 (parameters 'n' (2147483648) and 'a' (2.5) of workload "
                                      "'saxpy' break a rule: "));
    EXPECT_THAT(result.out, HasSubstr("saxpy.duet.toml:25: scalars.n.value: 2147483648 does not fit int32, the rest "
                                      "at defaults)"));
}

// --- C19: two files of one workload name: the first in the search path wins, visibly ---

/// A folder holding saxpy's port under another file name and, where `name` is given, another
/// workload name.
void copy_saxpy(const fs::path& folder, const std::string& file, const std::string& name)
{
    const fs::path ports = DUET_PORTS_DIR;
    for (const auto& entry : fs::directory_iterator(ports / "saxpy")) {
        if (entry.path().extension() != ".toml") {
            fs::copy(entry.path(), folder / entry.path().filename());
        }
    }
    const std::string text = read_file((ports / "saxpy" / "saxpy.duet.toml").string());
    std::ofstream(folder / file) << std::regex_replace(text, std::regex("name = \"saxpy\""), "name = \"" + name + "\"");
}

TEST(CliRobustness, AWorkloadNameGivenTwiceIsListedOnceAndTheShadowedFileNamed)
{
    // By the file's name, and by the workload name a manifest gives.
    for (const char* file : {"vector_add.duet.toml", "other.duet.toml"}) {
        SCOPED_TRACE(file);
        const TempDir folder;
        copy_saxpy(folder.path(), file, "vector_add");
        const EnvChanges env{{"DUET_PLUGIN_PATH", folder.path().string()}};
        const std::string mine = (folder.path() / file).string();

        const auto list = run_duet({"list"}, env);
        EXPECT_EQ(list.exit_code, 0) << list.err;
        std::size_t listed = 0;
        for (std::size_t at = list.out.find("\nvector_add: "); at != std::string::npos;
             at = list.out.find("\nvector_add: ", at + 1)) {
            ++listed;
        }
        EXPECT_EQ(listed, 1u) << list.out;
        EXPECT_THAT(list.out, HasSubstr("\nvector_add: y = a * x + y")) << "the manifest, found first, is listed";
        EXPECT_THAT(list.err, HasSubstr("libduet_workload_vector_add.so) is not used: shadowed by " + mine));

        const auto doctor = run_duet({"doctor"}, env);
        EXPECT_THAT(doctor.out, HasSubstr("vector_add: shadowed, not used"));
        EXPECT_THAT(doctor.out, HasSubstr("libduet_workload_vector_add.so is shadowed by " + mine));
        const auto doctor_json = json::parse(run_duet({"doctor", "--json"}, env).out);
        bool shadowed = false;
        for (const auto& plugin : doctor_json["workload_plugins"].array()) {
            shadowed = shadowed || plugin["shadowed_by"].string() == mine;
        }
        EXPECT_TRUE(shadowed);

        if (device_of_type()) {
            const auto run = run_duet({"run", "vector_add", "--set", "n=1000", "--repeats", "1", "--warmup", "0"}, env);
            EXPECT_EQ(run.exit_code, 0) << run.err;
            EXPECT_THAT(run.out, HasSubstr("vector_add/port on")) << "run uses the file found first";
        }
    }
}

TEST(CliRobustness, AShadowingFileIsNoFailure)
{
    const TempDir folder;
    copy_saxpy(folder.path(), "vector_add.duet.toml", "vector_add");
    const auto doctor = run_duet({"doctor"}, {{"DUET_PLUGIN_PATH", folder.path().string()}});
    EXPECT_THAT(doctor.out, Not(HasSubstr("FAIL  workload plugin vector_add")));
    EXPECT_EQ(doctor.exit_code, run_duet({"doctor"}).exit_code) << doctor.out;
}

// --- C21: the word after --json is the command's argument unless it names a JSON file ---

TEST(CliRobustness, JsonBeforeAWorkloadNameListsItAsJsonAndWritesNoFile)
{
    const TempDir here;
    const ScopedWorkingDirectory in(here.path());
    const auto result = run_duet({"list", "--json", "vector_add"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto workloads = json::parse(result.out)["workloads"].array();
    ASSERT_EQ(workloads.size(), 1u);
    EXPECT_EQ(workloads[0]["name"].string(), "vector_add");
    EXPECT_TRUE(fs::is_empty(here.path())) << "a file was written in the working directory";

    // A file: named for the option, or given with '='.
    EXPECT_EQ(run_duet({"list", "--json", "list.json", "vector_add"}).exit_code, 0);
    EXPECT_EQ(run_duet({"list", "--json=listing", "vector_add"}).exit_code, 0);
    EXPECT_EQ(json::parse(read_file("list.json"))["workloads"].array().size(), 1u);
    EXPECT_EQ(json::parse(read_file("listing"))["workloads"].array().size(), 1u);
    // A name that is neither is the command's argument: here one too many, with how to name the file.
    const auto devices = run_duet({"devices", "--json", "devices-out"});
    EXPECT_EQ(devices.exit_code, 2);
    EXPECT_THAT(devices.err, HasSubstr("--json=devices-out"));
    EXPECT_FALSE(fs::exists("devices-out"));
}

} // namespace
} // namespace duet::test
