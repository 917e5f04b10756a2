// Another program run from duet (mpirun for `duet scale`, the CUDA toolkit's ptxas and
// disassemblers for `duet explain`): started without a shell, waited for, and where a limit is
// given killed past it.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace duet::cli {

struct ChildProcess {
    std::vector<std::string> command{}; ///< the program (searched on PATH without a '/') and its arguments
    /// Set: standard input from /dev/null, standard output and error into this file; unset: both
    /// go to duet's standard error (duet's standard output stays its own table's, or JSON's).
    std::optional<std::filesystem::path> output{};
    std::optional<std::filesystem::path> folder{}; ///< its working folder; unset: duet's
    std::optional<std::chrono::seconds> limit{};   ///< killed past it; unset: waited for however long
};

/// Its exit code (128 + the signal where a signal ended it). Throws duet::Error naming the
/// program where it cannot start, or where it ran past its limit (it is killed first).
int run_child(const ChildProcess& child);

} // namespace duet::cli
