// `duet list`: every workload the plugins provide, or the one named (a manifest's path too), with
// its variants and parameters.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/workloads.hpp"
#include "render/describe.hpp"
#include "render/records.hpp"
#include "render/table.hpp"

#include <cstdint>
#include <functional>
#include <iostream>
#include <optional>

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
    std::string text; ///< "; <who>at most X (why X + 1 does not, ...)", "; <who>none works (why)", or ""
    std::optional<std::int64_t> largest; ///< none where not even `low` works
};

/// Bisection between `low` and `high`: a larger value needs no less memory, and the rules a workload
/// states between two parameters are bounds.
Limit limit_of(const std::function<std::optional<std::string>(std::int64_t)>& why_not_at, const std::string& who,
               std::int64_t low, std::int64_t high)
{
    auto reason = why_not_at(high);
    if (!reason) {
        return {"", high};
    }
    if (const auto at_low = why_not_at(low)) {
        return {"; " + who + "none works (" + *at_low + ")", std::nullopt};
    }
    // Unsigned, since high - low can exceed int64 (a range from negative to int64's largest).
    const auto distance = [&] { return static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low); };
    while (distance() > 1) {
        const auto middle = static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + distance() / 2);
        if (auto why = why_not_at(middle)) {
            high = middle;
            reason = std::move(why);
        } else {
            low = middle;
        }
    }
    return {"; " + who + "at most " + std::to_string(low) + " (" + *reason + ", the rest at defaults)", low};
}

/// Where less than an integer parameter's range works, the others at their defaults and the
/// default variant: first what the rules between parameters allow, then per device what its memory
/// or the host's allows ("; opencl:0: at most 178956970 (memory, ...)").
std::string parameter_limits(const Workload& workload, const WorkloadInfo& info, const WorkloadParameter& parameter)
{
    if (parameter.type != WorkloadParameter::Type::integer) {
        return "";
    }
    const std::int64_t low = integer_bound(parameter.min);
    const Limit rules =
        limit_of([&](std::int64_t value) { return why_not(workload, info, nullptr, parameter.name, value); }, "", low,
                 integer_bound(parameter.max));
    std::string text = rules.text;
    if (!rules.largest) {
        return text;
    }
    for (const auto& device : Registry::global().devices()) {
        text += limit_of([&](std::int64_t value) { return why_not(workload, info, &device, parameter.name, value); },
                         device.selector() + ": ", low, *rules.largest)
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
