// `duet cache ls|clear`: the kernel cache's place, its files, what each holds and whether it
// verifies; clearing removes entries and temporary files, never a file duet did not write.
#include "commands/cache.hpp"

#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "render/format.hpp"
#include "render/table.hpp"

#include <duet/cache.hpp>
#include <duet/error.hpp>

#include <ctime>
#include <iostream>

namespace duet::cli {

namespace {

using State = KernelCacheStatus::State;
using Kind = KernelCacheFile::Kind;

std::string state_name(State state)
{
    switch (state) {
    case State::on:
        return "on";
    case State::off:
        return "off";
    case State::unusable:
        return "unusable";
    }
    return "unknown";
}

std::string kind_name(Kind kind)
{
    switch (kind) {
    case Kind::entry:
        return "entry";
    case Kind::temporary:
        return "temporary";
    case Kind::other:
        return "other";
    }
    return "unknown";
}

std::string local_time(std::chrono::system_clock::time_point time)
{
    const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
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

struct Counts {
    std::size_t entries = 0;
    std::size_t invalid = 0;
    std::size_t temporary = 0;
};

Counts count(const KernelCacheListing& listing)
{
    Counts counts;
    for (const auto& file : listing.files) {
        counts.entries += file.kind == Kind::entry ? 1 : 0;
        counts.invalid += file.kind == Kind::entry && !file.valid() ? 1 : 0;
        counts.temporary += file.kind == Kind::temporary ? 1 : 0;
    }
    return counts;
}

/// "4 files, 1.2 MiB; 1 failing verification, rebuilt on next use; 1 temporary file of interrupted writes"
std::string describe(const KernelCacheListing& listing)
{
    const Counts counts = count(listing);
    std::string text = format::count(listing.files.size(), "file") + ", " + format::bytes(listing.bytes);
    if (counts.invalid > 0) {
        text += "; " + std::to_string(counts.invalid) + " failing verification, rebuilt on next use";
    }
    if (counts.temporary > 0) {
        text += "; " + format::count(counts.temporary, "temporary file") + " of interrupted writes";
    }
    return text + (listing.status.exists ? "" : "; created on first use");
}

json::Value listing_json(const KernelCacheListing& listing)
{
    json::Array files;
    for (const auto& file : listing.files) {
        files.push_back(json::Object{{"file", file.path.string()},
                                     {"kind", kind_name(file.kind)},
                                     {"bytes", file.bytes},
                                     {"modified", local_time(file.modified)},
                                     {"valid", file.valid()},
                                     {"problem", file.problem},
                                     {"backend", file.backend},
                                     {"device", file.device},
                                     {"format", file.format},
                                     {"kernels", json::Array(file.kernels.begin(), file.kernels.end())},
                                     {"tuning", file.tuning}});
    }
    return json::Object{{"schema", "duet.cache/2"},
                        {"directory", listing.status.directory.string()},
                        {"state", state_name(listing.status.state)},
                        {"reason", listing.status.reason},
                        {"bytes", listing.bytes},
                        {"entries", std::move(files)}};
}

int list(const Arguments& arguments)
{
    const auto listing = list_kernel_cache();
    if (auto json = Output::from(arguments, "json")) {
        json->write_json(listing_json(listing));
        if (json->is_stdout()) {
            return exit_ok;
        }
    }
    if (listing.status.state == State::off) {
        std::cout << "The kernel cache is off: " << listing.status.reason << ".\n";
        return exit_ok;
    }
    std::cout << "Kernel cache: " << listing.status.directory.string() << " (" << describe(listing) << ")\n";
    if (listing.files.empty()) {
        return exit_ok;
    }
    Table table({{"file"},
                 {"size", Table::Align::right},
                 {"modified"},
                 {"status"},
                 {"backend"},
                 {"device"},
                 {"format"},
                 {"kernels, or the tuner's choice"}});
    for (const auto& file : listing.files) {
        std::vector<std::string> cells{file.path.filename().string(), format::bytes(file.bytes),
                                       local_time(file.modified)};
        if (file.valid()) {
            cells.insert(cells.end(), {"ok", file.backend, truncate(file.device, 36), file.format,
                                       file.tuning.empty() ? joined(file.kernels) : file.tuning});
            table.add_row(std::move(cells));
        } else if (file.kind == Kind::entry) {
            cells.push_back("INVALID");
            table.add_row_with_text(std::move(cells), file.problem + "; rebuilt on next use");
        } else if (file.kind == Kind::temporary) {
            cells.push_back("temporary");
            table.add_row_with_text(std::move(cells), "left by an interrupted write (or one in progress)");
        } else {
            cells.push_back("other");
            table.add_row_with_text(std::move(cells), "not written by duet; clear keeps it");
        }
    }
    table.print(std::cout);
    return exit_ok;
}

int clear()
{
    const auto clearance = clear_kernel_cache();
    if (clearance.directory.empty()) {
        std::cout << "The kernel cache is off; nothing to clear.\n";
        return exit_ok;
    }
    for (const auto& failure : clearance.failures) {
        std::cerr << "duet: cannot remove " << failure << "\n";
    }
    std::cout << "Removed " << format::count(clearance.removed, "file") << " (" << format::bytes(clearance.bytes)
              << ") from " << clearance.directory.string()
              << (clearance.kept > 0 ? "; kept " + format::count(clearance.kept, "file") + " duet did not write" : "")
              << ".\n";
    return clearance.failures.empty() ? exit_ok : exit_wrong;
}

} // namespace

void check_kernel_cache()
{
    try {
        const auto status = kernel_cache_status();
        if (status.state == State::unusable) {
            std::cerr << "note: kernels are built without the disk cache: " << status.reason << "\n";
        }
    } catch (const InvalidArgument& error) {
        throw UsageError(error.message());
    }
}

CacheDiagnosis diagnose_kernel_cache()
{
    CacheDiagnosis diagnosis;
    KernelCacheListing listing;
    std::string problem;
    try {
        listing.status = kernel_cache_status();
        if (listing.status.state == State::unusable) {
            problem = "cannot use the kernel cache: " + listing.status.reason + "; runs build kernels without it";
        } else {
            listing = list_kernel_cache();
        }
    } catch (const Error& error) {
        problem = error.message(); // a bad DUET_CACHE, or a directory that cannot be read
    }
    const auto& status = listing.status;
    const Counts counts = count(listing);
    diagnosis.json = json::Object{{"directory", status.directory.string()},
                                  {"state", problem.empty() ? state_name(status.state) : "unusable"},
                                  {"enabled", problem.empty() && status.state == State::on},
                                  {"reason", problem.empty() ? status.reason : problem},
                                  {"files", listing.files.size()},
                                  {"entries", counts.entries},
                                  {"invalid", counts.invalid},
                                  {"temporary", counts.temporary},
                                  {"bytes", listing.bytes}};
    if (!problem.empty()) {
        diagnosis.ok = false;
        diagnosis.check = problem;
        diagnosis.summary = "NOT USED: " + problem;
    } else if (status.state == State::off) {
        diagnosis.check = "kernel cache off (" + status.reason + ")";
        diagnosis.summary = "off: " + status.reason;
    } else {
        diagnosis.check = "kernel cache " + status.directory.string() + " is usable";
        diagnosis.summary = status.directory.string() + " (" + describe(listing) + ")";
    }
    return diagnosis;
}

int cache_command(const Arguments& arguments)
{
    const std::string& action = arguments.positional().at(0);
    if (action != "ls" && action != "clear") {
        throw UsageError("duet cache takes ls or clear, not '" + action + "'");
    }
    try {
        return action == "ls" ? list(arguments) : clear();
    } catch (const InvalidArgument& error) {
        throw UsageError(error.message()); // a bad DUET_CACHE
    } catch (const Error& error) {
        std::cerr << "duet: " << error.message() << "\n";
        return exit_wrong;
    }
}

} // namespace duet::cli
