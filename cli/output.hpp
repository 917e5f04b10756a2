// Where a command's machine-readable output goes: standard output in place of the table, or a
// file opened before any work starts, so that a long run never ends unable to save its results.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <string_view>

#include "json.hpp"
#include "options.hpp"

namespace duet::cli {

class Output {
public:
    /// For an option such as --json [FILE]: nullopt when absent; standard output when given
    /// without a file (or with "-"); else FILE, created now. A file that cannot be created is a
    /// UsageError naming it.
    static std::optional<Output> from(const Arguments& arguments, std::string_view option);
    /// FILE itself, created now; for options whose value is required (--report FILE).
    static Output file(const std::filesystem::path& path);

    bool is_stdout() const { return !file_; }
    std::ostream& stream();
    /// `value`, then a newline.
    void write_json(const json::Value& value);

private:
    std::unique_ptr<std::ofstream> file_; ///< none for standard output
};

/// The command's table goes to standard output unless one of `outputs` took it; two outputs
/// asking for standard output is a UsageError.
bool table_wanted(std::initializer_list<const std::optional<Output>*> outputs);

} // namespace duet::cli
