// `duet cache ls|clear`: the kernel cache's place, its files and what each holds; clearing
// removes only files the core wrote (its header, or its temporary-file names).
#include "cache.hpp"

#include "commands.hpp"
#include "format.hpp"
#include "json.hpp"
#include "output.hpp"
#include "table.hpp"

#include <duet/program.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

namespace duet::cli {

namespace fs = std::filesystem;

namespace {

/// The core's file layout (core/src/cache.cpp): "duet-program-cache 1\n<key length>\n<key><binary>",
/// where the key holds "backend ...", "device ...", "format ..." lines and then the source.
constexpr std::string_view cache_magic = "duet-program-cache ";

void describe(CacheEntry& entry)
{
    std::ifstream file(entry.file, std::ios::binary);
    std::string magic, key_length;
    if (!std::getline(file, magic) || magic.compare(0, cache_magic.size(), cache_magic) != 0 ||
        !std::getline(file, key_length)) {
        return;
    }
    entry.is_duet_file = true;
    std::string key(std::min<std::uint64_t>(std::strtoull(key_length.c_str(), nullptr, 10), entry.bytes), '\0');
    file.read(key.data(), static_cast<std::streamsize>(key.size()));
    std::istringstream lines(key);
    for (std::string line; std::getline(lines, line) && line != "source";) {
        const auto space = line.find(' ');
        const std::string field = line.substr(0, space),
                          value = space == std::string::npos ? "" : line.substr(space + 1);
        if (field == "backend") {
            entry.backend = value.substr(0, value.find(' '));
        } else if (field == "device") {
            entry.device = value;
        } else if (field == "format") {
            entry.format = value;
        }
    }
    static const std::regex kernel(R"((?:__kernel|__global__)\s+void\s+(\w+))");
    for (std::sregex_iterator match(key.begin(), key.end(), kernel), end; match != end; ++match) {
        entry.kernels.push_back((*match)[1]);
    }
}

bool is_temporary(const fs::path& file)
{
    return file.filename().string().find(".bin.tmp.") != std::string::npos;
}

std::string local_time(fs::file_time_type time)
{
    const auto system = std::chrono::file_clock::to_sys(time);
    const std::time_t seconds = std::chrono::system_clock::to_time_t(system);
    std::tm local{};
    ::localtime_r(&seconds, &local);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &local);
    return text;
}

std::string joined(const std::vector<std::string>& names)
{
    std::string text;
    for (const auto& name : names) {
        text += (text.empty() ? "" : " ") + name;
    }
    return text;
}

int list(const Arguments& arguments)
{
    const auto listing = read_cache();
    auto json = Output::from(arguments, "json");
    if (json) {
        json::Array entries;
        for (const auto& entry : listing.entries) {
            entries.push_back(json::Object{{"file", entry.file.string()},
                                           {"bytes", entry.bytes},
                                           {"modified", local_time(entry.modified)},
                                           {"duet_file", entry.is_duet_file},
                                           {"backend", entry.backend},
                                           {"device", entry.device},
                                           {"format", entry.format},
                                           {"kernels", json::Array(entry.kernels.begin(), entry.kernels.end())}});
        }
        json->write_json(json::Object{{"schema", "duet.cache/1"},
                                      {"directory", listing.directory.string()},
                                      {"enabled", !listing.directory.empty()},
                                      {"bytes", listing.bytes},
                                      {"entries", std::move(entries)}});
        if (json->is_stdout()) {
            return exit_ok;
        }
    }
    if (listing.directory.empty()) {
        std::cout << "The kernel cache is off: " << cache_off_reason() << ".\n";
        return exit_ok;
    }
    std::cout << "Kernel cache: " << listing.directory.string() << " (" << listing.entries.size() << " files, "
              << format::bytes(listing.bytes) << (listing.exists ? "" : "; not created yet") << ")\n";
    if (listing.entries.empty()) {
        return exit_ok;
    }
    Table table(
        {{"file"}, {"size", Table::Align::right}, {"modified"}, {"backend"}, {"device"}, {"format"}, {"kernels"}});
    for (const auto& entry : listing.entries) {
        table.add_row({entry.file.filename().string(), format::bytes(entry.bytes), local_time(entry.modified),
                       entry.is_duet_file ? entry.backend : "(not a duet cache file)", truncate(entry.device, 36),
                       entry.format, joined(entry.kernels)});
    }
    table.print(std::cout);
    return exit_ok;
}

int clear()
{
    const auto listing = read_cache();
    if (listing.directory.empty()) {
        std::cout << "The kernel cache is off; nothing to clear.\n";
        return exit_ok;
    }
    std::size_t removed = 0, kept = 0;
    std::uint64_t bytes = 0;
    for (const auto& entry : listing.entries) {
        std::error_code error;
        if ((entry.is_duet_file || is_temporary(entry.file)) && fs::remove(entry.file, error)) {
            ++removed;
            bytes += entry.bytes;
        } else if (error) {
            std::cerr << "duet: cannot remove " << entry.file.string() << ": " << error.message() << "\n";
            ++kept;
        } else {
            ++kept;
        }
    }
    std::cout << "Removed " << format::count(removed, "file") << " (" << format::bytes(bytes) << ") from "
              << listing.directory.string()
              << (kept > 0 ? "; kept " + std::to_string(kept) + " that duet did not write or could not remove" : "")
              << ".\n";
    return exit_ok;
}

} // namespace

std::string cache_off_reason()
{
    const char* setting = std::getenv("DUET_CACHE");
    return setting != nullptr && (std::string(setting) == "off" || std::string(setting) == "0")
               ? "DUET_CACHE=" + std::string(setting)
               : "no directory to keep it in (set DUET_CACHE_DIR, XDG_CACHE_HOME or HOME)";
}

CacheListing read_cache()
{
    CacheListing listing;
    listing.directory = program_cache_directory();
    std::error_code error;
    listing.exists = !listing.directory.empty() && fs::is_directory(listing.directory, error);
    if (!listing.exists) {
        return listing;
    }
    for (const auto& item : fs::directory_iterator(listing.directory, error)) {
        if (!item.is_regular_file(error)) {
            continue;
        }
        CacheEntry entry;
        entry.file = item.path();
        entry.bytes = item.file_size(error);
        entry.modified = item.last_write_time(error);
        describe(entry);
        listing.bytes += entry.bytes;
        listing.entries.push_back(std::move(entry));
    }
    std::sort(listing.entries.begin(), listing.entries.end(),
              [](const CacheEntry& a, const CacheEntry& b) { return a.modified > b.modified; });
    return listing;
}

int cache_command(const Arguments& arguments)
{
    const std::string& action = arguments.positional().at(0);
    if (action == "ls") {
        return list(arguments);
    }
    if (action == "clear") {
        return clear();
    }
    throw UsageError("duet cache takes ls or clear, not '" + action + "'");
}

} // namespace duet::cli
