// The commands of `duet`, one function each; main.cpp parses the arguments and dispatches.
#pragma once

#include "options.hpp"

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

} // namespace duet::cli
