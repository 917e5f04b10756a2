// Where a command's machine-readable output goes: standard output in place of the table, or a
// file opened before any work starts, so that a long run never ends unable to save its results.
// Every write is checked: one that fails is an error naming the file and why, never lost quietly.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "commands/options.hpp"
#include "render/json.hpp"

namespace duet::cli {

/// A write to an output failed (a full disk, a closed pipe); the message names the output and why.
class WriteError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Output {
public:
    /// For an option such as --json [FILE]: nullopt when absent; standard output when given
    /// without a file or with "-"; else FILE, created now. A file that cannot be created is a
    /// UsageError naming it.
    static std::optional<Output> from(const Arguments& arguments, std::string_view option);

    bool is_stdout() const { return !file_; }
    /// "standard output", or the file's path.
    const std::string& name() const { return name_; }
    /// Writes `text` through to the file or standard output; a failed write throws WriteError.
    void write(std::string_view text);
    /// `value`, then a newline.
    void write_json(const json::Value& value);

private:
    struct File;
    std::string name_ = "standard output";
    std::shared_ptr<File> file_; ///< none for standard output
};

/// A folder a command writes files into (--assembly DIR): created where absent and tried with a file
/// written and removed before any work starts, so that one that cannot take files is a UsageError
/// naming it and why, not a run's results lost at its end.
class OutputFolder {
public:
    /// nullopt when `option` is absent, else its folder, checked. Under mpirun, rank 0's alone.
    static std::optional<OutputFolder> from(const Arguments& arguments, std::string_view option);

    /// Writes `text` to the file `name` in the folder, replacing one there; returns its path. A
    /// failed write throws WriteError naming the file and why.
    std::filesystem::path write(const std::string& name, std::string_view text) const;

private:
    std::filesystem::path path_;
};

/// A command's --json, --csv and --report, those of them it has, opened as Output::from opens
/// them once they are known not to clash.
struct Outputs {
    std::optional<Output> json, csv, report;
    bool table = true; ///< whether the table goes to standard output: none of them took it

    /// Throws UsageError when two name the same file (after resolving ".", ".." and links) or
    /// when more than one asks for standard output; checked before any file is created, so a
    /// clash truncates nothing.
    static Outputs open(const Arguments& arguments);

    /// Writes to each output present the text its function makes, trying every one before
    /// reporting: a failure is a WriteError naming every output that could not be written and why.
    void write(const std::function<std::string()>& json_text, const std::function<std::string()>& csv_text,
               const std::function<std::string()>& report_text);
};

} // namespace duet::cli
