// `duet list`: every workload the plugins provide, with its variants and parameters.
#include "commands.hpp"
#include "output.hpp"
#include "table.hpp"
#include "workloads.hpp"

#include <iostream>

namespace duet::cli {

int list_command(const Arguments& arguments)
{
    const auto& registry = WorkloadRegistry::global();
    for (const auto& plugin : registry.plugins()) {
        if (!plugin.loaded) {
            std::cerr << "duet: workload plugin " << plugin.name << " (" << plugin.path.string()
                      << ") did not load: " << plugin.reason << "\n";
        }
    }
    auto json = Output::from(arguments, "json");
    if (json) {
        json::Array workloads;
        for (const auto& workload : registry.workloads()) {
            workloads.push_back(workload_json(workload->info()));
        }
        json->write_json(json::Object{{"schema", "duet.list/1"}, {"workloads", std::move(workloads)}});
        if (json->is_stdout()) {
            return exit_ok;
        }
    }
    if (registry.workloads().empty()) {
        std::cout << "No workloads: no workload plugin loaded (`duet doctor` says where duet looked).\n";
    }
    for (const auto& workload : registry.workloads()) {
        const auto info = workload->info();
        std::cout << info.name << ": " << info.description << "\n  variant"
                  << (info.variants.size() == 1 ? ": " : "s: ");
        for (std::size_t i = 0; i < info.variants.size(); ++i) {
            std::cout << (i == 0 ? "" : ", ") << info.variants[i]
                      << (i == 0 && info.variants.size() > 1 ? " (the default)" : "");
        }
        std::cout << "\n";
        Table table({{"parameter"}, {"default", Table::Align::right}, {"accepts"}, {"meaning"}});
        for (const auto& parameter : info.parameters) {
            table.add_row({parameter.name, parameter.default_value, accepted_values(parameter), parameter.help});
        }
        table.print(std::cout, "    ");
        std::cout << "\n";
    }
    return exit_ok;
}

} // namespace duet::cli
