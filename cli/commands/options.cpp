// A command's arguments read through CLI11, then checked: unknown options, missing values,
// too few or too many positional arguments, each named in duet's words.
#include "commands/options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>

namespace duet::cli {

namespace {

const OptionSpec* find_option(const CommandSpec& command, const std::string& name)
{
    const auto found = std::find_if(command.options.begin(), command.options.end(),
                                    [&](const OptionSpec& option) { return option.name == name; });
    return found == command.options.end() ? nullptr : &*found;
}

/// The option as CLI11 reads it: a value given again replaces the last (Arguments::value takes
/// the last of its results), a repeated one keeps every occurrence. Optional values are read by
/// take_optional_values instead.
CLI::Option* add_option(CLI::App& app, const OptionSpec& spec)
{
    const std::string name = "--" + spec.name;
    if (spec.kind == OptionSpec::Kind::flag) {
        return app.add_flag(name, spec.help);
    }
    return app.add_option(name, spec.help)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

/// "--device needs a value: --device SEL", from CLI11's "--device: 1 required SEL missing".
std::string missing_value(const CommandSpec& command, const std::string& message)
{
    const std::string name = message.substr(0, message.find(':'));
    const OptionSpec* option = name.size() > 2 ? find_option(command, name.substr(2)) : nullptr;
    if (option == nullptr) {
        return "duet " + command.name + ": " + message;
    }
    return "--" + option->name + " needs a value: --" + option->name + " " + option->value_name;
}

/// Whether `word`, after an optional_value option given without '=', is that option's value: only a
/// file named for it (--json out.json, --csv out.csv) or "-". No workload name, `all` or manifest
/// (*.duet.toml) looks like that, so `duet list --json vector_add` lists vector_add as JSON.
bool is_optional_value(const OptionSpec& option, const std::string& word)
{
    const std::string suffix = "." + option.name;
    return word == "-" || (word.size() > suffix.size() && word.ends_with(suffix));
}

/// The optional_value options of `args` read here rather than by CLI11, which would take whatever
/// word follows as the value: their values go to `values` ("" for none), each word such an option
/// left alone to `left`, with the option, for the message of a command that fails on it; the other
/// arguments are returned.
std::vector<std::string> take_optional_values(const CommandSpec& command, const std::vector<std::string>& args,
                                              std::map<std::string, std::vector<std::string>>& values,
                                              std::map<std::string, std::string>& left)
{
    std::vector<std::string> rest;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const auto equals = arg.find('=');
        const OptionSpec* option =
            arg.size() > 2 && arg.starts_with("--") ? find_option(command, arg.substr(2, equals - 2)) : nullptr;
        if (option == nullptr || option->kind != OptionSpec::Kind::optional_value) {
            rest.push_back(arg);
            continue;
        }
        std::string value;
        if (equals != std::string::npos) {
            value = arg.substr(equals + 1);
        } else if (i + 1 < args.size() && is_optional_value(*option, args[i + 1])) {
            value = args[++i];
        } else if (i + 1 < args.size()) {
            left.emplace(args[i + 1], option->name);
        }
        values[option->name].push_back(std::move(value));
    }
    return rest;
}

std::string known_options(const CommandSpec& command)
{
    std::string text;
    for (const auto& option : command.options) {
        text += (text.empty() ? "--" : ", --") + option.name;
    }
    return text.empty() ? "none" : text;
}

} // namespace

std::vector<std::string> split(const std::string& text, char separator)
{
    std::vector<std::string> pieces;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find(separator, start), text.size());
        if (end > start) {
            pieces.push_back(text.substr(start, end - start));
        }
        start = end + 1;
    }
    return pieces;
}

std::vector<std::string> list_items(const std::string& what, const std::string& text)
{
    if (text.empty()) {
        throw UsageError(what + " has no values");
    }
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        const auto comma = text.find(',', start);
        const auto end = comma == std::string::npos ? text.size() : comma;
        if (end == start) {
            throw UsageError(what + ": '" + text + "' has an empty item (number " + std::to_string(items.size() + 1) +
                             "); remove the extra comma");
        }
        items.push_back(text.substr(start, end - start));
        if (comma == std::string::npos) {
            return items;
        }
        start = comma + 1;
    }
}

