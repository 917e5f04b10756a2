// The duet command: parses the command line, dispatches to a command, and turns every error into
// a message and an exit code (0 all agreed, 1 something wrong, 2 cannot be done as asked).
#include "commands/cache.hpp"
#include "commands/commands.hpp"
#include "commands/distributed.hpp"
#include "model/environment.hpp"
#include "model/sweep.hpp"
#include "model/workloads.hpp"
#include "render/environment.hpp"

#include <duet/error.hpp>
#include <duet/manifest.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <streambuf>

namespace duet::cli {

namespace {

using Kind = OptionSpec::Kind;

const OptionSpec json_option{"json", Kind::optional_value, "FILE",
                             "JSON to FILE (--json x.json, or --json=FILE for any name), or to standard output (no "
                             "FILE, or -) in place of the table"};
const OptionSpec csv_option{"csv", Kind::optional_value, "FILE",
                            "CSV to FILE (--csv x.csv, or --csv=FILE for any name), or to standard output (no FILE, "
                            "or -) in place of the table"};
const OptionSpec report_option{"report", Kind::value, "FILE.html",
                               "a self-contained HTML report with charts (- for standard output)"};
const OptionSpec set_option{"set", Kind::repeated, "k=v", "a workload parameter (repeatable); `duet list` shows them"};
const OptionSpec devices_option{"devices", Kind::repeated, "SEL,...", "the devices to run on (default: every device)"};
const OptionSpec variants_option{"variants", Kind::repeated, "V,...", "the variants to run (default: all)"};
const OptionSpec seed_option{"seed", Kind::value, "N",
                             "inputs are drawn from it, the same on every device (default 1)"};
const OptionSpec warmup_option{"warmup", Kind::value, "N",
                               "untimed passes first; the first launch pays for loading the module (default 1)"};
const OptionSpec repeats_option{"repeats", Kind::value, "N",
                                "exactly N timed passes per run (default: 5 to 100, until the median settles)"};
const OptionSpec build_options_option{
    "options", Kind::repeated, "API=FLAGS,...",
    "build every program of API's devices with FLAGS after its own (cuda=-use_fast_math,opencl=-cl-mad-enable; "
    "repeatable; a comma starts the next item only before API=, so FLAGS may hold others)"};

/// A command's grammar and help, and the function that carries it out.
struct Command {
    CommandSpec spec;
    int (*handler)(const Arguments&);
};

const std::vector<Command>& commands()
{
    static const std::vector<Command> list{
        {{.name = "devices",
          .brief = "backends (loaded, or why not) and every device's properties side by side",
          .summary = "Every backend (loaded, or why not) and every device of every backend side by side, under the\n"
                     "same property names.",
          .options = {json_option,
                      {"raw", Kind::flag, "", "also every property each backend reports under its own names"}}},
         devices_command},
        {{.name = "doctor",
          .brief = "what loaded from where, exactly why not, versions, the kernel cache",
          .summary = "Where duet looked for backend and workload plugins, what loaded and exactly why not; build,\n"
                     "driver and toolkit versions; the kernel cache. Exit code 1 when something asked for\n"
                     "(DUET_DEVICE, --devices, a plugin on DUET_BACKEND_PATH or DUET_PLUGIN_PATH) cannot work, when\n"
                     "a plugin failed to load (not merely a backend with no driver here), or when there is no device.\n"
                     "With --kernel, a .cl or .cu file's kernels built on every device of their language, each with\n"
                     "the largest block it can launch and what sets it (the device, the kernel's declaration, its\n"
                     "registers, the driver), its registers, local and private memory, and the driver's own figure.",
          .options = {json_option,
                      {"devices", Kind::repeated, "SEL,...", "also check that these devices can be selected"},
                      {"kernel", Kind::value, "FILE[:NAME]",
                       "also build FILE (.cl or .cu) and show each kernel's limits, or NAME's"}}},
         doctor_command},
        {{.name = "list",
          .arguments = "[workload]",
          .max_arguments = 1,
          .brief = "workloads, their variants and parameters",
          .summary = "Every workload, or the one named (or a manifest's path), its variants and its parameters\n"
                     "(type, default, accepted values).",
          .options = {json_option}},
         list_command},
        {{.name = "run",
          .arguments = "<workload>",
          .min_arguments = 1,
          .max_arguments = 1,
          .brief = "one run on one device, checked against the CPU reference",
          .summary = "One run of one variant on one device, checked against the CPU reference, with each phase's\n"
                     "device time.",
          .options = {{"device", Kind::value, "SEL",
                       "the device (default: DUET_DEVICE, else the first GPU, else the first device)"},
                      {"variant", Kind::value, "V", "the variant (default: the workload's first)"},
                      set_option,
                      build_options_option,
                      seed_option,
                      warmup_option,
                      repeats_option,
                      json_option}},
         run_command},
        {{.name = "compare",
          .arguments = "<workload|all>",
          .min_arguments = 1,
          .max_arguments = 1,
          .brief = "every device, checked against the reference and each other",
          .summary = "Runs every variant on every selected device, checks each result against the CPU reference and\n"
                     "the devices against each other, and prints one table per workload; for one GPU reached through\n"
                     "CUDA and OpenCL (the same PCI bus id) also the OpenCL/CUDA time ratio. With `all`, --set and\n"
                     "--variants apply to the workloads that have that parameter or variant.\n"
                     "Exit code 0 only if everything agrees; 1 also when nothing was checked (every run unsupported\n"
                     "or failed) and, with `all`, when a workload plugin did not load; 2 for a device named twice.\n"
                     "h→d, kernel and d→h are each phase's device time summed over the queues it ran on; total is\n"
                     "the whole run, first copy in to last copy out, so where phases overlap (matmul's\n"
                     "schedule=overlapped or forkjoin, bandwidth's direction=both) a phase can exceed it.",
          .options = {devices_option, variants_option, set_option, build_options_option, seed_option, warmup_option,
                      repeats_option, json_option, csv_option, report_option}},
         compare_command},
        {{.name = "explain",
          .arguments = "<workload>",
          .min_arguments = 1,
          .max_arguments = 1,
          .brief = "why the APIs differ: each kernel's launch, occupancy and compiled code",
          .summary = "Runs the workload (or a manifest) once on every selected device, untimed and unchecked, and for\n"
                     "every kernel it launched shows the launch (grid, block, dynamic local memory), the kernel's\n"
                     "registers, private and static local memory and largest block, its occupancy per SM by the CUDA\n"
                     "occupancy calculator's rules (beside the driver's own figure on CUDA; not applicable on a CPU),\n"
                     "its compiled code's instruction mix where the driver keeps PTX (CUDA, NVIDIA's OpenCL; not\n"
                     "PoCL), ptxas's figures and the SASS mix where the CUDA toolkit is on PATH, and each program's\n"
                     "build options. For one GPU reached through CUDA and OpenCL, the two mixes side by side, each\n"
                     "difference with a hypothesis and the option that tests it. Build caches are off for the run,\n"
                     "so that NVIDIA's OpenCL names its registers.\n"
                     "Exit code 1 when a run failed or none could be explained; an unsupported run is shown with why.",
          .options = {devices_option,
                      {"variants", Kind::repeated, "V,...", "the variants to explain (default: the workload's first)"},
                      set_option,
                      build_options_option,
                      seed_option,
                      json_option,
                      report_option,
                      {"assembly", Kind::value, "DIR",
                       "write each program's PTX, and its SASS where made, to "
                       "DIR/<workload>-<variant>-<device>.<ptx|sass>"}}},
         explain_command},
        {{.name = "bench",
          .arguments = "<workload>",
          .min_arguments = 1,
          .max_arguments = 1,
          .brief = "parameter sweeps: warm-up, repeats, median and spread",
          .summary =
              "Measures every combination of the swept values on every selected device and variant: warm-up\n"
              "passes, then repeated timed passes (the last checked against the CPU reference), median and\n"
              "spread per point. A point whose values break a rule between parameters is skipped, with the rule.\n"
              "Each column's median is taken on its own, so a row's figures may come from different repeats;\n"
              "phases are timed as `duet compare --help` says (where they overlap, kernel ms can exceed\n"
              "total ms). A progress bar shows on a terminal. CSV and JSON record the environment (duet\n"
              "version and commit, compilers, devices, drivers, toolkit and OpenCL versions).\n"
              "Values: --sweep n=1000,2000, or ranges: n=1024..16777216*4 (times 4), block=32..256+32 (plus 32).\n"
              "At most " +
              std::to_string(max_bench_points) +
              " points (swept values multiplied, times variants, times devices); more is refused\n"
              "before anything runs. Exit code 1 when a point is wrong or failed, or nothing was checked.",
          .options = {{"sweep", Kind::repeated, "k=v,...",
                       "a parameter and its values (repeatable: the cross product)"},
                      set_option,
                      build_options_option,
                      devices_option,
                      variants_option,
                      {"repeats", Kind::value, "N", "timed passes per point (default 5)"},
                      warmup_option,
                      seed_option,
                      json_option,
                      csv_option,
                      report_option}},
         bench_command},
        {{.name = "scale",
          .arguments = "<workload>",
          .min_arguments = 1,
          .max_arguments = 1,
          .brief = "strong or weak scaling over MPI ranks, per API",
          .summary =
              "Runs `duet compare <workload>` under mpirun at each rank count of --ranks (each rank on a device\n"
              "of its own: rank r takes the r-th device of the selected one's backend and platform), then\n"
              "prints each API's time per pass (kernels and exchanges, the slowest rank's medians), the\n"
              "exchanges' share of it, the speedup and efficiency against one rank and OpenCL's time over\n"
              "CUDA's at each rank count. With --weak P, weak scaling too: P grows with the ranks.\n"
              "More ranks on a node than devices is refused with both counts, unless --oversubscribe.\n"
              "Exit code 1 when a rank count failed or a run did not agree.",
          .options = {{"ranks", Kind::repeated, "N,...", "the rank counts (default 1,2)"},
                      {"weak", Kind::value, "PARAM", "an integer parameter multiplied by the rank count"},
                      {"oversubscribe", Kind::flag, "", "let ranks share devices (and mpirun more ranks than cores)"},
                      {"runs", Kind::value, "DIR", "keep each rank count's compare JSON there (ranks-N.json)"},
                      set_option,
                      devices_option,
                      variants_option,
                      seed_option,
                      warmup_option,
                      repeats_option,
                      json_option,
                      report_option}},
         scale_command},
        {{.name = "test",
          .arguments = "<workload|all>",
          .min_arguments = 1,
          .max_arguments = 1,
          .brief = "each workload's declared test cases on every device and variant",
          .summary = "Runs each workload's declared test cases (tiny, odd, not a multiple of the block, large) with\n"
                     "every variant on every selected device, one pass each: every result against the CPU reference,\n"
                     "the devices of a variant against each other, the variants on a device against each other.\n"
                     "Exit codes as `duet compare`. The agreement test suite runs the same cases the same way.",
          .options = {devices_option, variants_option, build_options_option, seed_option, json_option}},
         test_command},
        {{.name = "cache",
          .arguments = "ls|clear",
          .min_arguments = 1,
          .max_arguments = 1,
          .brief = "list or clear the on-disk kernel cache",
          .summary = "The on-disk kernel cache (DUET_CACHE_DIR, else $XDG_CACHE_HOME/duet, else ~/.cache/duet): list\n"
                     "what it holds, each entry verified as a build would (damaged ones are rebuilt on next use),\n"
                     "or remove the files duet wrote there.",
          .options = {json_option}},
         cache_command},
    };
    return list;
}

void print_help(std::ostream& out)
{
    out << "usage: duet <command> [arguments] [options]\n\n"
           "duet runs the same workload through CUDA and OpenCL on every device and tells you whether, and how\n"
           "fast, the two agree.\n\ncommands:\n";
    for (const auto& [spec, handler] : commands()) {
        const std::string name = spec.name + (spec.arguments.empty() ? "" : " " + spec.arguments);
        out << "  " << name << std::string(name.size() < 24 ? 24 - name.size() : 1, ' ') << spec.brief << "\n";
    }
    out << "\n`duet <command> --help` shows a command's options.\n\n"
           "devices (SEL): opencl:0, cuda:1, opencl:gpu, opencl:cpu, gpu, cpu, cuda or opencl (that backend's\n"
           "first GPU, else its first device), or part of a device's name\n\n"
           "exit codes:\n"
           "  0  everything ran and agreed\n"
           "  1  a result is wrong (it differs from the CPU reference or from another device), a run failed,\n"
           "     nothing was checked, or an output could not be written; for doctor, a check failed\n"
           "  2  the command cannot be carried out as asked: an unknown command, option, workload, device,\n"
           "     variant or parameter, a bad value, a backend asked for that is unavailable, or a variant the\n"
           "     device cannot run (duet run)\n\n"
           "environment:\n"
           "  DUET_DEVICE        the device `duet run` uses without --device\n"
           "  DUET_BACKEND_PATH  ':'-separated directories searched first for backend plugins\n"
           "  DUET_PLUGIN_PATH   ':'-separated directories searched first for workload plugins\n"
           "                     (libduet_workload_<name>.so; see plugins/vector_add)\n"
           "  DUET_CACHE_DIR     where built kernels are kept (a directory only you can write)\n"
           "  DUET_CACHE         on or 1 (the default), off or 0 (no disk cache)\n";
}

int main(const std::vector<std::string>& args)
{
    if (args.empty()) {
        print_help(std::cerr);
        return exit_usage;
    }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        if (args.size() > 1) {
            return main({args[1], "--help"});
        }
        print_help(std::cout);
        return exit_ok;
    }
    if (args[0] == "--version") {
        std::cout << "duet " << build_info().version << " (" << build_info().commit << ")\n";
        return exit_ok;
    }
    const auto command = std::find_if(commands().begin(), commands().end(),
                                      [&](const Command& known) { return known.spec.name == args[0]; });
    if (command == commands().end()) {
        std::string known;
        for (const auto& [spec, handler] : commands()) {
            known += (known.empty() ? "" : ", ") + spec.name;
        }
        throw UsageError("unknown command '" + args[0] + "'; commands: " + known + " (duet --help)");
    }
    if (command->handler == explain_command) {
        compile_every_program(); // first: nothing may load a backend before
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
        std::find(rest.begin(), rest.end(), "-h") != rest.end()) {
        std::cout << command_help(command->spec);
        return exit_ok;
    }
    const Arguments arguments(command->spec, rest);
    if (command->handler == run_command || command->handler == compare_command || command->handler == bench_command ||
        command->handler == explain_command) {
        check_kernel_cache(); // they build kernels
    }
    try {
        return command->handler(arguments);
    } catch (const UnknownWorkload& error) {
        // `duet run --json out`: the word --json left alone is no workload either.
        throw UsageError(error.what() + arguments.file_note(error.name()));
    }
}

} // namespace

} // namespace duet::cli

