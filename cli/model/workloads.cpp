// Workload lookup and the checks that turn a bad name or value into a message, not a stack trace.
#include "model/workloads.hpp"

#include "model/usage_error.hpp"

#include <duet/manifest.hpp>

#include <algorithm>

namespace duet::cli {

std::shared_ptr<const Workload> find_workload(const std::string& name)
{
    try {
        // A manifest's path runs the kernel pair it describes; a bad manifest is a usage error.
        if (workload::is_manifest(name)) {
            return workload::load_manifest(name);
        }
    } catch (const NotFound& error) {
        throw UsageError(error.message());
    } catch (const InvalidArgument& error) {
        throw UsageError(error.message());
    }
    try {
        return WorkloadRegistry::global().find(name);
    } catch (const NotFound& error) {
        throw UnknownWorkload(name, error.message());
    }
}

const std::vector<std::shared_ptr<const Workload>>& all_workloads()
{
    const auto& workloads = WorkloadRegistry::global().workloads();
    if (workloads.empty()) {
        throw UsageError("no workload plugin loaded; `duet doctor` says where duet looked and why");
    }
    return workloads;
}

std::string describe_settings(const WorkloadInfo& info, const std::map<std::string, std::string>& values)
{
    std::string text;
    for (const auto& parameter : info.parameters) {
        if (const auto value = values.find(parameter.name); value != values.end()) {
            text += (text.empty() ? "" : " ") + parameter.name + "=" + value->second;
        }
    }
    return text;
}

std::vector<std::string> pick_variants(const WorkloadInfo& info, const std::vector<std::string>& wanted)
{
    if (wanted.empty()) {
        return info.variants;
    }
    for (const auto& variant : wanted) {
        if (std::find(info.variants.begin(), info.variants.end(), variant) == info.variants.end()) {
            std::string known;
            for (const auto& name : info.variants) {
                known += (known.empty() ? "" : ", ") + name;
            }
            throw UsageError("workload '" + info.name + "' has no variant '" + variant + "'; its variants: " + known);
        }
    }
    return wanted;
}

Settings make_settings(const WorkloadInfo& info, const std::map<std::string, std::string>& values)
{
    try {
        return Settings(info, values);
    } catch (const InvalidArgument& error) {
        throw UsageError(error.message());
    }
}

} // namespace duet::cli