std::string command_help(const CommandSpec& command)
{
    std::string text = "usage: duet " + command.name + (command.arguments.empty() ? "" : " " + command.arguments) +
                       (command.options.empty() ? "" : " [options]") + "\n\n" + command.summary + "\n";
    if (!command.options.empty()) {
        text += "\noptions:\n";
        std::size_t width = 0;
        std::vector<std::string> names;
        for (const auto& option : command.options) {
            std::string name = "--" + option.name;
            if (option.kind == OptionSpec::Kind::optional_value) {
                name += " [" + option.value_name + "]";
            } else if (option.kind != OptionSpec::Kind::flag) {
                name += " " + option.value_name;
            }
            width = std::max(width, name.size());
            names.push_back(std::move(name));
        }
        for (std::size_t i = 0; i < names.size(); ++i) {
            text += "  " + names[i] + std::string(width - names[i].size() + 2, ' ') + command.options[i].help + "\n";
        }
    }
    return text;
}

Arguments::Arguments(const CommandSpec& command, const std::vector<std::string>& args)
{
    CLI::App app{command.summary, "duet " + command.name};
    app.set_help_flag(); // main answers --help with command_help(), the text duet has always shown
    app.allow_extras();  // an unknown option is named below, with the options that exist
    std::vector<std::pair<const OptionSpec*, CLI::Option*>> parsed;
    for (const auto& spec : command.options) {
        if (spec.kind != OptionSpec::Kind::optional_value) {
            parsed.emplace_back(&spec, add_option(app, spec));
        }
    }
    app.add_option("arguments", positional_)->expected(0, CLI::detail::expected_max_vector_size);
    const auto rest = take_optional_values(command, args, values_, left_by_option_);
    std::vector<std::string> reversed(rest.rbegin(), rest.rend()); // CLI11 takes them last first
    try {
        app.parse(reversed);
    } catch (const CLI::ArgumentMismatch& error) {
        throw UsageError(missing_value(command, error.what()));
    } catch (const CLI::ParseError& error) {
        throw UsageError("duet " + command.name + ": " + error.what());
    }
    for (const auto& extra : app.remaining()) {
        if (extra.size() > 2 && extra.compare(0, 2, "--") == 0) {
            throw UsageError("duet " + command.name + " has no option " + extra.substr(0, extra.find('=')) +
                             "; its options: " + known_options(command));
        }
        positional_.push_back(extra); // "-x", "--": arguments, as the command's own check will say
    }
    for (const auto& [spec, option] : parsed) {
        if (option->count() == 0) {
            continue;
        }
        auto& values = values_[spec->name];
        if (spec->kind == OptionSpec::Kind::flag) {
            for (const auto& result : option->results()) {
                if (result != "true") {
                    throw UsageError("--" + spec->name + " takes no value");
                }
            }
            values.assign(option->count(), "");
        } else {
            values = option->results();
        }
    }
    if (positional_.size() < command.min_arguments) {
        throw UsageError("duet " + command.name + " needs " + command.arguments);
    }
    if (positional_.size() > command.max_arguments) {
        const std::string& extra = positional_[command.max_arguments];
        // The word one too many, or one before it that --json left alone and so pushed it out.
        std::string note = file_note(extra);
        for (const auto& word : positional_) {
            note = note.empty() ? file_note(word) : note;
        }
        throw UsageError("duet " + command.name + ": unexpected argument '" + extra + "'" +
                         (command.arguments.empty() ? "" : "; it takes " + command.arguments) + note);
    }
}

std::string Arguments::file_note(const std::string& word) const
{
    const auto option = left_by_option_.find(word);
    if (option == left_by_option_.end()) {
        return "";
    }
    const std::string& name = option->second;
    return "\n(--" + name + " takes the next word as its FILE only when it ends in ." + name + " or is -, so '" + word +
           "' was read as an argument; for this file write --" + name + "=" + word + ")";
}

