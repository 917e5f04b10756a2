// Process environment and scratch directories, restored and removed when a test ends, so one
// test's DUET_* variables never leak into another's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace duet::test {

/// Sets (or with nullopt unsets) an environment variable; the destructor restores it.
class ScopedEnv {
public:
    ScopedEnv(std::string name, const std::optional<std::string>& value);
    ~ScopedEnv();
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    std::optional<std::string> previous_;
};

/// A fresh, empty directory under the system's temporary directory; removed with its contents.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

/// The host memory the machine can still give (MemAvailable in /proc/meminfo), in bytes; nullopt
/// where the kernel does not say.
std::optional<std::uint64_t> available_host_memory();

/// Every regular file below `directory`, recursively, sorted; empty when it does not exist.
std::vector<std::filesystem::path> files_below(const std::filesystem::path& directory);

} // namespace duet::test
