// The on-disk kernel cache that Device::build reads and writes: whether it is used (and if not,
// why), what each file in it holds and whether it verifies, and clearing it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace duet {

/// Whether builds keep programs on disk, and where.
struct KernelCacheStatus {
    enum class State {
        on,      ///< builds load and store entries in `directory`
        off,     ///< DUET_CACHE turns it off
        unusable ///< a directory was named but cannot be used safely; builds go on without it
    };
    State state = State::off;
    /// DUET_CACHE_DIR, else $XDG_CACHE_HOME/duet, else $HOME/.cache/duet; empty when off or none can be named.
    std::filesystem::path directory;
    bool exists = false; ///< when on: the directory is there already (else the first build creates it, mode 0700)
    std::string reason;  ///< why it is not on, naming the setting or the directory
};

/// DUET_CACHE (on or 1, the default; off or 0) and the directory, checked as a build checks them,
/// without creating anything. The directory must be owned by the current user and writable by no
/// one else, as ssh requires of ~/.ssh, since a PoCL binary carries code that duet would load.
/// Throws InvalidArgument naming DUET_CACHE, its value and the accepted values for any other value.
KernelCacheStatus kernel_cache_status();

/// One file in the cache directory.
struct KernelCacheFile {
    enum class Kind {
        entry,     ///< named like a cache entry (<hash>.bin)
        temporary, ///< a write in progress or interrupted (<hash>.bin.tmp.*), or a damaged entry moved aside
        other      ///< not written by duet; never removed
    };
    std::filesystem::path path;
    Kind kind = Kind::other;
    std::uint64_t bytes = 0;
    std::chrono::system_clock::time_point modified{};
    /// Why a build would not load this entry (empty when it would): "truncated: 64 bytes short",
    /// "checksum mismatch", "not a regular file (a FIFO)", ... Damaged entries are rebuilt and replaced.
    std::string problem;
    std::string backend; ///< read from the entry's key; empty when it cannot be read
    std::string device;
    std::string format;               ///< a program's format, or "tuning" for a tuner's choice
    std::vector<std::string> kernels; ///< every kernel its source declares
    std::string tuning;               ///< a tuner's choice: "<what was tuned>: <choice>"
    bool valid() const { return kind == Kind::entry && problem.empty(); }
};

struct KernelCacheListing {
    KernelCacheStatus status;
    std::vector<KernelCacheFile> files; ///< newest first; empty when off or not created yet
    std::uint64_t bytes = 0;
};

class Device;

struct ProgramSource;

/// The text a tuner's choice for kernels of `program` is keyed by: its OpenCL C and CUDA C
/// sources, so that an edit to either tunes again.
std::string tuning_source(const ProgramSource& program);

/// A tuner's choice for one device, kept in the kernel cache beside the programs and keyed like
/// them: the device (backend, name, driver), what was tuned, and the source it was measured on,
/// so that another kernel source or driver tunes again. `duet cache ls` lists it as format
/// "tuning". Nothing when the cache is off, unusable or holds no such choice.
std::optional<std::string> load_tuning(const Device& device, std::string_view tuned, std::string_view source);
/// Best effort, as a build's store is: a cache that cannot be written is not an error.
void store_tuning(const Device& device, std::string_view tuned, std::string_view source, std::string_view choice);

/// Every file in the cache directory, each entry verified as a build would verify it.
/// Throws InvalidArgument for a bad DUET_CACHE, and Error naming the directory and the reason when
/// it is unusable or cannot be read.
KernelCacheListing list_kernel_cache();

struct KernelCacheClearance {
    std::filesystem::path directory; ///< empty when the cache is off
    std::size_t removed = 0;
    std::uint64_t bytes = 0;
    std::size_t kept = 0;              ///< files duet did not write
    std::vector<std::string> failures; ///< "<file>: <reason>" for each that could not be removed
};

/// Removes every entry (valid or not) and temporary file, and nothing else. Throws as list_kernel_cache().
KernelCacheClearance clear_kernel_cache();

/// The kernels a CUDA or OpenCL C source declares (`__global__` or `__kernel` functions), with
/// attributes such as `__launch_bounds__(256)` or `__attribute__((reqd_work_group_size(64,1,1)))`
/// anywhere in the declaration; comments are skipped. What cache listings show.
std::vector<std::string> declared_kernels(std::string_view source);

} // namespace duet
