// What the backend and workload registries share: finding plugin files by name pattern across
// search directories, and opening them with Boost.DLL so that they stay loaded.
#pragma once

#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace duet::detail {

/// The directories named by a ':'-separated environment variable, in order.
std::vector<std::filesystem::path> directories_from(const char* variable);

/// lib<prefix><name>.so files in `directories`, by name; the first directory that has a name wins.
std::map<std::string, std::filesystem::path> find_plugins(const std::vector<std::filesystem::path>& directories,
                                                          const std::string& prefix);

/// Opens `path` for good: plugins are never unloaded, since a driver may still be tearing down
/// in its exit handlers after the last duet object is gone. On failure, `reason` says why in the
/// loader's own words, and nothing is returned.
std::optional<boost::dll::shared_library> open_plugin(const std::filesystem::path& path, std::string& reason);

/// "a, b, c" for error messages.
std::string join(const std::vector<std::filesystem::path>& directories);

} // namespace duet::detail
