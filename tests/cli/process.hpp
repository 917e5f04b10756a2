// Runs the built duet executable as a user would: its own process, an environment the test
// controls, standard output and standard error captured apart, the exit code returned.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace duet::test {

struct Completed {
    int exit_code = -1; ///< the exit status; -1 when duet died of a signal
    std::string out;
    std::string err;
    bool timed_out = false; ///< killed (exit_code -1) for running past the timeout
};

/// The environment duet runs in: the test's own with every DUET_* variable removed but
/// DUET_CACHE_DIR (the tests' kernel cache), then `changes` (nullopt unsets a variable).
using EnvChanges = std::map<std::string, std::optional<std::string>>;

/// With a timeout (0: none), duet is killed once it runs past it, for a test of what could hang.
Completed run_duet(const std::vector<std::string>& args, const EnvChanges& changes = {}, unsigned timeout_seconds = 0);

/// The whole of a file, for reports and outputs duet wrote.
std::string read_file(const std::string& path);

} // namespace duet::test
