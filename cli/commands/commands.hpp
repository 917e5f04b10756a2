// The commands of `duet`, one function each; main.cpp parses the arguments and dispatches.
#pragma once

#include <duet/workload.hpp>

#include "commands/options.hpp"
#include "model/runs.hpp"

namespace duet::cli {

/// What `duet` exits with; `duet --help` documents them.
enum ExitCode : int {
    exit_ok = 0,    ///< everything ran and agreed
    exit_wrong = 1, ///< a result was wrong, a run failed, or a doctor check failed
    exit_usage = 2, ///< the command cannot be carried out as asked
};

int devices_command(const Arguments& arguments);
int doctor_command(const Arguments& arguments);
int list_command(const Arguments& arguments);
int run_command(const Arguments& arguments);
int compare_command(const Arguments& arguments);
int bench_command(const Arguments& arguments);
int test_command(const Arguments& arguments);
int cache_command(const Arguments& arguments);
int scale_command(const Arguments& arguments);
int explain_command(const Arguments& arguments);
/// For `duet explain`, before any backend loads (the drivers read it when they start): where the
/// user set neither, CUDA_CACHE_DISABLE=1 and DUET_CACHE=off, so that NVIDIA's OpenCL compiles each
/// program, not serving it from its compute cache or duet's, and its -cl-nv-verbose log names the
/// registers.
void compile_every_program();

/// exit_ok when `verdict` is ok; else exit_wrong, with its summary and problems on standard error.
int exit_code(const Verdict& verdict);
/// Adds to `verdict` a problem for each workload plugin that did not load: with `all`, a workload
/// that `all` did not reach.
void add_unloaded_plugins(Verdict& verdict);
/// The timing rule of `run` and `compare`: workload::Timing's defaults, --warmup N untimed passes,
/// and --repeats N for exactly N timed passes instead of the adaptive rule.
workload::Timing timing_from(const Arguments& arguments);
/// --options API=FLAGS[,API=FLAGS], by API (a backend's name): the flags its devices' runs build
/// every program with after the program's own (workload::Job::build_flags).
std::map<std::string, std::string> build_flags_from(const Arguments& arguments);
/// `flags`' entry for `device`'s backend, "" where it has none.
std::string build_flags_for(const std::map<std::string, std::string>& flags, const Device& device);

} // namespace duet::cli
