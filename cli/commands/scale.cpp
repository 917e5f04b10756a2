// `duet scale <workload> --ranks 1,2,4`: the workload under mpirun at each rank count, one
// `duet compare` each (every rank its own device, rank 0 writing the JSON), then each API's
// strong- or weak-scaling table: time, speedup, efficiency, the communication share and OpenCL
// against CUDA at each rank count.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/child_process.hpp"
#include "model/scaling.hpp"
#include "model/usage_error.hpp"
#include "model/workloads.hpp"
#include "render/format.hpp"
#include "render/json.hpp"
#include "render/report.hpp"
#include "render/table.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace duet::cli {

namespace {

/// Open MPI's launcher: the one the build found, else `mpirun` on PATH.
std::string mpirun()
{
#ifdef DUET_MPIEXEC
    if (std::filesystem::exists(DUET_MPIEXEC)) {
        return DUET_MPIEXEC;
    }
#endif
    return "mpirun";
}

/// Runs `command`, its output to standard error: standard output is the scaling table's, or the
/// JSON's or the report's where one of them takes it. Its exit status, or a UsageError where it
/// cannot start.
int run_process(const std::vector<std::string>& command)
{
    try {
        return run_child({.command = command});
    } catch (const Error& error) {
        throw UsageError(std::string(error.what()) +
                         " (duet scale runs Open MPI's mpirun: scripts/install-deps installs it)");
    }
}

/// The rank counts of --ranks: whole numbers from 1, ascending, each once.
std::vector<int> rank_counts(const Arguments& arguments)
{
    std::vector<int> counts;
    for (const auto& item : arguments.list("ranks")) {
        char* end = nullptr;
        const long value = std::strtol(item.c_str(), &end, 10);
        if (*end != '\0' || value < 1 || value > 4096) {
            throw UsageError("--ranks: '" + item + "' is not a rank count from 1 to 4096");
        }
        counts.push_back(static_cast<int>(value));
    }
    if (counts.empty()) {
        counts = {1, 2};
    }
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    return counts;
}

/// The median of an extra phase in a compare run's JSON; 0 where the run has none.
double extra_phase_ms(const json::Value& run, const std::string& name)
{
    const auto& phases = run.value("extra_phases", json::Value::object());
    const auto found = phases.find(name);
    return found == phases.end() || !found->is_number() ? 0 : found->get<double>();
}

void print_scaling(const Scaling& scaling)
{
    std::cout << "\n"
              << scaling.workload << ": "
              << (scaling.weak.empty() ? "strong scaling (the same problem on every rank count)"
                                       : "weak scaling (" + scaling.weak + " grows with the ranks)")
              << "\n";
    Table table({{"API"},
                 {"variant"},
                 {"ranks", Table::Align::right},
                 {"devices"},
                 {"time ms", Table::Align::right},
                 {"comm", Table::Align::right},
                 {"speedup", Table::Align::right},
                 {"efficiency", Table::Align::right},
                 {"OpenCL/CUDA", Table::Align::right},
                 {"status"}});
    const auto optional = [](const std::optional<double>& value, bool percent) {
        return value ? (percent ? format::percent(*value) : format::ratio(*value)) : std::string("-");
    };
    for (const auto& point : scaling.points) {
        const bool ok = point.status == "ok";
        table.add_row({point.api, point.variant, std::to_string(point.ranks), point.devices,
                       ok ? format::milliseconds(point.time_ms) : "-",
                       ok ? format::percent(point.communication_share()) : "-", optional(point.speedup, false),
                       optional(point.efficiency, true), optional(point.opencl_over_cuda, false),
                       ok ? point.status : point.status + ": " + truncate(point.reason, 60)});
    }
    table.print(std::cout);
    for (const auto& point : scaling.points) {
        if (!point.exchanges.empty()) {
            std::cout << "  exchanges of " << point.api << " " << point.variant << " on " << point.ranks
                      << " ranks: " << point.exchanges << "\n";
        }
    }
    std::cout << "time: the kernels and the exchanges of one pass, medians of the slowest rank's; comm: the "
                 "exchanges' share of it;\nefficiency: "
              << (scaling.weak.empty() ? "speedup over one rank / ranks" : "one rank's time / this time")
              << "; OpenCL/CUDA: time over time at the same rank count (above 1: OpenCL slower)\n";
}

json::Value scaling_json(const Scaling& scaling)
{
    json::Array points;
    for (const auto& p : scaling.points) {
        points.push_back(json::Object{{"api", p.api},
                                      {"variant", p.variant},
                                      {"ranks", p.ranks},
                                      {"devices", p.devices},
                                      {"settings", p.settings},
                                      {"status", p.status},
                                      {"reason", p.reason},
                                      {"exchanges", p.exchanges},
                                      {"time_ms", p.time_ms},
                                      {"communication_ms", p.communication_ms},
                                      {"speedup", json::optional(p.speedup)},
                                      {"efficiency", json::optional(p.efficiency)},
                                      {"opencl_over_cuda", json::optional(p.opencl_over_cuda)}});
    }
    json::Array problems(scaling.problems.begin(), scaling.problems.end());
    return json::Object{{"scaling", scaling.weak.empty() ? "strong" : "weak"},
                        {"weak_parameter", scaling.weak},
                        {"points", std::move(points)},
                        {"problems", std::move(problems)}};
}

} // namespace

