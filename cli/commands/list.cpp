// `duet list`: every workload the plugins provide, or the one named (a manifest's path too), with
// its variants and parameters.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/workloads.hpp"
#include "render/describe.hpp"
#include "render/records.hpp"
#include "render/table.hpp"

#include <iostream>

namespace duet::cli {

namespace {

bool fits(const Workload& workload, const WorkloadInfo& info, const Device& device, const std::string& name,
          std::int64_t value)
{
    try {
        const RunRequest request{
            device, info.variants.front(), Settings(info, {{name, std::to_string(value)}}), true, 1, {}};
        check_fits(workload.footprint(request), device, info.name);
        return true;
    } catch (const OutOfMemory&) {
        return false;
    }
}

/// Where the memory of a device or of the host allows less than an integer parameter's range (the
/// others at their defaults, the default variant): "; opencl:0: at most 178956970 (...)" per device.
std::string device_limits(const Workload& workload, const WorkloadInfo& info, const WorkloadParameter& parameter)
{
    std::string text;
    if (parameter.type != WorkloadParameter::Type::integer) {
        return text;
    }
    for (const auto& device : Registry::global().devices()) {
        auto low = static_cast<std::int64_t>(parameter.min);
        auto high = static_cast<std::int64_t>(parameter.max);
        if (fits(workload, info, device, parameter.name, high)) {
            continue;
        }
        if (!fits(workload, info, device, parameter.name, low)) {
            text += "; " + device.selector() + ": none fits its memory";
            continue;
        }
        while (high - low > 1) { // low fits, high does not: footprints grow with every size
            const std::int64_t middle = low + (high - low) / 2;
            (fits(workload, info, device, parameter.name, middle) ? low : high) = middle;
        }
        text += "; " + device.selector() + ": at most " + std::to_string(low) + " (memory, the rest at defaults)";
    }
    return text;
}

} // namespace

int list_command(const Arguments& arguments)
{
    const auto& registry = WorkloadRegistry::global();
    for (const auto& plugin : registry.plugins()) {
        if (!plugin.loaded) {
            std::cerr << "duet: workload plugin " << plugin.name << " (" << plugin.path.string()
                      << ") did not load: " << plugin.reason << "\n";
        }
    }
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
                           accepted_values(parameter) + device_limits(*workload, info, parameter),
                           variants.empty() ? "all" : variants, parameter.help});
        }
        table.print(std::cout, "    ");
        for (const auto& rule : info.rules) {
            std::cout << "    rule (" << rule.first << ", " << rule.second << "): " << rule.text << "\n";
        }
        std::cout << "\n";
    }
    return exit_ok;
}

} // namespace duet::cli
