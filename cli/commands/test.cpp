// `duet test <workload|all>`: each workload's declared test cases (tiny, odd, not a multiple of the
// block, large) with every variant on every device, each checked against the CPU reference, the
// devices against each other and the variants against each other. The agreement test suite runs
// the same cases through the same code (workload::run_test_case).
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/devices.hpp"
#include "model/runs.hpp"
#include "model/workloads.hpp"
#include "render/describe.hpp"
#include "render/environment.hpp"
#include "render/progress.hpp"
#include "render/records.hpp"
#include "render/table.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>

namespace duet::cli {

namespace {

struct TestCase {
    WorkloadInfo info;
    std::size_t index = 0;
    std::vector<Run> runs;
};

std::string case_status(const TestCase& test)
{
    std::size_t ok = 0, unsupported = 0;
    for (const auto& run : test.runs) {
        ok += run.status == Status::ok ? 1 : 0;
        unsupported += run.status == Status::unsupported ? 1 : 0;
    }
    const std::size_t bad = test.runs.size() - ok - unsupported;
    std::string text = std::to_string(ok) + " of " + std::to_string(test.runs.size()) + " agree";
    if (unsupported > 0) {
        text += ", " + std::to_string(unsupported) + " unsupported";
    }
    return bad > 0 ? text + ", " + std::to_string(bad) + " NOT" : text;
}

void print_cases(const std::vector<TestCase>& cases, std::size_t first)
{
    const auto& info = cases[first].info;
    std::cout << "\n" << info.name << "\n";
    Table table({{"case", Table::Align::right}, {"settings"}, {"result"}});
    for (std::size_t i = first; i < cases.size(); ++i) {
        table.add_row({std::to_string(cases[i].index),
                       truncate(describe_settings(info, info.test_cases[cases[i].index]), 70), case_status(cases[i])});
    }
    table.print(std::cout);
}

/// The workloads `name` asks for: one, or all of them, where each plugin that did not load is a
/// problem of the verdict.
std::vector<std::shared_ptr<const Workload>> workloads_to_test(const std::string& name, Verdict& verdict)
{
    if (name != "all") {
        return {find_workload(name)};
    }
    add_unloaded_plugins(verdict);
    return all_workloads();
}

/// With `all`, the workloads' variants among those wanted (none may be); else those wanted, each
/// of which must exist.
std::vector<std::string> variants_to_test(const WorkloadInfo& info, bool all, const std::vector<std::string>& wanted)
{
    if (!all) {
        return pick_variants(info, wanted);
    }
    std::vector<std::string> variants;
    for (const auto& variant : info.variants) {
        if (wanted.empty() || std::find(wanted.begin(), wanted.end(), variant) != wanted.end()) {
            variants.push_back(variant);
        }
    }
    return variants;
}

std::string test_json(const std::vector<TestCase>& cases, const Verdict& verdict, std::uint64_t seed)
{
    json::Array list;
    for (const auto& test : cases) {
        json::Array runs;
        for (const auto& run : test.runs) {
            runs.push_back(run_json(run));
        }
        list.push_back(json::Object{{"workload", test.info.name},
                                    {"case", test.index},
                                    {"settings", settings_json(test.info, test.info.test_cases[test.index])},
                                    {"runs", std::move(runs)}});
    }
    const auto problems = verdict.problems();
    return json::document(json::Object{{"schema", "duet.test/2"},
                                       {"environment", environment_json(Registry::global())},
                                       {"seed", seed},
                                       {"agree", problems.empty()},
                                       {"counts", counts_json(verdict)},
                                       {"problems", json::Array(problems.begin(), problems.end())},
                                       {"cases", std::move(list)}});
}

} // namespace

int test_command(const Arguments& arguments)
{
    const std::string name = arguments.positional().at(0);
    const auto wanted_variants = arguments.list("variants");
    const auto devices = pick_devices(arguments.list("devices"));
    const auto seed = arguments.number("seed", 1, 0, UINT64_MAX);
    const auto build_flags = build_flags_from(arguments);
    auto outputs = Outputs::open(arguments);
    if (outputs.table && !build_flags.empty()) {
        std::cout << describe_build_flags(build_flags) << "\n";
    }
    Verdict verdict{"run"};

    std::vector<TestCase> cases;
    for (const auto& workload : workloads_to_test(name, verdict)) {
        const auto info = workload->info();
        const auto variants = variants_to_test(info, name == "all", wanted_variants);
        if (variants.empty()) {
            continue;
        }
        if (info.test_cases.empty()) {
            verdict.add_problem(info.name + " declares no test cases");
            continue;
        }
        const std::size_t first = cases.size();
        Progress progress(info.test_cases.size());
        for (std::size_t index = 0; index < info.test_cases.size(); ++index) {
            progress.start(info.name + " case " + std::to_string(index));
            cases.push_back(
                {info, index, workload::run_test_case(workload, index, variants, devices, seed, build_flags)});
            for (const auto& run : cases.back().runs) {
                verdict.add(job_name(run.job) + " case " + std::to_string(index) + " (" +
                                describe_settings(info, info.test_cases[index]) + ")",
                            run.status, run.reason, info.has_reference ? info.reference : "", run.cross_checked());
            }
        }
        progress.clear();
        if (outputs.table) {
            print_cases(cases, first);
        }
    }

    if (outputs.table) {
        std::cout << "\n" << verdict_summary(verdict) << (verdict.ok() ? "" : " Details on standard error.") << "\n";
    }
    const int code = exit_code(verdict);
    outputs.write([&] { return test_json(cases, verdict, seed); }, {}, {});
    return code;
}

} // namespace duet::cli
