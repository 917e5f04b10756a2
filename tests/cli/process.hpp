// Runs the built duet executable as a user would: its own process, an environment the test
// controls, standard output and standard error captured apart, the exit code returned.
#pragma once

#include <cstdint>
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

/// Resource limits set in duet's process before it starts, as `ulimit` sets them in a shell.
struct Limits {
    std::optional<std::uint64_t> address_space{}; ///< RLIMIT_AS in bytes (`ulimit -v` counts KiB)
    /// Seconds after which duet is killed (0: none), for a test of what could hang.
    unsigned timeout_seconds = 0;
};

Completed run_duet(const std::vector<std::string>& args, const EnvChanges& changes = {}, const Limits& limits = {});
/// The same for any program, `command[0]` its absolute path (mpirun starting duet).
Completed run_program(const std::vector<std::string>& command, const EnvChanges& changes = {},
                      const Limits& limits = {});

/// The whole of a file, for reports and outputs duet wrote.
std::string read_file(const std::string& path);

/// `base` with duet seeing PoCL's devices alone: the OpenCL ICD loader given PoCL's ICD alone,
/// and no GPU visible to CUDA (nor so to NVIDIA's OpenCL). On a GPU machine NVIDIA's drivers then
/// neither add devices (to a test that counts them) nor reserve their gigabytes of address space
/// (in a test under `ulimit -v`); on a machine without a GPU nothing changes.
EnvChanges pocl_alone(EnvChanges base = {});

/// `base` for a run under `ulimit -v`: glibc's malloc held to two arenas. PoCL starts a worker
/// thread for every core and glibc gives each thread that allocates an arena of 64 MiB of address
/// space, so on 32 cores the arenas alone pass a 3 GB limit (PoCL then aborts: "PTHREAD ERROR in
/// pthread_scheduler_init") before duet's own refusal, the thing under test, is reached.
EnvChanges few_malloc_arenas(EnvChanges base = {});

/// What `duet devices --json` said of each backend, in a line ("cuda: 0 devices (cuInit: ...);
/// opencl: 1 device"), for a test that found fewer devices than it needs to say why.
std::string backends_said(const std::string& devices_json);

/// The selector of a PoCL device duet lists under `env`, "" where there is none.
std::string pocl_device(const EnvChanges& env = {});

/// In a test: `device` the PoCL device's selector, or the test skipped where there is none.
#define REQUIRE_POCL(device)                                                                                           \
    const std::string device = pocl_device();                                                                          \
    if (device.empty()) {                                                                                              \
        GTEST_SKIP() << "no PoCL device";                                                                              \
    }

/// Two devices to compare, and the environment that gives them: the machine's own under `base`,
/// or else PoCL's two CPU devices (POCL_DEVICES="pthread pthread") added to it.
struct TwoDevices {
    EnvChanges env;
    std::string first, second;
};
std::optional<TwoDevices> two_devices(const EnvChanges& base = {});

} // namespace duet::test
