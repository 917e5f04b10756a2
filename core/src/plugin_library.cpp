// Plugin discovery and loading shared by the backend and workload registries.
#include <duet/detail/plugins.hpp>

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace duet::detail {

namespace fs = std::filesystem;

std::vector<fs::path> paths_in(std::string_view list)
{
    std::vector<fs::path> directories;
    while (!list.empty()) {
        const auto end = std::min(list.find(':'), list.size());
        if (end > 0) {
            directories.emplace_back(list.substr(0, end));
        }
        list.remove_prefix(std::min(end + 1, list.size()));
    }
    return directories;
}

std::vector<fs::path> directories_from(const char* variable)
{
    const char* paths = std::getenv(variable);
    return paths_in(paths == nullptr ? "" : paths);
}

std::vector<fs::path> search_path(const char* variable, const fs::path& library_dir, const fs::path& build_library_dir,
                                  const fs::path& build_plugins, const fs::path& installed_plugins)
{
    auto directories = directories_from(variable);
    std::error_code error;
    if (fs::equivalent(library_dir, build_library_dir, error)) {
        directories.push_back(build_plugins);
    }
    directories.push_back(installed_plugins);
    return directories;
}

std::map<std::string, fs::path> find_named_files(const std::vector<fs::path>& directories, const std::string& prefix,
                                                 const std::string& suffix)
{
    std::map<std::string, fs::path> found;
    for (const auto& dir : directories) {
        std::error_code ec;
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(dir, ec)) {
            files.push_back(entry.path());
        }
        std::sort(files.begin(), files.end());
        for (const auto& file : files) {
            const std::string filename = file.filename().string();
            if (filename.size() > prefix.size() + suffix.size() && filename.starts_with(prefix) &&
                filename.ends_with(suffix)) {
                found.try_emplace(filename.substr(prefix.size(), filename.size() - prefix.size() - suffix.size()),
                                  file);
            }
        }
    }
    return found;
}

std::optional<boost::dll::shared_library> open_plugin(const fs::path& path, std::string& reason)
{
    static std::mutex mutex;
    static auto* libraries = new std::vector<boost::dll::shared_library>; // never freed: see above
    boost::dll::shared_library library;
    try {
        library.load(path.string(), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& error) {
        reason = "the loader could not open it: " + load_failure_text(error);
        return std::nullopt;
    }
    std::lock_guard lock(mutex);
    libraries->push_back(library);
    return library;
}

std::string load_failure_text(const std::exception& error)
{
    std::string text = error.what();
    if (const auto* system = dynamic_cast<const boost::dll::fs::system_error*>(&error)) {
        const std::string errno_text = ": " + system->code().message();
        if (text.ends_with(errno_text)) {
            text.erase(text.size() - errno_text.size());
        }
        // "boost::dll::shared_library::load() failed (dlerror system message: <dlerror>)"
        const std::string opening = "(dlerror system message: ";
        if (const auto at = text.find(opening); at != std::string::npos && text.ends_with(")")) {
            text = text.substr(at + opening.size(), text.size() - 1 - at - opening.size());
        }
    }
    return text;
}

std::string join(const std::vector<fs::path>& directories)
{
    std::string text;
    for (const auto& dir : directories) {
        text += (text.empty() ? "" : ", ") + dir.string();
    }
    return text.empty() ? "(no directories)" : text;
}

} // namespace duet::detail
