// Program cache files: "duet-program-cache 1\n<key length>\n<key><binary>", named by a hash of
// the key, written to a temporary file and renamed into place so no reader sees half a file.
#include "cache.hpp"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace duet::detail {

namespace fs = std::filesystem;

namespace {
constexpr std::string_view magic = "duet-program-cache 1\n";

std::uint64_t fnv1a(std::string_view text)
{
    std::uint64_t hash = 14695981039346656037ull;
    for (const unsigned char c : text) {
        hash = (hash ^ c) * 1099511628211ull;
    }
    return hash;
}

fs::path file_for(const fs::path& directory, std::string_view key)
{
    std::ostringstream name;
    name << std::hex << fnv1a(key) << ".bin";
    return directory / name.str();
}
} // namespace

fs::path cache_directory()
{
    const auto env = [](const char* name) -> std::string {
        const char* value = std::getenv(name);
        return value ? value : "";
    };
    const std::string setting = env("DUET_CACHE");
    if (setting == "off" || setting == "0") {
        return {};
    }
    if (const auto dir = env("DUET_CACHE_DIR"); !dir.empty()) {
        return dir;
    }
    if (const auto dir = env("XDG_CACHE_HOME"); !dir.empty()) {
        return fs::path(dir) / "duet";
    }
    if (const auto home = env("HOME"); !home.empty()) {
        return fs::path(home) / ".cache" / "duet";
    }
    return {};
}

std::optional<std::string> cache_load(const fs::path& directory, std::string_view key)
{
    std::ifstream file(file_for(directory, key), std::ios::binary);
    if (!file) {
        return std::nullopt;
    }
    const std::string content((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const std::string header = std::string(magic) + std::to_string(key.size()) + "\n";
    if (content.compare(0, header.size(), header) != 0 || content.compare(header.size(), key.size(), key) != 0) {
        return std::nullopt;
    }
    return content.substr(header.size() + key.size());
}

void cache_store(const fs::path& directory, std::string_view key, std::string_view binary)
{
    std::error_code ec;
    fs::create_directories(directory, ec);
    const fs::path target = file_for(directory, key);
    const fs::path temporary =
        target.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(std::random_device{}());
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        file << magic << key.size() << "\n" << key << binary;
        if (!file.flush()) {
            file.close();
            fs::remove(temporary, ec);
            return;
        }
    }
    fs::rename(temporary, target, ec);
    if (ec) {
        fs::remove(temporary, ec);
    }
}

} // namespace duet::detail
