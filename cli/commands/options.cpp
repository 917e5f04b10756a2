// Parsing and checking of a command's arguments.
#include "commands/options.hpp"

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
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
            positional_.push_back(arg);
            continue;
        }
        const auto equals = arg.find('=');
        const std::string name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
        const OptionSpec* option = find_option(command, name);
        if (option == nullptr) {
            throw UsageError("duet " + command.name + " has no option --" + name +
                             "; its options: " + known_options(command));
        }
        std::string value;
        if (equals != std::string::npos) {
            if (option->kind == OptionSpec::Kind::flag) {
                throw UsageError("--" + name + " takes no value");
            }
            value = arg.substr(equals + 1);
        } else if (option->kind == OptionSpec::Kind::value || option->kind == OptionSpec::Kind::repeated) {
            if (i + 1 >= args.size()) {
                throw UsageError("--" + name + " needs a value: --" + name + " " + option->value_name);
            }
            value = args[++i];
        } else if (option->kind == OptionSpec::Kind::optional_value && i + 1 < args.size() &&
                   args[i + 1].compare(0, 2, "--") != 0) {
            value = args[++i];
        }
        values_[name].push_back(std::move(value));
    }
    if (positional_.size() < command.min_arguments) {
        throw UsageError("duet " + command.name + " needs " + command.arguments);
    }
    if (positional_.size() > command.max_arguments) {
        throw UsageError("duet " + command.name + ": unexpected argument '" + positional_[command.max_arguments] + "'" +
                         (command.arguments.empty() ? "" : "; it takes " + command.arguments));
    }
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
