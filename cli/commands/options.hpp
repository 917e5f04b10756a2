// The command line's grammar: a command, its positional arguments, and --options checked against
// what that command accepts, so a typo is named instead of ignored. CLI11 reads the arguments;
// the help text and the messages stay duet's own.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/usage_error.hpp"

namespace duet::cli {

struct OptionSpec {
    enum class Kind {
        flag,           ///< --raw
        value,          ///< --device SEL or --device=SEL; given again, the last wins
        repeated,       ///< --set k=v --set k2=v2: every occurrence kept
        optional_value, ///< --json; --json=FILE; --json FILE where FILE ends in .json (the name) or is -
    };
    std::string name; ///< without the leading "--"
    Kind kind = Kind::flag;
    std::string value_name; ///< for the help text: "SEL", "k=v"
    std::string help;
};

struct CommandSpec {
    std::string name;
    std::string arguments{}; ///< for the help text, "<workload|all>"; none when empty
    std::size_t min_arguments = 0;
    std::size_t max_arguments = 0;
    std::string brief;   ///< one line for `duet --help`
    std::string summary; ///< what `duet <command> --help` says
    std::vector<OptionSpec> options;
};

/// The help text of one command: usage line, summary, options.
std::string command_help(const CommandSpec& command);

class Arguments {
public:
    /// Parses `args` (what follows the command name); throws UsageError naming what is wrong.
    Arguments(const CommandSpec& command, const std::vector<std::string>& args);

    const std::vector<std::string>& positional() const { return positional_; }
    bool has(std::string_view option) const { return values_.contains(std::string(option)); }
    /// The last value given, or nullopt; "" for an optional_value given without one.
    std::optional<std::string> value(std::string_view option) const;
    /// Every value of a repeated option, each split at commas: --devices a,b --devices c gives a, b, c
    /// (list_items: an empty item is a UsageError).
    std::vector<std::string> list(std::string_view option) const;
    /// Every value of a repeated k=v option, as a map; a value without '=' or a name given twice
    /// is a UsageError.
    std::map<std::string, std::string> assignments(std::string_view option) const;
    /// Every value of a repeated k=v option in the order given (for --sweep, whose order matters).
    std::vector<std::pair<std::string, std::string>> ordered_assignments(std::string_view option) const;
    /// Every value of a repeated API=FLAGS[,API=FLAGS] option (--options), as API -> FLAGS. A comma
    /// starts the next item only where one of `apis` and '=' follow it, so FLAGS may hold other commas
    /// (opencl=-DLIST=1,2). An item without '=' or naming an API not in `apis`, empty flags, or an
    /// API given twice is a UsageError naming the form and the APIs.
    std::map<std::string, std::string> api_flags(std::string_view option, const std::vector<std::string>& apis) const;
    /// A whole number in [min, max], or `fallback` when the option is absent.
    std::uint64_t number(std::string_view option, std::uint64_t fallback, std::uint64_t min, std::uint64_t max) const;
    /// Where `word` followed --json or --csv but was not taken as its FILE (`--json out`), a note for
    /// the message of a command that fails on it, saying how to give it as the FILE; else "".
    std::string file_note(const std::string& word) const;

private:
    std::vector<std::string> positional_;
    std::map<std::string, std::vector<std::string>> values_;
    std::map<std::string, std::string> left_by_option_; ///< each word an optional_value option left alone -> it
};

/// `text` split at `separator`, keeping empty pieces out.
std::vector<std::string> split(const std::string& text, char separator);

/// The comma-separated items of a list given to `what` ("--devices", "--sweep n"); an empty item
/// ("a,,b", a comma at either end, or nothing at all) is a UsageError naming it, never dropped.
std::vector<std::string> list_items(const std::string& what, const std::string& text);

} // namespace duet::cli