namespace {

/// Where the other ranks' standard output goes under mpirun: rank 0 alone prints.
class Discard final : public std::streambuf {
protected:
    int overflow(int c) override { return c; }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

/// The command's exit code, its errors printed as "duet: ..." (naming the rank under mpirun).
int run_command_line(int argc, char** argv, duet::cli::Ranks* ranks)
{
    using namespace duet::cli;
    const std::string who = ranks != nullptr ? "duet (rank " + std::to_string(ranks->rank()) + "): " : "duet: ";
    const auto fail = [&](int code, const std::string& message) {
        // A rank that fails alone would leave the others waiting in an exchange: end them all.
        if (ranks != nullptr && ranks->size() > 1) {
            ranks->abort(code, message);
        }
        std::cerr << who << message << "\n";
        return code;
    };
    try {
        const int code = duet::cli::main(std::vector<std::string>(argv + 1, argv + argc));
        // A table lost to a full disk is as lost as a file: say so, and do not exit 0.
        std::cout.flush();
        if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout) {
            std::cerr << who << "cannot write standard output: " << std::strerror(errno) << "\n";
            return exit_wrong;
        }
        return code;
    } catch (const UsageError& error) {
        return fail(exit_usage, error.what());
    } catch (const duet::Error& error) {
        return fail(exit_wrong, error.what());
    } catch (const std::exception& error) {
        return fail(exit_wrong, error.what());
    }
}

} // namespace

int main(int argc, char** argv)
{
    using namespace duet::cli;
    // Manifests on the plugin path are workloads, found by name as plugins are.
    duet::register_workload_loader(duet::workload::manifest_loader());
    // Under mpirun every rank runs the command on a device of its own; rank 0 reports.
    std::unique_ptr<Ranks> ranks;
    try {
        ranks = start_ranks();
    } catch (const std::exception& error) {
        std::cerr << "duet: cannot start MPI: " << error.what() << "\n";
        return exit_wrong;
    }
    set_ranks(ranks.get());
    // The other ranks' tables, notes and verdicts are rank 0's over again; what ends a rank alone
    // (Ranks::abort) is printed through stdio and still shows.
    Discard discard;
    std::streambuf* const standard_output = std::cout.rdbuf();
    std::streambuf* const standard_error = std::cerr.rdbuf();
    if (!reporting()) {
        std::cout.rdbuf(&discard);
        std::cerr.rdbuf(&discard);
    }
    int code = run_command_line(argc, argv, ranks.get());
    if (ranks) {
        code = ranks->agree_exit_code(code);
    }
    std::cout.rdbuf(standard_output);
    std::cerr.rdbuf(standard_error);
    set_ranks(nullptr);
    return code;
}