std::optional<std::string> Arguments::value(std::string_view option) const
{
    const auto found = values_.find(std::string(option));
    if (found == values_.end()) {
        return std::nullopt;
    }
    return found->second.back();
}

std::vector<std::string> Arguments::list(std::string_view option) const
{
    std::vector<std::string> items;
    if (const auto found = values_.find(std::string(option)); found != values_.end()) {
        for (const auto& value : found->second) {
            for (auto& item : list_items("--" + std::string(option), value)) {
                items.push_back(std::move(item));
            }
        }
    }
    return items;
}

std::vector<std::pair<std::string, std::string>> Arguments::ordered_assignments(std::string_view option) const
{
    std::vector<std::pair<std::string, std::string>> pairs;
    if (const auto found = values_.find(std::string(option)); found != values_.end()) {
        for (const auto& value : found->second) {
            const auto equals = value.find('=');
            if (equals == std::string::npos || equals == 0) {
                throw UsageError("--" + std::string(option) + " '" + value + "' is not of the form name=value");
            }
            const std::string name = value.substr(0, equals);
            if (std::any_of(pairs.begin(), pairs.end(), [&](const auto& pair) { return pair.first == name; })) {
                throw UsageError("--" + std::string(option) + " names '" + name + "' twice");
            }
            pairs.emplace_back(name, value.substr(equals + 1));
        }
    }
    return pairs;
}

std::map<std::string, std::string> Arguments::assignments(std::string_view option) const
{
    const auto pairs = ordered_assignments(option);
    return {pairs.begin(), pairs.end()};
}

std::map<std::string, std::string> Arguments::api_flags(std::string_view option,
                                                        const std::vector<std::string>& apis) const
{
    std::string api_list;
    for (const auto& api : apis) {
        api_list += (api_list.empty() ? "" : ", ") + api;
    }
    const std::string form = "it takes --" + std::string(option) + " API=FLAGS[,API=FLAGS], API one of: " + api_list;
    // Where the next item starts: a comma followed by a known API and '='.
    const auto next_item = [&](const std::string& value, std::size_t from) {
        for (auto comma = value.find(',', from); comma != std::string::npos; comma = value.find(',', comma + 1)) {
            for (const auto& api : apis) {
                if (value.compare(comma + 1, api.size() + 1, api + "=") == 0) {
                    return comma;
                }
            }
        }
        return std::string::npos;
    };
    std::map<std::string, std::string> flags;
    const auto found = values_.find(std::string(option));
    if (found == values_.end()) {
        return flags;
    }
    for (const auto& value : found->second) {
        for (std::size_t start = 0; start <= value.size();) {
            const auto end = std::min(next_item(value, start), value.size());
            const std::string item = value.substr(start, end - start);
            const auto equals = item.find('=');
            const std::string api = item.substr(0, equals);
            if (equals == std::string::npos) {
                throw UsageError("--" + std::string(option) + " '" + item + "' has no '=': " + form);
            }
            if (std::find(apis.begin(), apis.end(), api) == apis.end()) {
                throw UsageError("--" + std::string(option) + " '" + item + "': '" + api + "' is not an API: " + form);
            }
            if (equals + 1 == item.size()) {
                throw UsageError("--" + std::string(option) + " '" + item + "' gives " + api + " no flags: " + form);
            }
            if (!flags.emplace(api, item.substr(equals + 1)).second) {
                throw UsageError("--" + std::string(option) + " names " + api +
                                 " twice; give its flags in one item, separated by spaces: " + form);
            }
            start = end + 1;
        }
    }
    return flags;
}

std::uint64_t Arguments::number(std::string_view option, std::uint64_t fallback, std::uint64_t min,
                                std::uint64_t max) const
{
    const auto text = value(option);
    if (!text) {
        return fallback;
    }
    std::uint64_t number = 0;
    const auto [rest, error] = std::from_chars(text->data(), text->data() + text->size(), number);
    if (error != std::errc() || rest != text->data() + text->size() || number < min || number > max) {
        throw UsageError("--" + std::string(option) + " is '" + *text + "'; it takes a whole number from " +
                         std::to_string(min) + " to " + std::to_string(max));
    }
    return number;
}

} // namespace duet::cli
