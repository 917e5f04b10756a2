// What is in the on-disk kernel cache: each file with the backend, device, format and kernels it
// was built for, read from the key the core stores at the head of every cache file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace duet::cli {

struct CacheEntry {
    std::filesystem::path file;
    std::uint64_t bytes = 0;
    std::filesystem::file_time_type modified;
    bool is_duet_file = false; ///< starts with the core's cache header; only these are cleared
    std::string backend;
    std::string device;
    std::string format;
    std::vector<std::string> kernels;
};

struct CacheListing {
    std::filesystem::path directory; ///< empty when the cache is off
    bool exists = false;
    std::vector<CacheEntry> entries;
    std::uint64_t bytes = 0;
};

CacheListing read_cache();
/// Why program_cache_directory() is empty.
std::string cache_off_reason();

} // namespace duet::cli
