// What the backend registry (core) and the workload registry (libduet_workload) share: finding
// plugin files by name pattern across search directories, and opening them with Boost.DLL so that
// they stay loaded. A detail of duet's own libraries, not API to write against.
#pragma once

#include <boost/dll/shared_library.hpp>

#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace duet::detail {

/// Why a plugin was not loaded. `broken`: through its own fault (it cannot be opened, breaks the
/// rules of its ABI, or a call failed or threw), as opposed to having nothing to run on here.
class NotLoaded : public std::runtime_error {
public:
    explicit NotLoaded(const std::string& reason, bool broken = true) : std::runtime_error(reason), broken(broken) {}
    bool broken;
};

/// Calls `function` of a plugin, named `what` in the reason. Whatever it throws becomes NotLoaded
/// with the exception's text, so that it fails that plugin and not the command that loads it:
/// backends must not throw across their C ABI, but one not built on duet's edge still may.
template <class Function, class... Args> auto call_plugin(const std::string& what, Function&& function, Args&&... args)
{
    try {
        return function(std::forward<Args>(args)...);
    } catch (const std::exception& error) {
        throw NotLoaded(what + " threw: " + error.what());
    } catch (...) {
        throw NotLoaded(what + " threw an exception that is not a std::exception");
    }
}

/// The paths a ':'-separated list names (PATH's folders, OCL_ICD_FILENAMES' files), in order,
/// empty items left out.
std::vector<std::filesystem::path> paths_in(std::string_view list);
/// The same for an environment variable's value.
std::vector<std::filesystem::path> directories_from(const char* variable);

/// The folders a registry searches: those `variable` names (':'-separated), then `build_plugins`
/// when the library asking (`library_dir`, where it was loaded from) is the copy in the build tree
/// (`build_library_dir`), so that an installed copy never picks up a build tree that still exists,
/// then `installed_plugins` beside the library.
std::vector<std::filesystem::path> search_path(const char* variable, const std::filesystem::path& library_dir,
                                               const std::filesystem::path& build_library_dir,
                                               const std::filesystem::path& build_plugins,
                                               const std::filesystem::path& installed_plugins);

/// <prefix><name><suffix> files in `directories` ("libduet_backend_" and ".so" for backends), by
/// name, which is never empty; the first directory that has a name wins.
std::map<std::string, std::filesystem::path> find_named_files(const std::vector<std::filesystem::path>& directories,
                                                              const std::string& prefix, const std::string& suffix);

/// Opens `path` for good: plugins are never unloaded, since a driver may still be tearing down
/// in its exit handlers after the last duet object is gone. On failure, `reason` says why in the
/// loader's own words, and nothing is returned.
std::optional<boost::dll::shared_library> open_plugin(const std::filesystem::path& path, std::string& reason);

/// What Boost.DLL's failure to load a library says, in the loader's own words (dlerror's):
/// without the errno text it appends, which dlopen does not set, so that it names whatever call
/// failed before ("Bad file descriptor") and not the cause.
std::string load_failure_text(const std::exception& error);

/// "a, b, c" for error messages.
std::string join(const std::vector<std::filesystem::path>& directories);

} // namespace duet::detail
