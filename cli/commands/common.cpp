// What the commands share: the exit code of a verdict, and the timing rule of the command line.
#include "commands/commands.hpp"

#include "render/describe.hpp"

#include <iostream>

namespace duet::cli {

int exit_code(const Verdict& verdict)
{
    const auto problems = verdict.problems();
    if (problems.empty()) {
        return exit_ok;
    }
    std::cerr << "duet: " << verdict_summary(verdict) << "\n";
    for (const auto& problem : problems) {
        std::cerr << "  " << problem << "\n";
    }
    return exit_wrong;
}

workload::Timing timing_from(const Arguments& arguments)
{
    workload::Timing timing;
    timing.warmup = static_cast<unsigned>(arguments.number("warmup", timing.warmup, 0, 1000));
    if (arguments.has("repeats")) {
        timing =
            workload::Timing::exactly(static_cast<unsigned>(arguments.number("repeats", 1, 1, 100000)), timing.warmup);
    }
    return timing;
}

std::map<std::string, std::string> build_flags_from(const Arguments& arguments)
{
    std::vector<std::string> apis;
    for (const auto& backend : Registry::global().backends()) {
        apis.push_back(backend.name);
    }
    return arguments.api_flags("options", apis);
}

std::string build_flags_for(const std::map<std::string, std::string>& flags, const Device& device)
{
    const auto found = flags.find(device.backend());
    return found == flags.end() ? "" : found->second;
}

void add_unloaded_plugins(Verdict& verdict)
{
    for (const auto& plugin : WorkloadRegistry::global().plugins()) {
        if (plugin.failed()) {
            verdict.add_problem("workload plugin '" + plugin.name + "' did not load (" + plugin.path.string() +
                                "): " + plugin.reason);
        }
    }
}

} // namespace duet::cli