int scale_command(const Arguments& arguments)
{
    const std::string name = arguments.positional().at(0);
    const auto workload = find_workload(name);
    const WorkloadInfo info = workload->info();
    const std::vector<int> rank_list = rank_counts(arguments);
    const std::map<std::string, std::string> sets = arguments.assignments("set");
    // Strong scaling always; with --weak P, weak scaling too, P grown with the ranks from its value.
    std::vector<Scaling> tables{{.workload = info.name, .weak = "", .ranks = rank_list, .points = {}, .problems = {}}};
    std::int64_t weak_base = 0;
    if (const auto weak = arguments.value("weak")) {
        const auto parameter = std::find_if(info.parameters.begin(), info.parameters.end(),
                                            [&](const WorkloadParameter& p) { return p.name == *weak; });
        if (parameter == info.parameters.end() || parameter->type != WorkloadParameter::Type::integer) {
            throw UsageError("--weak " + *weak + ": " + info.name +
                             " has no integer parameter of that name to grow with the ranks (duet list " + info.name +
                             ")");
        }
        tables.push_back({.workload = info.name, .weak = *weak, .ranks = rank_list, .points = {}, .problems = {}});
        weak_base = Settings(info, sets).integer(*weak);
    }
    // Opened first, so that a clash of two outputs truncates nothing and runs nothing.
    Outputs outputs = Outputs::open(arguments);
    const bool oversubscribe = arguments.has("oversubscribe");
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
    // Each rank count's compare JSON: kept in --runs DIR (ranks-N.json, weak-ranks-N.json), else in a
    // folder removed after.
    const auto runs_folder = arguments.value("runs");
    const std::filesystem::path scratch =
        runs_folder ? std::filesystem::path(*runs_folder)
                    : std::filesystem::temp_directory_path() / ("duet-scale-" + std::to_string(::getpid()));
    std::filesystem::create_directories(scratch);
    if (oversubscribe) {
        ::setenv("DUET_OVERSUBSCRIBE", "1", 1);
    }
    // hwloc's OpenCL component, run by mpirun as it maps the node, leaves the ranks without
    // NVIDIA's OpenCL platform (seen on an H100 machine, Open MPI 4.1.6, hwloc 2.10, driver 580):
    // duet needs no OpenCL devices in MPI's map, so it is off unless the user named it.
    if (const char* components = std::getenv("HWLOC_COMPONENTS");
        components == nullptr || std::string(components).find("opencl") == std::string::npos) {
        const std::string given = components != nullptr ? components : "";
        ::setenv("HWLOC_COMPONENTS", given.empty() ? "-opencl" : (given + ",-opencl").c_str(), 1);
    }
    // One `duet compare` under mpirun: its runs become the table's points at `ranks`.
    const auto measure = [&](Scaling& table, int ranks, const std::map<std::string, std::string>& values,
                             const std::string& stem) {
        const std::filesystem::path json_path = scratch / (stem + std::to_string(ranks) + ".json");
        std::filesystem::remove(json_path); // an earlier run's, kept in --runs, is not this one's
        std::vector<std::string> command{mpirun(), "-n", std::to_string(ranks)};
        if (oversubscribe) {
            command.push_back("--oversubscribe");
        }
        if (::geteuid() == 0) {
            command.push_back("--allow-run-as-root"); // Open MPI refuses root otherwise
        }
        command.insert(command.end(), {self.string(), "compare", name, "--json=" + json_path.string()});
        for (const auto& option : {"devices", "variants"}) {
            for (const auto& item : arguments.list(option)) {
                command.push_back("--" + std::string(option) + "=" + item);
            }
        }
        for (const auto& [key, value] : values) {
            command.push_back("--set=" + key + "=" + value);
        }
        for (const auto& option : {"seed", "warmup", "repeats"}) {
            if (const auto value = arguments.value(option)) {
                command.push_back("--" + std::string(option) + "=" + *value);
            }
        }
        const std::string what =
            std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") + (table.weak.empty() ? "" : ", weak");
        std::cerr << "== " << what << "\n" << std::flush;
        const int status = run_process(command);
        // A job that a rank ended (MPI_Abort) leaves the JSON compare opened empty, or none.
        std::ifstream file(json_path);
        const json::Value document =
            file ? json::Value::parse(file, nullptr, false) : json::Value(json::Value::value_t::discarded);
        if (document.is_discarded() || !document.contains("runs")) {
            table.problems.push_back(what + ": mpirun exited with " + std::to_string(status) +
                                     " and no result (its messages are above)");
            return;
        }
        for (const auto& run : document.at("runs")) {
            ScalePoint point;
            point.api = run.value("api", "");
            point.variant = run.value("variant", "");
            point.devices = run.value("device", "");
            point.ranks = ranks;
            point.status = run.value("status", "");
            point.reason = run.value("reason", "");
            point.exchanges = run.value("exchanges", "");
            for (const auto& [key, value] : values) {
                point.settings += (point.settings.empty() ? "" : " ") + key + "=" + value;
            }
            if (run.at("kernel_ms").is_number()) {
                point.communication_ms = extra_phase_ms(run, "communication");
                point.time_ms = run.at("kernel_ms").get<double>() + point.communication_ms;
            }
            if (point.status != "ok") {
                table.problems.push_back(what + ", " + point.api + " " + point.variant + ": " + point.status + ": " +
                                         point.reason);
            }
            // The CUDA run on the same GPUs, as compare paired them (the same PCI bus id).
            for (const auto& pair : document.value("pairs", json::Value::array())) {
                if (pair.value("opencl", "") == point.devices && pair.value("variant", "") == point.variant) {
                    point.cuda_twin = pair.value("cuda", "");
                }
            }
            table.points.push_back(std::move(point));
        }
        if (status != 0 && status != exit_wrong) {
            table.problems.push_back(what + ": mpirun exited with " + std::to_string(status));
        }
    };
    for (const int ranks : rank_list) {
        measure(tables[0], ranks, sets, "ranks-");
    }
    if (tables.size() > 1) {
        Scaling& weak = tables[1];
        for (const int ranks : rank_list) {
            if (ranks == 1) {
                // One rank at the weak parameter's own value is the strong table's run.
                for (const auto& point : tables[0].points) {
                    if (point.ranks == 1) {
                        weak.points.push_back(point);
                    }
                }
                continue;
            }
            auto values = sets;
            values[weak.weak] = std::to_string(weak_base * ranks);
            measure(weak, ranks, values, "weak-ranks-");
        }
    }
    if (!runs_folder) {
        std::filesystem::remove_all(scratch);
    }
    std::vector<std::string> problems;
    for (auto& table : tables) {
        std::stable_sort(table.points.begin(), table.points.end(), [](const ScalePoint& a, const ScalePoint& b) {
            return std::tie(a.api, a.variant, a.ranks) < std::tie(b.api, b.variant, b.ranks);
        });
        derive_scaling(table);
        if (outputs.table) {
            print_scaling(table);
        }
        problems.insert(problems.end(), table.problems.begin(), table.problems.end());
    }
    outputs.write(
        [&] {
            json::Array each;
            for (const auto& table : tables) {
                each.push_back(scaling_json(table));
            }
            return json::document(json::Object{{"workload", info.name},
                                               {"tables", std::move(each)},
                                               {"problems", json::Array(problems.begin(), problems.end())}});
        },
        {}, [&] { return scale_report(tables); });
    for (const auto& problem : problems) {
        std::cerr << "duet scale: " << problem << "\n";
    }
    return problems.empty() ? exit_ok : exit_wrong;
}

} // namespace duet::cli
