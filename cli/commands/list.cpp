// `duet list`: every workload the plugins provide, or the one named (a manifest's path too), with
// its variants and parameters.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/workloads.hpp"
#include "render/describe.hpp"
#include "render/records.hpp"
#include "render/table.hpp"

#include <charconv>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <vector>

namespace duet::cli {

namespace {

/// Why `value` of the parameter `name`, the rest at their defaults, cannot run the default variant on
/// `device` ("memory", a rule it breaks, an expression it overflows), or nullopt where it can;
/// without a device, only the rules are asked.
std::optional<std::string> why_not(const Workload& workload, const WorkloadInfo& info, const Device* device,
                                   const std::string& name, std::int64_t value)
{
    try {
        Settings settings(info, {{name, std::to_string(value)}});
        if (device != nullptr) {
            const RunRequest request{*device, info.variants.front(), std::move(settings), true, 1, {}};
            check_fits(workload.footprint(request), *device, info.name);
        }
        return std::nullopt;
    } catch (const OutOfMemory&) {
        return "memory";
    } catch (const Error& error) {
        return error.message();
    } catch (const std::exception& error) {
        return error.what();
    }
}

/// The largest value of [low, high] that works, where not all do, and how the listing says it.
struct Limit {
    /// "; <who>at most X (why X + 1 does not, ...)", "; <who>no single limit: ..." where the values that
    /// work are not all those up to X, "; <who>none works (why)", or ""
    std::string text;
    std::optional<std::int64_t> largest; ///< none where no value found works
};

/// The values of [low, high] a search tries beside its bisection, so that a rule that is no bound
/// (a multiple of another parameter) shows: `usual` (the default), the powers of two, 31 spread
/// evenly, and above `found` the next 16 and found + 2^i.
std::vector<std::int64_t> probes(std::int64_t low, std::int64_t high, std::int64_t found, std::int64_t usual)
{
    std::vector<std::int64_t> values{usual};
    const auto add = [&](std::uint64_t offset, std::int64_t from) {
        // Unsigned, since high - low can exceed int64 (a range from negative to int64's largest).
        if (offset <= static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(from)) {
            values.push_back(static_cast<std::int64_t>(static_cast<std::uint64_t>(from) + offset));
        }
    };
    const std::uint64_t span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    for (std::uint64_t part = 1; part < 32; ++part) {
        add(span / 32 * part, low);
    }
    for (std::uint64_t step = 1; step <= 16; ++step) {
        add(step, found);
    }
    for (int bit = 0; bit < 63; ++bit) {
        add(std::uint64_t{1} << bit, found);
        if (const std::int64_t power = std::int64_t{1} << bit; power >= low) {
            add(static_cast<std::uint64_t>(power) - static_cast<std::uint64_t>(low), low);
        }
    }
    std::erase_if(values, [&](std::int64_t value) { return value < low || value > high; });
    return values;
}

/// Bisection between `low` and `high`, exact where a larger value needs no less memory and each rule
/// between two parameters is a bound. A rule that is no bound ("a multiple of block") shows in the
/// probes: one above the value found that works (128 after 64) takes the search on from there, at
/// most 64 times, and one below it that fails (65 below 128), or a `low` that fails, makes the limit
/// no single one. The value shown always worked: the bisection's lower end is a value tried and found
/// to work.
Limit limit_of(const std::function<std::optional<std::string>(std::int64_t)>& why_not_at, const std::string& who,
               std::int64_t low, std::int64_t high, std::int64_t usual)
{
    const auto reason_at_high = why_not_at(high);
    if (!reason_at_high) {
        return {"", high};
    }
    std::map<std::int64_t, bool> tried; // value -> whether it works
    const auto works = [&](std::int64_t value) {
        const auto [at, fresh] = tried.try_emplace(value, false);
        if (fresh) {
            at->second = !why_not_at(value);
        }
        return at->second;
    };
    // The largest probe above `above` that works.
    const auto largest_probe = [&](std::int64_t from, std::int64_t above) {
        std::optional<std::int64_t> largest;
        for (const std::int64_t value : probes(low, high, from, usual)) {
            if (value > above && (!largest || value > *largest) && value != high && works(value)) {
                largest = value;
            }
        }
        return largest;
    };
    std::optional<std::int64_t> found = works(low) ? std::optional(low) : largest_probe(low, low);
    if (!found) {
        return {"; " + who + "none works (" + *why_not_at(low) + ")", std::nullopt};
    }
    bool single = *found == low;
    std::int64_t largest = *found;
    std::string reason = *reason_at_high;
    for (int search = 1;; ++search) {
        std::int64_t top = high; // fails
        reason = *reason_at_high;
        const auto distance = [&] { return static_cast<std::uint64_t>(top) - static_cast<std::uint64_t>(largest); };
        while (distance() > 1) {
            const auto middle = static_cast<std::int64_t>(static_cast<std::uint64_t>(largest) + distance() / 2);
            if (auto why = why_not_at(middle)) {
                top = middle;
                reason = std::move(*why);
            } else {
                largest = middle;
            }
        }
        const auto above = search < 64 ? largest_probe(largest, largest + 1) : std::nullopt;
        if (!above) {
            break;
        }
        single = false;
        largest = *above;
    }
    for (const std::int64_t value : probes(low, high, largest, usual)) {
        single = single && (value > largest || works(value));
    }
    if (single) {
        return {"; " + who + "at most " + std::to_string(largest) + " (" + reason + ", the rest at defaults)", largest};
    }
    return {"; " + who + "no single limit: the largest value found to work is " + std::to_string(largest) +
                ", and some below it do not (" + reason + ", the rest at defaults)",
            largest};
}

/// Where less than an integer parameter's range works, the others at their defaults and the
/// default variant: first what the rules between parameters allow, then per device what its memory
/// or the host's allows ("; opencl:0: at most 178956970 (memory, ...)").
std::string parameter_limits(const Workload& workload, const WorkloadInfo& info, const WorkloadParameter& parameter)
{
    if (parameter.type != WorkloadParameter::Type::integer) {
        return "";
    }
    const std::int64_t low = integer_min(parameter);
    std::int64_t usual = low; // the default, which the search tries too
    std::from_chars(parameter.default_value.data(), parameter.default_value.data() + parameter.default_value.size(),
                    usual);
    const Limit rules =
        limit_of([&](std::int64_t value) { return why_not(workload, info, nullptr, parameter.name, value); }, "", low,
                 integer_max(parameter), usual);
    std::string text = rules.text;
    if (!rules.largest) {
        return text;
    }
    for (const auto& device : Registry::global().devices()) {
        text += limit_of([&](std::int64_t value) { return why_not(workload, info, &device, parameter.name, value); },
                         device.selector() + ": ", low, *rules.largest, usual)
                    .text;
    }
    return text;
}

/// On standard error, each plugin that did not load with why, and each that another file shadows.
void report_plugins(const WorkloadRegistry& registry)
{
    for (const auto& plugin : registry.plugins()) {
        if (!plugin.shadowed_by.empty()) {
            std::cerr << "duet: note: workload plugin " << plugin.name << " (" << plugin.path.string()
                      << ") is not used: " << plugin.reason << "\n";
        } else if (!plugin.loaded) {
            std::cerr << "duet: workload plugin " << plugin.name << " (" << plugin.path.string()
                      << ") did not load: " << plugin.reason << "\n";
        }
    }
}

} // namespace

int list_command(const Arguments& arguments)
{
    const auto& registry = WorkloadRegistry::global();
    report_plugins(registry);
    // One workload, by name or a manifest's path, or all of them.
    const auto workloads = arguments.positional().empty()
                               ? registry.workloads()
                               : std::vector<std::shared_ptr<const Workload>>{find_workload(arguments.positional()[0])};
    auto json = Output::from(arguments, "json");
    if (json) {
        json::Array described;
        for (const auto& workload : workloads) {
            described.push_back(workload_json(workload->info()));
        }
        json->write_json(json::Object{{"schema", "duet.list/1"}, {"workloads", std::move(described)}});
        if (json->is_stdout()) {
            return exit_ok;
        }
    }
    if (workloads.empty()) {
        std::cout << "No workloads: no workload plugin loaded (`duet doctor` says where duet looked).\n";
    }
    for (const auto& workload : workloads) {
        const auto info = workload->info();
        std::cout << info.name << ": " << info.description << "\n  variant"
                  << (info.variants.size() == 1 ? ": " : "s: ");
        for (std::size_t i = 0; i < info.variants.size(); ++i) {
            std::cout << (i == 0 ? "" : ", ") << info.variants[i]
                      << (i == 0 && info.variants.size() > 1 ? " (the default)" : "");
        }
        std::cout << "\n";
        Table table({{"parameter"}, {"default", Table::Align::right}, {"accepts"}, {"variants"}, {"meaning"}});
        for (const auto& parameter : info.parameters) {
            std::string variants;
            for (const auto& variant : parameter.variants) {
                variants += (variants.empty() ? "" : ", ") + variant;
            }
            table.add_row({parameter.name, parameter.default_value,
                           accepted_values(parameter) + parameter_limits(*workload, info, parameter),
                           variants.empty() ? "all" : variants, parameter.help});
        }
        table.print(std::cout, "    ");
        for (const auto& rule : info.rules) {
            std::string names;
            for (const auto& name : rule.parameters) {
                names += (names.empty() ? "" : ", ") + name;
            }
            std::cout << "    rule (" << names << "): " << rule.text << "\n";
        }
        std::cout << "\n";
    }
    return exit_ok;
}

} // namespace duet::cli
