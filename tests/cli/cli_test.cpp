// The duet command end to end: the built executable run as a user runs it, its exit codes (agree,
// wrong, usage errors), its JSON and CSV parsed, a user's workload and a deliberately wrong one
// loaded through DUET_PLUGIN_PATH, and the HTML report read back for the measured values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "environment.hpp"
#include "json_reader.hpp"
#include "process.hpp"

namespace duet::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

/// Small sizes and no warm-up keep each run well under a second on PoCL.
const std::vector<std::string> small{"--set", "n=1000", "--warmup", "0"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

json::Value parse_or_fail(const std::string& text)
{
    try {
        return json::parse(text);
    } catch (const std::exception& error) {
        ADD_FAILURE() << error.what() << " in:\n" << text.substr(0, 2000);
        throw;
    }
}

/// `duet devices --json`, read once.
const json::Value& devices_json()
{
    static const json::Value devices = [] {
        const auto result = run_duet({"devices", "--json"});
        EXPECT_EQ(result.exit_code, 0) << result.err;
        return json::parse(result.out);
    }();
    return devices;
}

/// The first device's selector (of `backend`, when named); empty when there is none.
std::string first_device(const std::string& backend = "")
{
    for (const auto& device : devices_json()["devices"].array()) {
        if (backend.empty() || device["backend"].string() == backend) {
            return device["selector"].string();
        }
    }
    return "";
}

/// Each backend that did not load, with its reason.
std::string backend_reasons()
{
    std::string reasons = "unavailable backends:";
    for (const auto& backend : devices_json()["backends"].array()) {
        if (!backend["loaded"].boolean()) {
            reasons += " " + backend["name"].string() + ": " + backend["reason"].string() + ";";
        }
    }
    return reasons;
}

#define REQUIRE_A_DEVICE(device)                                                                                       \
    const std::string device = first_device();                                                                         \
    if (device.empty()) {                                                                                              \
        GTEST_SKIP() << "no device; " << backend_reasons();                                                            \
    }

const EnvChanges user_plugins{{"DUET_PLUGIN_PATH", DUET_TEST_USER_PLUGIN_DIR}};
const EnvChanges wrong_plugins{{"DUET_PLUGIN_PATH", DUET_TEST_WRONG_PLUGIN_DIR}};

std::string first_line(const std::string& text)
{
    return text.substr(0, text.find('\n'));
}

std::size_t line_count(const std::string& text)
{
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// --- the command line itself ---

TEST(Cli, HelpListsTheCommandsAndTheExitCodes)
{
    const auto help = run_duet({"--help"});
    EXPECT_EQ(help.exit_code, 0);
    for (const char* word : {"devices", "doctor", "list", "run", "compare", "bench", "cache", "exit codes"}) {
        EXPECT_THAT(help.out, HasSubstr(word));
    }
    const auto compare_help = run_duet({"compare", "--help"});
    EXPECT_EQ(compare_help.exit_code, 0);
    EXPECT_THAT(compare_help.out, HasSubstr("--report"));
}

TEST(Cli, NoCommandOrAnUnknownOneIsAUsageError)
{
    EXPECT_EQ(run_duet({}).exit_code, 2);
    const auto unknown = run_duet({"frobnicate"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_THAT(unknown.err, HasSubstr("unknown command 'frobnicate'"));
    EXPECT_THAT(unknown.err, HasSubstr("compare"));
}

TEST(Cli, AnUnknownOptionIsNamedWithTheOptionsThatExist)
{
    const auto result = run_duet({"compare", "vector_add", "--sizes", "3"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_THAT(result.err, HasSubstr("--sizes"));
    EXPECT_THAT(result.err, HasSubstr("--devices"));
}

TEST(Cli, OnlyOneOutputCanTakeStandardOutput)
{
    const auto result = run_duet({"compare", "vector_add", "--json", "--csv"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_THAT(result.err, HasSubstr("only one of --json and --csv"));
}

// --- devices, list, doctor ---

TEST(Cli, DevicesJsonHasEveryBackendAndDeviceUnderCommonNames)
{
    const auto& devices = devices_json();
    EXPECT_EQ(devices["schema"].string(), "duet.devices/1");
    ASSERT_FALSE(devices["backends"].array().empty());
    for (const auto& backend : devices["backends"].array()) {
        EXPECT_FALSE(backend["name"].string().empty());
        // A backend either loaded or says why not.
        EXPECT_TRUE(backend["loaded"].boolean() || !backend["reason"].string().empty()) << backend["name"].string();
    }
    for (const auto& device : devices["devices"].array()) {
        for (const char* key : {"selector", "backend", "name", "api", "driver_version", "api_version", "compute_units",
                                "global_memory", "max_block_size", "pci_bus_id", "raw"}) {
            EXPECT_TRUE(device.has(key)) << key;
        }
    }
}

TEST(Cli, DevicesTableSaysWhyABackendIsUnavailable)
{
    const auto result = run_duet({"devices"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_THAT(result.out, HasSubstr("Backends"));
    for (const auto& backend : devices_json()["backends"].array()) {
        if (!backend["loaded"].boolean()) {
            EXPECT_THAT(result.out, HasSubstr(backend["reason"].string()));
        }
    }
    for (const auto& device : devices_json()["devices"].array()) {
        EXPECT_THAT(result.out, HasSubstr(device["selector"].string()));
    }
}

TEST(Cli, ListShowsWorkloadsVariantsAndParameters)
{
    const auto result = run_duet({"list", "--json"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto list = parse_or_fail(result.out);
    EXPECT_EQ(list["schema"].string(), "duet.list/1");
    bool found = false;
    for (const auto& workload : list["workloads"].array()) {
        if (workload["name"].string() == "vector_add") {
            found = true;
            EXPECT_FALSE(workload["variants"].array().empty());
            EXPECT_EQ(workload["parameters"].array().front()["name"].string(), "n");
            EXPECT_EQ(workload["parameters"].array().front()["type"].string(), "integer");
        }
    }
    EXPECT_TRUE(found) << result.out;
    const auto text = run_duet({"list"});
    EXPECT_THAT(text.out, HasSubstr("vector_add"));
    EXPECT_THAT(text.out, HasSubstr("block"));
}

TEST(Cli, DoctorPassesWhenNothingAskedForIsBroken)
{
    const auto result = run_duet({"doctor"});
    const bool any_device = !first_device().empty();
    EXPECT_EQ(result.exit_code, any_device ? 0 : 1) << result.out;
    EXPECT_THAT(result.out, HasSubstr("Backend plugins"));
    EXPECT_THAT(result.out, HasSubstr("Workload plugins"));
    EXPECT_THAT(result.out, HasSubstr("Kernel cache"));
    EXPECT_THAT(result.out, HasSubstr("vector_add: loaded"));
}

TEST(Cli, DoctorFailsForADeviceAskedForThatCannotBeSelected)
{
    const auto result = run_duet({"doctor", "--devices", "no_such_device"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_THAT(result.out, HasSubstr("FAIL  --devices 'no_such_device'"));
    const auto json = run_duet({"doctor", "--json"}, {{"DUET_DEVICE", "no_such_device"}});
    EXPECT_EQ(json.exit_code, 1);
    EXPECT_FALSE(parse_or_fail(json.out)["ok"].boolean());
}

/// `doctor --kernel` on a file of two kernels, one declaring its block, written for `backend`'s
/// language: each device of that backend lists both, the declared one limited by its declaration.
void expect_kernel_limits(const std::string& backend, const std::string& file_name, const std::string& source)
{
    if (first_device(backend).empty()) {
        GTEST_SKIP() << "no " << backend << " device; " << backend_reasons();
    }
    const TempDir dir;
    const auto file = dir.path() / file_name;
    std::ofstream(file) << source;
    const auto text = run_duet({"doctor", "--kernel", file.string()});
    EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
    EXPECT_THAT(text.out, HasSubstr("Kernel limits"));
    EXPECT_THAT(text.out, HasSubstr("ok    --kernel " + file.string() + " builds on"));
    const auto result = run_duet({"doctor", "--kernel", file.string(), "--json"});
    const auto json = parse_or_fail(result.out);
    std::size_t declared = 0, plain = 0;
    for (const auto& row : json["kernel_limits"].array()) {
        EXPECT_THAT(row["device"].string(), testing::StartsWith(backend));
        EXPECT_EQ(row["problem"].string(), "");
        if (row["kernel"].string() == "declared") {
            ++declared;
            EXPECT_EQ(row["max_block_size"].number(), 64);
            EXPECT_EQ(row["max_block_limit"].string(), "the kernel's declaration");
        } else {
            ++plain;
            EXPECT_EQ(row["kernel"].string(), "plain");
            EXPECT_GE(row["max_block_size"].number(), 64);
            EXPECT_NE(row["max_block_limit"].string(), "the kernel's declaration");
        }
    }
    EXPECT_GT(declared, 0u) << result.out;
    EXPECT_EQ(declared, plain) << result.out;
    // One kernel by name, and a file that does not build fails a check with the compiler's words.
    const auto one = parse_or_fail(run_duet({"doctor", "--kernel", file.string() + ":plain", "--json"}).out);
    EXPECT_EQ(one["kernel_limits"].array().size(), plain);
    for (const auto& row : one["kernel_limits"].array()) {
        EXPECT_EQ(row["kernel"].string(), "plain");
        EXPECT_EQ(row["problem"].string(), "");
    }
    std::ofstream(file) << source << "\nthis is not " << backend << " source\n";
    const auto broken = run_duet({"doctor", "--kernel", file.string()});
    EXPECT_EQ(broken.exit_code, 1) << broken.out;
    EXPECT_THAT(broken.out, HasSubstr("FAIL  --kernel " + file.string() + " on "));
    EXPECT_THAT(broken.out, HasSubstr("did not build"));
}

TEST(Cli, DoctorShowsAnOpenCLKernelsLimitsAndWhatSetsThem)
{
    expect_kernel_limits("opencl", "limits.cl",
                         "__kernel __attribute__((reqd_work_group_size(8, 8, 1))) void declared(__global float* x)\n"
                         "{ x[get_global_id(0)] = 1.0f; }\n"
                         "__kernel void plain(__global float* x) { x[get_global_id(0)] = 2.0f; }\n");
}

TEST(Cli, DoctorShowsACudaKernelsLimitsAndWhatSetsThem)
{
    expect_kernel_limits(
        "cuda", "limits.cu",
        "extern \"C\" __global__ void __launch_bounds__(64) declared(float* x)\n"
        "{ x[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }\n"
        "extern \"C\" __global__ void plain(float* x) { x[blockIdx.x * blockDim.x + threadIdx.x] = 2.0f; }\n");
}

TEST(Cli, DoctorRefusesAKernelFileOfNoKnownLanguage)
{
    const auto result = run_duet({"doctor", "--kernel", "kernels.txt"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_THAT(result.out, HasSubstr("FAIL  --kernel kernels.txt: not a .cl (OpenCL C) or .cu (CUDA C) file"));
}

TEST(Cli, DoctorNamesAWorkloadPluginThatDidNotLoadAndWhy)
{
    const TempDir plugins;
    const auto broken = plugins.path() / "libduet_workload_broken.so";
    std::ofstream(broken) << "not a shared library\n";
    const auto result = run_duet({"doctor"}, {{"DUET_PLUGIN_PATH", plugins.path().string()}});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_THAT(result.out, HasSubstr("broken: NOT LOADED"));
    EXPECT_THAT(result.out, HasSubstr(broken.string()));
    // The other commands still work, and say that a plugin is missing.
    const auto list = run_duet({"list"}, {{"DUET_PLUGIN_PATH", plugins.path().string()}});
    EXPECT_EQ(list.exit_code, 0);
    EXPECT_THAT(list.err, HasSubstr("did not load"));
}

TEST(Cli, DoctorFailsForBackendPluginsThatFailedAndTheOtherCommandsNameThem)
{
    // A zero-sized table, an empty required slot, an entry and an initialize that throw (tests/loader).
    const EnvChanges faults{{"DUET_BACKEND_PATH", DUET_FAULT_PLUGIN_DIR}};
    const std::vector<std::pair<std::string, std::string>> expected{
        {"fault_table_size_zero", "declares a size of 0 bytes"},
        {"fault_empty_required_slot", "queue_launch"},
        {"fault_throwing_entry", "simulated: the entry point threw"},
        {"fault_throwing_init", "simulated: initialize threw"}};
    const auto doctor = run_duet({"doctor"}, faults);
    EXPECT_EQ(doctor.exit_code, 1) << doctor.out << doctor.err;
    const auto devices = run_duet({"devices"}, faults);
    EXPECT_EQ(devices.exit_code, 0) << devices.err;
    for (const auto& [plugin, why] : expected) {
        EXPECT_THAT(doctor.out, HasSubstr("FAIL  backend plugin " + plugin));
        EXPECT_THAT(doctor.out, HasSubstr(why));
        EXPECT_THAT(devices.out, HasSubstr(plugin));
        EXPECT_THAT(devices.out, HasSubstr(why));
    }
    const auto list = run_duet({"list"}, faults);
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_THAT(list.out, HasSubstr("vector_add"));
}

TEST(Cli, DoctorFailsForWorkloadPluginsThatThrowAndTheOtherCommandsNameThem)
{
    const EnvChanges faults{{"DUET_PLUGIN_PATH", DUET_FAULT_WORKLOAD_DIR}};
    const std::vector<std::pair<std::string, std::string>> expected{
        {"fault_throwing_entry", "simulated: the workload entry threw"},
        {"fault_throwing_info", "simulated: info() threw"},
        {"fault_null_entry", "returned no workload"}};
    const auto doctor = run_duet({"doctor"}, faults);
    EXPECT_EQ(doctor.exit_code, 1) << doctor.out << doctor.err;
    const auto list = run_duet({"list"}, faults);
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_THAT(list.out, HasSubstr("vector_add"));
    for (const auto& [plugin, why] : expected) {
        EXPECT_THAT(doctor.out, HasSubstr("FAIL  workload plugin " + plugin));
        EXPECT_THAT(doctor.out, HasSubstr(why));
        EXPECT_THAT(list.err, HasSubstr("workload plugin " + plugin));
        EXPECT_THAT(list.err, HasSubstr(why));
    }
    EXPECT_EQ(run_duet({"devices"}, faults).exit_code, 0);
}

TEST(Cli, RunsGoOnBesideFailedPlugins)
{
    REQUIRE_A_DEVICE(device);
    const auto result =
        run_duet(std::vector<std::string>{"run", "vector_add", "--device", device} + small,
                 {{"DUET_BACKEND_PATH", DUET_FAULT_PLUGIN_DIR}, {"DUET_PLUGIN_PATH", DUET_FAULT_WORKLOAD_DIR}});
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_THAT(result.out, HasSubstr("matches the CPU reference"));
}

// --- run ---

TEST(Cli, RunPrintsEveryPhaseAndTheVerdict)
{
    REQUIRE_A_DEVICE(device);
    const auto result = run_duet(std::vector<std::string>{"run", "vector_add", "--device", device} + small);
    ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
    for (const char* phase : {"host→device", "kernel", "device→host", "total", "CPU reference"}) {
        EXPECT_THAT(result.out, HasSubstr(phase));
    }
    EXPECT_THAT(result.out, HasSubstr("matches the CPU reference"));
}

TEST(Cli, RunJsonHoldsTheMeasurement)
{
    REQUIRE_A_DEVICE(device);
    const auto result = run_duet(std::vector<std::string>{"run", "vector_add", "--device", device, "--json"} + small);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto json = parse_or_fail(result.out);
    EXPECT_EQ(json["schema"].string(), "duet.run/2");
    EXPECT_EQ(json["run"]["status"].string(), "ok");
    EXPECT_EQ(json["run"]["settings"]["n"].number(), 1000);
    EXPECT_GT(json["run"]["kernel_ms"].number(), 0);
    EXPECT_GE(json["run"]["total_ms"].number(), json["run"]["kernel_ms"].number());
}

TEST(Cli, AnUnknownWorkloadListsTheWorkloadsThatExist)
{
    const auto result = run_duet({"run", "no_such_workload"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_THAT(result.err, HasSubstr("no workload 'no_such_workload'"));
    EXPECT_THAT(result.err, HasSubstr("vector_add"));
    EXPECT_EQ(run_duet({"compare", "no_such_workload"}).exit_code, 2);
}

TEST(Cli, AnUnknownWorkloadNamesTheFoldersSearchedAndDuetPluginPath)
{
    const TempDir plugins;
    const auto unset = run_duet({"run", "no_such_workload"}, {{"DUET_PLUGIN_PATH", std::nullopt}});
    EXPECT_EQ(unset.exit_code, 2);
    EXPECT_THAT(unset.err, HasSubstr("searched for libduet_workload_<name>.so and <name>.duet.toml in: "));
    EXPECT_THAT(unset.err, HasSubstr("workloads")); // the build tree's plugin folder
    EXPECT_THAT(unset.err, HasSubstr("DUET_PLUGIN_PATH is unset"));
    const auto set = run_duet({"run", "no_such_workload"}, {{"DUET_PLUGIN_PATH", plugins.path().string()}});
    EXPECT_EQ(set.exit_code, 2);
    EXPECT_THAT(set.err, HasSubstr("DUET_PLUGIN_PATH = " + plugins.path().string()));
    EXPECT_THAT(set.err, HasSubstr("in: " + plugins.path().string() + ", "));
}

TEST(Cli, DoctorFailsForAPluginPathFolderThatHoldsNoPlugin)
{
    const TempDir empty;
    const auto result = run_duet({"doctor"}, {{"DUET_PLUGIN_PATH", empty.path().string()}});
    EXPECT_EQ(result.exit_code, 1) << result.out;
    EXPECT_THAT(result.out, HasSubstr("FAIL  DUET_PLUGIN_PATH names " + empty.path().string() +
                                      ", which holds no libduet_workload_<name>.so"));
    const auto backends = run_duet({"doctor"}, {{"DUET_BACKEND_PATH", empty.path().string()}});
    EXPECT_EQ(backends.exit_code, 1) << backends.out;
    EXPECT_THAT(backends.out, HasSubstr("which holds no libduet_backend_<name>.so"));
}

TEST(Cli, AnUnknownParameterListsTheParameters)
{
    const auto result = run_duet({"run", "vector_add", "--set", "size=3"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_THAT(result.err, HasSubstr("no parameter 'size'"));
    EXPECT_THAT(result.err, HasSubstr("n, block"));
}

TEST(Cli, ABadValueNamesTheParameterAndWhatItAccepts)
{
    const auto result = run_duet({"run", "vector_add", "--set", "block=0"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_THAT(result.err, HasSubstr("'block'"));
    EXPECT_THAT(result.err, HasSubstr("from 1 to 1024"));
    EXPECT_THAT(result.err, Not(HasSubstr("terminate")));
}

TEST(Cli, AUserWorkloadOnThePluginPathIsListedAndRuns)
{
    const auto list = run_duet({"list"}, user_plugins);
    EXPECT_EQ(list.exit_code, 0);
    EXPECT_THAT(list.out, HasSubstr("user_saxpy"));
    EXPECT_THAT(list.out, HasSubstr("vector_add")) << "the built-in workloads stay";
    EXPECT_EQ(run_duet({"run", "user_saxpy"}).exit_code, 2) << "only found through DUET_PLUGIN_PATH";

    REQUIRE_A_DEVICE(device);
    const auto run =
        run_duet({"run", "user_saxpy", "--device", device, "--set", "a=-0.5", "--warmup", "0"}, user_plugins);
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr("matches the CPU reference"));
}

TEST(Cli, ABackendNameAloneSelectsThatBackendsDefaultDevice)
{
    for (const auto& backend : devices_json()["backends"].array()) {
        const std::string name = backend["name"].string();
        const auto result = run_duet(std::vector<std::string>{"run", "vector_add", "--device", name, "--json"} + small);
        if (!backend["loaded"].boolean()) {
            EXPECT_EQ(result.exit_code, 2) << name;
            EXPECT_THAT(result.err, HasSubstr("the " + name + " backend, which is unavailable")) << name;
            continue;
        }
        // The backend's first GPU, else its first device.
        std::string expected;
        for (const auto& device : devices_json()["devices"].array()) {
            if (device["backend"].string() == name && (expected.empty() || device["type"].string() == "gpu")) {
                expected = device["selector"].string();
                if (device["type"].string() == "gpu") {
                    break;
                }
            }
        }
        if (expected.empty()) {
            EXPECT_EQ(result.exit_code, 2) << name;
            continue;
        }
        ASSERT_EQ(result.exit_code, 0) << name << ": " << result.err;
        EXPECT_EQ(parse_or_fail(result.out)["run"]["selector"].string(), expected) << name;
    }
}

TEST(Cli, ABadDuetDeviceIsNamedAsTheVariable)
{
    const auto result = run_duet({"run", "vector_add"}, {{"DUET_DEVICE", "garbage"}});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_THAT(result.err, HasSubstr("DUET_DEVICE=garbage: no device matches 'garbage'"));
}

/// The value printed on the line of `name` in a `duet run` table.
std::string figure_in(const std::string& table, const std::string& name)
{
    const auto line = table.find("\n  " + name + " ");
    if (line == std::string::npos) {
        return "";
    }
    const auto start = table.find_first_not_of(' ', line + 3 + name.size());
    return table.substr(start, table.find_first_of(" \n", start) - start);
}

/// The significant digits of a number as printed: "0.002458" and "52.36" have 4.
std::size_t significant_digits(const std::string& text)
{
    std::string digits;
    std::copy_if(text.begin(), text.end(), std::back_inserter(digits), [](char c) { return std::isdigit(c) != 0; });
    return digits.size() - std::min(digits.find_first_not_of('0'), digits.size());
}

TEST(Cli, RunPrintsFiguresWithSensiblePrecisionAndWholeNumbersAsIntegers)
{
    REQUIRE_A_DEVICE(device);
    const TempDir out;
    const std::string json_path = (out.path() / "run.json").string();
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"run", "mat_add", "--set", "width=1000", "--set", "height=7"},
          std::vector<std::string>{"run", "bandwidth", "--variant", "pageable", "--set", "bytes=65536"}}) {
        const auto result =
            run_duet(args + std::vector<std::string>{"--device", device, "--warmup", "0", "--json", json_path});
        ASSERT_EQ(result.exit_code, 0) << result.err;
        const auto json = parse_or_fail(read_file(json_path));
        ASSERT_FALSE(json["run"]["extras"].members().empty()) << args[1];
        for (const auto& [name, value] : json["run"]["extras"].members()) {
            const std::string shown = figure_in(result.out, name);
            ASSERT_FALSE(shown.empty()) << name << " in\n" << result.out;
            EXPECT_NE(shown.back(), '.') << name;
            const double exact = value.number();
            if (exact == std::floor(exact) || std::abs(exact) >= 1000) {
                EXPECT_EQ(shown, std::to_string(std::llround(exact))) << name;
            } else {
                EXPECT_LE(significant_digits(shown), 4u) << name << " shown as " << shown;
                EXPECT_NEAR(std::stod(shown), exact, std::abs(exact) * 1e-3) << name;
            }
        }
    }
}

TEST(Cli, RunOfACopyShowsACopyRateAndNoKernelRow)
{
    REQUIRE_A_DEVICE(device);
    const auto result = run_duet(
        {"run", "bandwidth", "--variant", "pinned", "--set", "bytes=65536", "--device", device, "--warmup", "0"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr("\n  copy rate "));
    EXPECT_THAT(result.out, Not(HasSubstr("\n  kernel ")));
    EXPECT_THAT(result.out, Not(HasSubstr("kernel rate")));
    const auto kernel = run_duet(std::vector<std::string>{"run", "vector_add", "--device", device} + small);
    EXPECT_THAT(kernel.out, HasSubstr("kernel rate"));
}

// --- output ---

TEST(Cli, IntegersInJsonStayExactIntegers)
{
    const auto result =
        run_duet({"compare", "vector_add", "--seed", "18446744073709551615", "--json", "--devices", "no_such_device"});
    EXPECT_EQ(result.exit_code, 2) << "the seed is fine, the device is not";
    REQUIRE_A_DEVICE(device);
    const auto compared = run_duet(std::vector<std::string>{"compare", "vector_add", "--seed", "18446744073709551615",
                                                            "--devices", device, "--json"} +
                                   small);
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    const auto json = parse_or_fail(compared.out);
    EXPECT_EQ(json["seed"].number_text(), "18446744073709551615");
    EXPECT_EQ(json["runs"].array().front()["settings"]["n"].number_text(), "1000");
    // A strict reader of uint64 takes every device limit as written (2^64 would be out of range).
    for (const auto& listed : devices_json()["devices"].array()) {
        for (const char* key : {"max_grid_dims", "max_block_dims"}) {
            if (listed[key].is_null()) {
                continue;
            }
            for (const auto& size : listed[key].array()) {
                const std::string& text = size.number_text();
                std::uint64_t value = 0;
                const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
                EXPECT_TRUE(error == std::errc() && end == text.data() + text.size()) << key << " " << text;
            }
        }
    }
}

TEST(Cli, AFailedWriteExitsOneNamingTheFileAndWhy)
{
    if (!std::filesystem::exists("/dev/full")) {
        GTEST_SKIP() << "no /dev/full to fill";
    }
    REQUIRE_A_DEVICE(device);
    const TempDir out;
    const std::string json_path = (out.path() / "compare.json").string();
    const auto result = run_duet(std::vector<std::string>{"compare", "vector_add", "--devices", device, "--report",
                                                          "/dev/full", "--json", json_path} +
                                 small);
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_THAT(result.err, HasSubstr("cannot write /dev/full: No space left on device"));
    EXPECT_EQ(parse_or_fail(read_file(json_path))["schema"].string(), "duet.compare/2")
        << "the outputs that could be written are";
    const auto run =
        run_duet(std::vector<std::string>{"run", "vector_add", "--device", device, "--json=/dev/full"} + small);
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_THAT(run.err, HasSubstr("cannot write /dev/full"));
}

TEST(Cli, TwoOutputsToOneFileAreRefusedBeforeAnythingIsOverwritten)
{
    const TempDir out;
    const auto path = out.path() / "results";
    std::ofstream(path) << "kept\n";
    const std::string same = (out.path() / "." / "results").string();
    const auto result =
        run_duet({"compare", "vector_add", "--json=" + path.string(), "--csv=" + same, "--set", "n=1000"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_THAT(result.err, HasSubstr("are the same file"));
    EXPECT_EQ(read_file(path.string()), "kept\n");
    EXPECT_EQ(run_duet({"bench", "vector_add", "--report", path.string(), "--json=" + path.string()}).exit_code, 2);
}

TEST(Cli, ADashMeansStandardOutputForEveryOutput)
{
    REQUIRE_A_DEVICE(device);
    const auto report =
        run_duet(std::vector<std::string>{"compare", "vector_add", "--devices", device, "--report", "-"} + small);
    ASSERT_EQ(report.exit_code, 0) << report.err;
    EXPECT_EQ(report.out.rfind("<!DOCTYPE html>", 0), 0u) << "the report in place of the table";
    const auto json =
        run_duet(std::vector<std::string>{"compare", "vector_add", "--devices", device, "--json", "-"} + small);
    EXPECT_EQ(parse_or_fail(json.out)["schema"].string(), "duet.compare/2");
    const auto both = run_duet({"compare", "vector_add", "--report", "-", "--csv"});
    EXPECT_EQ(both.exit_code, 2);
    EXPECT_THAT(both.err, HasSubstr("only one of --csv and --report can go to standard output"));
}

// --- compare ---

TEST(Cli, CompareExitsZeroWhenEverythingAgrees)
{
    REQUIRE_A_DEVICE(device);
    const auto result = run_duet(std::vector<std::string>{"compare", "vector_add", "--json"} + small);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto json = parse_or_fail(result.out);
    EXPECT_EQ(json["schema"].string(), "duet.compare/2");
    EXPECT_TRUE(json["agree"].boolean());
    EXPECT_EQ(json["runs"].array().size(), devices_json()["devices"].array().size());
    for (const auto& run : json["runs"].array()) {
        EXPECT_EQ(run["status"].string(), "ok") << run["reason"].string();
        for (const char* key : {"h2d_ms", "kernel_ms", "d2h_ms", "total_ms", "rate", "max_error", "tolerance"}) {
            EXPECT_EQ(run[key].type(), json::Value::Type::number) << key;
        }
        EXPECT_EQ(run["rate_unit"].string(), "GB/s");
    }
    for (const char* key : {"duet_version", "duet_commit", "compiler", "backends", "devices"}) {
        EXPECT_TRUE(json["environment"].has(key)) << key;
    }
}

TEST(Cli, CompareTableNamesEveryColumnWithItsUnit)
{
    REQUIRE_A_DEVICE(device);
    const auto result = run_duet(std::vector<std::string>{"compare", "vector_add", "--devices", device} + small);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    for (const char* header :
         {"device", "API", "variant", "h→d ms", "kernel ms", "d→h ms", "total ms", "GB/s", "max error", "agrees"}) {
        EXPECT_THAT(result.out, HasSubstr(header));
    }
    for (const auto& backend : devices_json()["backends"].array()) {
        if (!backend["loaded"].boolean()) {
            EXPECT_THAT(result.out, HasSubstr("note: " + backend["name"].string() + " unavailable: "));
        }
    }
}

TEST(Cli, CompareCsvStartsWithItsHeader)
{
    REQUIRE_A_DEVICE(device);
    const auto result =
        run_duet(std::vector<std::string>{"compare", "vector_add", "--devices", device, "--csv"} + small);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(
        first_line(result.out),
        "workload,variant,settings,device,device_name,api,driver_version,api_version,backend_version,status,"
        "reason,samples,h2d_ms,kernel_ms,kernel_ms_low,kernel_ms_high,d2h_ms,total_ms,total_ms_low,"
        "total_ms_high,reference_ms,rate,rate_unit,max_error,max_ulps,max_scaled_ulps,differing,tolerance,baseline,"
        "difference,allowed_difference,seed,duet_version,duet_commit,compiler,cuda_compiler");
    EXPECT_EQ(line_count(result.out), 2u);
}

TEST(Cli, CompareExitsOneNamingAResultThatDiffersFromTheReference)
{
    REQUIRE_A_DEVICE(device);
    const auto result =
        run_duet(std::vector<std::string>{"compare", "wrong", "--variants", "offset", "--devices", device} + small,
                 wrong_plugins);
    EXPECT_EQ(result.exit_code, 1) << result.out;
    EXPECT_THAT(result.err, HasSubstr("wrong/offset on " + device + ": differs from the CPU reference by 1.0e-03"));
    EXPECT_THAT(result.out, HasSubstr("NO"));
}

TEST(Cli, CompareExitsOneWhenDevicesDisagreeThoughEachClaimsToMatch)
{
    const auto two = two_devices(wrong_plugins);
    if (!two) {
        GTEST_SKIP() << "fewer than two devices, and PoCL gives no second; " << backend_reasons();
    }
    const EnvChanges& env = two->env;
    const std::string &first = two->first, &second = two->second;
    // The drift variant's second run is off by 1e-3, which only comparing the two outputs can see.
    const auto result = run_duet(
        std::vector<std::string>{"compare", "wrong", "--variants", "drift", "--devices", first + "," + second} + small,
        env);
    EXPECT_EQ(result.exit_code, 1) << result.out;
    EXPECT_THAT(result.err, HasSubstr("wrong/drift on " + second + ": differs from " + first + " by 1.0e-03"));
}

TEST(Cli, CompareExitsOneWhenTwoVariantsDisagreeOnOneDevice)
{
    REQUIRE_A_DEVICE(device);
    // Each variant claims to match the reference; the second run in the process is off by 1e-3,
    // which only comparing the variants' outputs can see.
    const auto result = run_duet(
        std::vector<std::string>{"compare", "wrong", "--variants", "drift,drift_too", "--devices", device} + small,
        wrong_plugins);
    EXPECT_EQ(result.exit_code, 1) << result.out;
    EXPECT_THAT(result.err, HasSubstr("wrong/drift_too on " + device + ": differs from drift by 1.0e-03"));
    EXPECT_THAT(result.err, HasSubstr("1000 of 1000 elements differ"));
}

TEST(Cli, CompareJsonCarriesEveryPhasesStatisticsAndTheAgreementInUlps)
{
    REQUIRE_A_DEVICE(device);
    const auto result = run_duet({"compare", "vector_add", "--devices", device, "--set", "n=1000", "--json"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto json = parse_or_fail(result.out);
    EXPECT_EQ(json["timing"]["min_runs"].number(), 5);
    const auto& run = json["runs"].array().front();
    EXPECT_GE(run["samples"].number(), 5);
    const auto& kernel = run["statistics"]["kernel_ms"];
    EXPECT_EQ(kernel["count"].number(), run["samples"].number());
    EXPECT_LE(kernel["low"].number(), kernel["median"].number());
    EXPECT_GE(kernel["high"].number(), kernel["median"].number());
    EXPECT_EQ(kernel["median"].number(), run["kernel_ms"].number());
    // Every pass in the order it ran, each phase's own, the medians among them.
    for (const char* phase : {"h2d_ms", "kernel_ms", "d2h_ms", "total_ms"}) {
        const auto& passes = run["passes"][phase].array();
        EXPECT_EQ(passes.size(), static_cast<std::size_t>(run["samples"].number())) << phase;
        std::vector<double> sorted;
        for (const auto& pass : passes) {
            sorted.push_back(pass.number());
        }
        std::sort(sorted.begin(), sorted.end());
        EXPECT_GE(run[phase].number(), sorted.front()) << phase;
        EXPECT_LE(run[phase].number(), sorted.back()) << phase;
    }
    EXPECT_EQ(run["agreement"]["count"].number(), 1000);
    EXPECT_EQ(run["agreement"]["differing"].number(), 0);
    EXPECT_EQ(run["agreement"]["ulp_histogram"].array().front()["ulps"].string(), "0");
}

TEST(Cli, RepeatsAsksForExactlyThatManyTimedPasses)
{
    REQUIRE_A_DEVICE(device);
    const auto result =
        run_duet({"run", "vector_add", "--device", device, "--set", "n=1000", "--repeats", "3", "--json"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(parse_or_fail(result.out)["run"]["samples"].number(), 3);
}

TEST(Cli, ARuleBetweenParametersIsRefusedNamingBothAndASweepSkipsThePoint)
{
    REQUIRE_A_DEVICE(device);
    const auto run =
        run_duet({"run", "wrong", "--variant", "drift", "--device", device, "--set", "n=2000", "--set", "limit=1000"},
                 wrong_plugins);
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, HasSubstr("parameters 'n' (2000) and 'limit' (1000) of workload 'wrong' break a rule: n must "
                                   "not exceed limit"));
    const auto bench = run_duet({"bench", "wrong", "--variants", "drift", "--devices", device, "--sweep", "n=500,2000",
                                 "--set", "limit=1000", "--repeats", "2", "--json"},
                                wrong_plugins);
    EXPECT_EQ(bench.exit_code, 0) << bench.err;
    const auto json = parse_or_fail(bench.out);
    EXPECT_EQ(json["counts"]["checked"].number(), 1);
    EXPECT_EQ(json["counts"]["unsupported"].number(), 1);
    EXPECT_THAT(bench.out, HasSubstr("skipped: parameters 'n' (2000) and 'limit' (1000)"));
}

TEST(Cli, AVariantsOwnRuleSkipsThatVariantOnlyAndASweepDoesNotRepeatTheOthers)
{
    REQUIRE_A_DEVICE(device);
    // n <= limit / 2 binds drift_too alone: the settings are refused for it, and offset runs with them.
    const auto run = run_duet({"compare", "wrong", "--variants", "offset,drift_too", "--devices", device, "--set",
                               "n=600", "--set", "limit=1000", "--json"},
                              wrong_plugins);
    const auto json = parse_or_fail(run.out);
    EXPECT_EQ(json["counts"]["unsupported"].number(), 1) << run.out;
    EXPECT_THAT(run.out, HasSubstr("skipped: parameters 'n' (600) and 'limit' (1000) of workload 'wrong' break a rule "
                                   "of variant 'drift_too': n must not exceed limit / 2"));
    EXPECT_THAT(run.out, HasSubstr("differs from the CPU reference")) << "offset ran, and is wrong as it should be";

    // `unused` applies to drift_too only: offset is measured once and that run stands for both points.
    const auto bench = run_duet({"bench", "wrong", "--variants", "offset,drift_too", "--devices", device, "--sweep",
                                 "unused=1,2", "--repeats", "2", "--warmup", "0", "--json"},
                                wrong_plugins);
    const auto points = parse_or_fail(bench.out)["points"].array();
    ASSERT_EQ(points.size(), 4u) << bench.out;
    const auto kernel_samples = [](const json::Value& point) {
        std::vector<double> samples;
        for (const auto& sample : point["samples"]["kernel_ms"].array()) {
            samples.push_back(sample.number());
        }
        return samples;
    };
    std::vector<std::vector<double>> offset, drift;
    for (const auto& point : points) {
        (point["variant"].string() == "offset" ? offset : drift).push_back(kernel_samples(point));
    }
    ASSERT_EQ(offset.size(), 2u);
    EXPECT_EQ(offset[0], offset[1]) << "one run of offset for both values of drift_too's parameter";
    ASSERT_EQ(drift.size(), 2u);
    EXPECT_NE(drift[0], drift[1]) << "drift_too measured at each value";
}

TEST(Cli, TestRunsEveryDeclaredCaseOfAWorkload)
{
    REQUIRE_A_DEVICE(device);
    const auto result = run_duet({"test", "vector_add", "--devices", device});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr("n=1000003"));
    EXPECT_THAT(result.out, HasSubstr("4 runs: 4 checked. All agree"));
    // A workload that declares no cases has nothing to test: a problem, not a pass.
    const auto none = run_duet({"test", "wrong", "--devices", device}, wrong_plugins);
    EXPECT_EQ(none.exit_code, 1);
    EXPECT_THAT(none.err, HasSubstr("wrong declares no test cases"));
}

// --- ports: a kernel pair described by a manifest ---

const std::filesystem::path ports = DUET_PORTS_DIR;

TEST(Cli, APortManifestRunsByPathAndByNameOnThePluginPath)
{
    REQUIRE_A_DEVICE(device);
    const std::string saxpy = (ports / "saxpy" / "saxpy.duet.toml").string();
    const auto compare = run_duet(std::vector<std::string>{"compare", saxpy, "--devices", device} + small);
    EXPECT_EQ(compare.exit_code, 0) << compare.out << compare.err;
    EXPECT_THAT(compare.out, HasSubstr("1 run: 1 checked. All agree with the CPU reference"));

    const auto described = run_duet({"list", saxpy});
    EXPECT_EQ(described.exit_code, 0) << described.err;
    EXPECT_THAT(described.out, HasSubstr("saxpy: y = a * x + y"));
    EXPECT_THAT(described.out, Not(HasSubstr("vector_add"))) << "the manifest alone";

    const EnvChanges on_path{{"DUET_PLUGIN_PATH", (ports / "reduce").string()}};
    const auto list = run_duet({"list"}, on_path);
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_THAT(list.out, HasSubstr("reduce"));
    const auto test = run_duet({"test", "reduce", "--devices", device}, on_path);
    EXPECT_EQ(test.exit_code, 0) << test.out << test.err;
    EXPECT_THAT(test.out, HasSubstr("All agree"));
}

TEST(Cli, ABadManifestIsAUsageErrorNamingItsLineAndNothingRuns)
{
    const TempDir dir;
    for (const auto* file : {"saxpy.cu", "saxpy.cl", "libsaxpy_reference.so"}) {
        std::filesystem::copy_file(ports / "saxpy" / file, dir.path() / file);
    }
    std::string manifest = read_file((ports / "saxpy" / "saxpy.duet.toml").string());
    const std::string count = "x = { type = \"float\", count = \"n\"";
    ASSERT_NE(manifest.find(count), std::string::npos);
    manifest.replace(manifest.find(count), count.size(), "x = { type = \"float\", count = \"n / 0\"");
    std::ofstream(dir.path() / "bad.duet.toml") << manifest;
    for (const auto* command : {"run", "compare", "test", "bench"}) {
        const auto result = run_duet({command, (dir.path() / "bad.duet.toml").string()});
        EXPECT_EQ(result.exit_code, 2) << command << ": " << result.err;
        EXPECT_THAT(result.err, HasSubstr("bad.duet.toml:21: buffers.x.count: 'n / 0', column 3: division by zero"))
            << command;
        EXPECT_THAT(result.out, Not(HasSubstr("ms"))) << command << ": nothing was run";
        EXPECT_THAT(result.err, Not(HasSubstr("terminate")));
    }
}

TEST(Cli, CompareRefusesADeviceNamedTwiceByAnySelector)
{
    REQUIRE_A_DEVICE(device);
    const auto twice = run_duet(std::vector<std::string>{"compare", "vector_add", "--devices", device + "," + device});
    EXPECT_EQ(twice.exit_code, 2);
    EXPECT_THAT(twice.err, HasSubstr("--devices names " + device));
    EXPECT_THAT(twice.err, HasSubstr("twice"));
    // The first device is the first of its type, so its type selects it too.
    const std::string type = devices_json()["devices"].array().front()["type"].string();
    const auto by_type = run_duet({"compare", "vector_add", "--devices", device + "," + type});
    EXPECT_EQ(by_type.exit_code, 2);
    EXPECT_THAT(by_type.err, HasSubstr("twice ('" + device + "' and '" + type + "')"));
    EXPECT_EQ(run_duet({"bench", "vector_add", "--devices", type + "," + device}).exit_code, 2);
}

TEST(Cli, CompareCountsUnsupportedRunsTheSameWayEverywhereWithoutCallingThemDisagreement)
{
    REQUIRE_A_DEVICE(device);
    const TempDir out;
    const std::string json_path = (out.path() / "compare.json").string();
    const std::string report_path = (out.path() / "compare.html").string();
    const auto result =
        run_duet(std::vector<std::string>{"compare", "all", "--variants", "default,unsupported", "--devices", device,
                                          "--json", json_path, "--report", report_path} +
                     small,
                 wrong_plugins);
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_THAT(result.out, HasSubstr("unsupported: this variant is unsupported on purpose"));
    const std::string summary = "2 runs: 1 checked, 1 unsupported. All agree with the CPU reference.";
    EXPECT_THAT(result.out, HasSubstr(summary));
    EXPECT_THAT(read_file(report_path), HasSubstr(summary));
    const auto json = parse_or_fail(read_file(json_path));
    EXPECT_TRUE(json["agree"].boolean());
    EXPECT_EQ(json["runs"].array().size(), 2u);
    EXPECT_EQ(json["counts"]["total"].number(), 2);
    EXPECT_EQ(json["counts"]["checked"].number(), 1);
    EXPECT_EQ(json["counts"]["unsupported"].number(), 1);
}

TEST(Cli, CompareInWhichNothingWasCheckedExitsOneSayingWhy)
{
    REQUIRE_A_DEVICE(device);
    const auto result = run_duet(
        std::vector<std::string>{"compare", "wrong", "--variants", "unsupported", "--devices", device, "--json"} +
            small,
        wrong_plugins);
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_THAT(result.err, HasSubstr("nothing was checked"));
    EXPECT_THAT(result.err, HasSubstr("wrong/unsupported on " + device + ": unsupported: this variant is unsupported"));
    const auto json = parse_or_fail(result.out);
    EXPECT_FALSE(json["agree"].boolean());
    EXPECT_EQ(json["counts"]["checked"].number(), 0);

    // As users met it: OpenCL has no write-combined memory, so this compare checks nothing.
    const std::string opencl = first_device("opencl");
    if (!opencl.empty()) {
        const auto write_combined = run_duet({"compare", "bandwidth", "--variants", "write_combined", "--set",
                                              "bytes=1024", "--devices", opencl, "--warmup", "0"});
        EXPECT_EQ(write_combined.exit_code, 1) << write_combined.out;
        EXPECT_THAT(write_combined.out, HasSubstr("Nothing was checked."));
        EXPECT_THAT(write_combined.out, Not(HasSubstr("all agree")));
        EXPECT_THAT(write_combined.err, HasSubstr("write-combined"));
    }
}

TEST(Cli, CompareAllReportsAWorkloadPluginThatDidNotLoad)
{
    REQUIRE_A_DEVICE(device);
    const TempDir plugins;
    const auto broken = plugins.path() / "libduet_workload_broken.so";
    std::ofstream(broken) << "not a shared library\n";
    const std::string report_path = (plugins.path() / "compare.html").string();
    const auto result = run_duet(std::vector<std::string>{"compare", "all", "--variants", "default", "--devices",
                                                          device, "--report", report_path} +
                                     small,
                                 {{"DUET_PLUGIN_PATH", plugins.path().string()}});
    EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
    EXPECT_THAT(result.err, HasSubstr("workload plugin 'broken' did not load (" + broken.string() + ")"));
    EXPECT_THAT(read_file(report_path), HasSubstr("workload plugin 'broken' did not load"));
}

TEST(Cli, CompareWithAnUnknownDeviceListsTheDevicesThatExist)
{
    const auto result = run_duet({"compare", "vector_add", "--devices", "no_such_device"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_THAT(result.err, HasSubstr("no device matches 'no_such_device'"));
    EXPECT_THAT(result.err, HasSubstr("devices that exist"));
}

TEST(Cli, CompareAllRejectsAParameterNoWorkloadHas)
{
    const auto result = run_duet({"compare", "all", "--set", "no_such_parameter=1"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_THAT(result.err, HasSubstr("no workload has a parameter 'no_such_parameter'"));
    EXPECT_THAT(result.err, HasSubstr("vector_add: n block"));
}

TEST(Cli, CompareReportHoldsTheChartsWithTheMeasuredValues)
{
    REQUIRE_A_DEVICE(device);
    const TempDir out;
    const std::string json_path = (out.path() / "compare.json").string();
    const std::string report_path = (out.path() / "compare.html").string();
    const auto result = run_duet(
        std::vector<std::string>{"compare", "vector_add", "--json", json_path, "--report", report_path} + small);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto json = parse_or_fail(read_file(json_path));
    const std::string html = read_file(report_path);
    EXPECT_THAT(html, HasSubstr("<svg"));
    // Self-contained: nothing to fetch.
    EXPECT_THAT(html, Not(HasSubstr("<script")));
    EXPECT_THAT(html, Not(HasSubstr("<link")));
    EXPECT_THAT(html, Not(HasSubstr("src=")));
    for (const auto& run : json["runs"].array()) {
        for (const char* key : {"h2d_ms", "kernel_ms", "d2h_ms", "rate"}) {
            EXPECT_THAT(html, HasSubstr("data-value=\"" + run[key].number_text() + "\"")) << key;
        }
    }
    for (const auto& backend : json["environment"]["backends"].array()) {
        EXPECT_THAT(html,
                    HasSubstr(backend["loaded"].boolean() ? backend["version"].string() : backend["reason"].string()));
    }
}

// --- bench ---

TEST(Cli, BenchSweepsTheCrossProductAndRecordsTheEnvironment)
{
    REQUIRE_A_DEVICE(device);
    const TempDir out;
    const std::string json_path = (out.path() / "bench.json").string();
    const std::string csv_path = (out.path() / "bench.csv").string();
    const std::string report_path = (out.path() / "bench.html").string();
    const auto result =
        run_duet({"bench", "vector_add", "--devices", device, "--sweep", "n=100,1000", "--sweep", "block=32,64",
                  "--repeats", "3", "--warmup", "0", "--json", json_path, "--csv", csv_path, "--report", report_path});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_THAT(result.err, Not(HasSubstr("\r"))) << "no progress bar when standard error is not a terminal";

    const auto json = parse_or_fail(read_file(json_path));
    EXPECT_EQ(json["schema"].string(), "duet.bench/2");
    const auto& points = json["points"].array();
    ASSERT_EQ(points.size(), 4u);
    for (const auto& point : points) {
        EXPECT_EQ(point["status"].string(), "ok") << point["reason"].string();
        const auto& kernel = point["kernel_ms"];
        EXPECT_LE(kernel["min"].number(), kernel["median"].number());
        EXPECT_LE(kernel["median"].number(), kernel["max"].number());
        EXPECT_EQ(point["samples"]["kernel_ms"].array().size(), 3u);
    }
    EXPECT_EQ(points[1]["settings"]["n"].number(), 100);
    EXPECT_EQ(points[1]["settings"]["block"].number(), 64);
    const auto& environment = json["environment"];
    for (const char* key : {"duet_version", "duet_commit", "compiler", "os", "time", "backends", "devices"}) {
        EXPECT_TRUE(environment.has(key)) << key;
    }
    for (const auto& recorded : environment["devices"].array()) {
        EXPECT_TRUE(recorded.has("driver_version"));
        EXPECT_TRUE(recorded.has("api_version"));
    }

    const std::string csv = read_file(csv_path);
    EXPECT_EQ(first_line(csv).rfind("workload,variant,device,device_name,api,driver_version,api_version,"
                                    "backend_version,n,block,status,reason,repeats,kernel_ms_median",
                                    0),
              0u)
        << first_line(csv);
    EXPECT_EQ(line_count(csv), 5u);
    EXPECT_THAT(first_line(csv), HasSubstr(",compiler,cuda_compiler"));

    const std::string html = read_file(report_path);
    EXPECT_THAT(html, HasSubstr("<polyline"));
    EXPECT_THAT(html, HasSubstr("data-value=\"" + points[0]["rate"]["median"].number_text() + "\""));
    EXPECT_THAT(html, HasSubstr("data-value=\"" + points[3]["kernel_ms"]["median"].number_text() + "\""));
}

TEST(Cli, BenchExpandsRanges)
{
    REQUIRE_A_DEVICE(device);
    const auto result = run_duet({"bench", "vector_add", "--devices", device, "--sweep", "n=256..1024*2", "--repeats",
                                  "1", "--warmup", "0", "--json"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto points = parse_or_fail(result.out)["points"].array();
    ASSERT_EQ(points.size(), 3u);
    EXPECT_EQ(points[0]["settings"]["n"].number(), 256);
    EXPECT_EQ(points[2]["settings"]["n"].number(), 1024);
}

TEST(Cli, BenchOverAParameterTheWorkloadLacksNamesTheParametersItHas)
{
    const auto result = run_duet({"bench", "vector_add", "--sweep", "size=1,2"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_THAT(result.err, HasSubstr("no parameter 'size'; its parameters: n, block"));
    const auto bad_value = run_duet({"bench", "vector_add", "--sweep", "block=64,4096"});
    EXPECT_EQ(bad_value.exit_code, 2) << "every point is checked before the first run";
    EXPECT_THAT(bad_value.err, HasSubstr("'block'"));
}

TEST(Cli, BenchCapsTheNumberOfPointsBeforeBuildingThem)
{
    const auto million = run_duet({"bench", "vector_add", "--sweep", "n=1..1000", "--sweep", "block=1..1000"});
    EXPECT_EQ(million.exit_code, 2);
    EXPECT_THAT(million.err, HasSubstr("1000 n values x 1000 block values x 1 variant x "));
    EXPECT_THAT(million.err, HasSubstr("the most one bench may measure is 10000"));
    // 10^9 combinations once died in std::bad_alloc; now they are only counted.
    const auto billion =
        run_duet({"bench", "matmul", "--sweep", "m=1..1000", "--sweep", "n=1..1000", "--sweep", "k=1..1000"});
    EXPECT_EQ(billion.exit_code, 2) << billion.err;
    EXPECT_THAT(billion.err, HasSubstr("1000 m values x 1000 n values x 1000 k values"));
    EXPECT_THAT(billion.err, HasSubstr("the most one bench may measure is 10000"));
    EXPECT_THAT(run_duet({"bench", "--help"}).out, HasSubstr("At most 10000 points"));
}

TEST(Cli, BenchRefusesAnEmptyItemInASweep)
{
    for (const char* sweep : {"n=1024,,2048", "n=1024,", "n=,1024"}) {
        const auto result = run_duet({"bench", "vector_add", "--sweep", sweep});
        EXPECT_EQ(result.exit_code, 2) << sweep;
        EXPECT_THAT(result.err, HasSubstr("has an empty item")) << sweep;
        EXPECT_THAT(result.err, HasSubstr(std::string(sweep).substr(2))) << sweep;
    }
    const auto devices = run_duet({"compare", "vector_add", "--devices", "opencl:0,,opencl:1"});
    EXPECT_EQ(devices.exit_code, 2);
    EXPECT_THAT(devices.err, HasSubstr("--devices: 'opencl:0,,opencl:1' has an empty item"));
}

TEST(Cli, BenchInWhichNothingWasCheckedExitsOne)
{
    REQUIRE_A_DEVICE(device);
    const auto result = run_duet({"bench", "wrong", "--variants", "unsupported", "--devices", device, "--repeats", "1",
                                  "--warmup", "0", "--json"},
                                 wrong_plugins);
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_THAT(result.err, HasSubstr("nothing was checked"));
    EXPECT_THAT(result.err, HasSubstr("unsupported: this variant is unsupported on purpose"));
    const auto json = parse_or_fail(result.out);
    EXPECT_FALSE(json["ok"].boolean());
    EXPECT_EQ(json["counts"]["total"].number(), 1);
    EXPECT_EQ(json["counts"]["checked"].number(), 0);
}

// --- cache ---

TEST(Cli, CacheListsWhatARunBuiltAndClearRemovesOnlyDuetFiles)
{
    // OpenCL builds from source, and so caches; CUDA loads the offline fatbin, which needs no cache.
    const std::string device = first_device("opencl");
    if (device.empty()) {
        GTEST_SKIP() << "no OpenCL device; " << backend_reasons();
    }
    const TempDir cache;
    const EnvChanges env{{"DUET_CACHE_DIR", cache.path().string()}};
    ASSERT_EQ(run_duet(std::vector<std::string>{"run", "vector_add", "--device", device} + small, env).exit_code, 0);
    std::ofstream(cache.path() / "notes.txt") << "not duet's\n";

    const auto listed = run_duet({"cache", "ls", "--json"}, env);
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    const auto json = parse_or_fail(listed.out);
    EXPECT_EQ(json["directory"].string(), cache.path().string());
    bool found = false;
    for (const auto& entry : json["entries"].array()) {
        for (const auto& kernel : entry["kernels"].array()) {
            found = found || kernel.string() == "vector_add";
        }
    }
    EXPECT_TRUE(found) << listed.out;

    const auto cleared = run_duet({"cache", "clear"}, env);
    EXPECT_EQ(cleared.exit_code, 0);
    EXPECT_THAT(cleared.out, HasSubstr("Removed"));
    EXPECT_EQ(files_below(cache.path()), std::vector<std::filesystem::path>{cache.path() / "notes.txt"});
    EXPECT_EQ(run_duet({"cache", "frobnicate"}, env).exit_code, 2);
}

TEST(Cli, CacheLsMarksDamagedEntriesAndTemporaryFilesAndARunRepairsThem)
{
    const std::string device = first_device("opencl");
    if (device.empty()) {
        GTEST_SKIP() << "no OpenCL device; " << backend_reasons();
    }
    const TempDir cache;
    const EnvChanges env{{"DUET_CACHE_DIR", cache.path().string()}};
    const auto run = std::vector<std::string>{"run", "vector_add", "--device", device} + small;
    ASSERT_EQ(run_duet(run, env).exit_code, 0);
    // vector_add's program, beside the kit's own (its spacer kernel).
    std::string damaged;
    const auto before = parse_or_fail(run_duet({"cache", "ls", "--json"}, env).out);
    for (const auto& entry : before["entries"].array()) {
        for (const auto& kernel : entry["kernels"].array()) {
            damaged = kernel.string() == "vector_add" ? entry["file"].string() : damaged;
        }
    }
    ASSERT_FALSE(damaged.empty());
    std::filesystem::resize_file(damaged, std::filesystem::file_size(damaged) - 1);
    std::ofstream(damaged + ".tmp.1234.5678") << "an interrupted write";

    const auto listed = run_duet({"cache", "ls"}, env);
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_THAT(listed.out, HasSubstr("1 failing verification"));
    EXPECT_THAT(listed.out, HasSubstr("INVALID    truncated: 1 byte short; rebuilt on next use"));
    EXPECT_THAT(listed.out, HasSubstr("temporary  left by an interrupted write"));
    const auto json = parse_or_fail(run_duet({"cache", "ls", "--json"}, env).out);
    std::map<std::string, std::string> problems;
    for (const auto& entry : json["entries"].array()) {
        if (!entry["valid"].boolean()) {
            problems[entry["kind"].string()] = entry["problem"].string();
        }
    }
    EXPECT_EQ(problems, (std::map<std::string, std::string>{{"entry", "truncated: 1 byte short"}, {"temporary", ""}}));

    ASSERT_EQ(run_duet(run, env).exit_code, 0) << "the damaged entry is rebuilt, not loaded";
    const auto repaired = parse_or_fail(run_duet({"cache", "ls", "--json"}, env).out);
    for (const auto& entry : repaired["entries"].array()) {
        EXPECT_EQ(entry["valid"].boolean(), entry["kind"].string() == "entry") << entry["file"].string();
    }
}

TEST(Cli, CacheOnAFolderThatCannotBeUsedIsAnErrorNamingItNeverZeroFiles)
{
    const TempDir base;
    std::ofstream(base.path() / "file") << "a file, not a directory";
    const std::string under_a_file = (base.path() / "file" / "cache").string();
    const std::string shared = (base.path() / "shared").string();
    std::filesystem::create_directory(shared);
    std::filesystem::permissions(shared, std::filesystem::perms::all);
    for (const auto& [directory, reason] :
         {std::pair{under_a_file, (base.path() / "file").string() + " is not a directory"},
          std::pair{shared, shared + " is writable by others (mode 0777)"}}) {
        for (const auto& action : {"ls", "clear"}) {
            const auto result = run_duet({"cache", action}, {{"DUET_CACHE_DIR", directory}});
            EXPECT_EQ(result.exit_code, 1) << action << " " << directory;
            EXPECT_THAT(result.err, HasSubstr("cannot use the kernel cache: " + directory));
            EXPECT_THAT(result.err, HasSubstr(reason));
            EXPECT_THAT(result.out, Not(HasSubstr("0 files")));
        }
    }
}

TEST(Cli, CacheLsOnAnUnreadableFolderIsAnErrorNamingIt)
{
    if (::geteuid() == 0) {
        GTEST_SKIP() << "root reads any folder";
    }
    const TempDir cache;
    std::filesystem::permissions(cache.path(), std::filesystem::perms::none);
    const auto result = run_duet({"cache", "ls"}, {{"DUET_CACHE_DIR", cache.path().string()}});
    std::filesystem::permissions(cache.path(), std::filesystem::perms::owner_all);
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_THAT(result.err, HasSubstr(cache.path().string()));
    EXPECT_THAT(result.err, HasSubstr("Permission denied"));
}

TEST(Cli, AnUnknownDuetCacheValueIsAUsageErrorNamingTheAcceptedValues)
{
    const EnvChanges env{{"DUET_CACHE", "maybe"}};
    const std::string message = "DUET_CACHE='maybe' is not a setting duet knows; accepted values: on or 1 (the "
                                "default), off or 0";
    for (const auto& args : {std::vector<std::string>{"cache", "ls"}, std::vector<std::string>{"cache", "clear"},
                             std::vector<std::string>{"run", "vector_add"} + small}) {
        const auto result = run_duet(args, env);
        EXPECT_EQ(result.exit_code, 2) << args[0] << " " << args[1];
        EXPECT_THAT(result.err, HasSubstr(message));
    }
    const auto doctor = run_duet({"doctor"}, env);
    EXPECT_EQ(doctor.exit_code, 1);
    EXPECT_THAT(doctor.out, HasSubstr("FAIL  " + message));
}

TEST(Cli, AnUnusableCacheDirectoryFailsDoctorAndRunsGoOnWithANote)
{
    REQUIRE_A_DEVICE(device);
    const TempDir base;
    std::ofstream(base.path() / "file") << "a file, not a directory";
    const std::string directory = (base.path() / "file" / "cache").string();
    const EnvChanges env{{"DUET_CACHE_DIR", directory}};
    const std::string reason =
        directory + " cannot be created: " + (base.path() / "file").string() + " is not a directory";

    const auto doctor = run_duet({"doctor"}, env);
    EXPECT_EQ(doctor.exit_code, 1);
    EXPECT_THAT(doctor.out, HasSubstr("FAIL  cannot use the kernel cache: " + reason));
    const auto json = parse_or_fail(run_duet({"doctor", "--json"}, env).out);
    EXPECT_EQ(json["cache"]["state"].string(), "unusable");
    EXPECT_THAT(json["cache"]["reason"].string(), HasSubstr(reason));

    const auto run = run_duet(std::vector<std::string>{"run", "vector_add", "--device", device} + small, env);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.err, "note: kernels are built without the disk cache: " + reason + "\n");
}

} // namespace
} // namespace duet::test
