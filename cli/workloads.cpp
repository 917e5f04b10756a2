// Workload lookup and the checks that turn a bad name or value into a message, not a stack trace.
#include "workloads.hpp"

#include "format.hpp"
#include "options.hpp"

#include <algorithm>

namespace duet::cli {

std::shared_ptr<const Workload> find_workload(const std::string& name)
{
    try {
        return WorkloadRegistry::global().find(name);
    } catch (const NotFound& error) {
        throw UsageError(error.message());
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

std::string accepted_values(const WorkloadParameter& parameter)
{
    switch (parameter.type) {
    case WorkloadParameter::Type::integer:
        return "integer " + format::exact(parameter.min) + ".." + format::exact(parameter.max);
    case WorkloadParameter::Type::real:
        return "real " + format::exact(parameter.min) + ".." + format::exact(parameter.max);
    case WorkloadParameter::Type::choice: {
        std::string text = "one of ";
        for (std::size_t i = 0; i < parameter.choices.size(); ++i) {
            text += (i == 0 ? "" : ", ") + parameter.choices[i];
        }
        return text;
    }
    }
    return "";
}

json::Value workload_json(const WorkloadInfo& info)
{
    json::Array variants, parameters;
    for (const auto& variant : info.variants) {
        variants.push_back(variant);
    }
    for (const auto& parameter : info.parameters) {
        json::Object object{{"name", parameter.name}, {"default", parameter.default_value}, {"help", parameter.help}};
        switch (parameter.type) {
        case WorkloadParameter::Type::integer:
        case WorkloadParameter::Type::real:
            object.emplace_back("type", parameter.type == WorkloadParameter::Type::integer ? "integer" : "real");
            object.emplace_back("min", parameter.min);
            object.emplace_back("max", parameter.max);
            break;
        case WorkloadParameter::Type::choice: {
            json::Array choices(parameter.choices.begin(), parameter.choices.end());
            object.emplace_back("type", "choice");
            object.emplace_back("choices", std::move(choices));
            break;
        }
        }
        object.emplace_back("variants", json::Array(parameter.variants.begin(), parameter.variants.end()));
        parameters.push_back(std::move(object));
    }
    json::Array rules;
    for (const auto& rule : info.rules) {
        rules.push_back(json::Object{{"parameters", json::Array{rule.first, rule.second}}, {"rule", rule.text}});
    }
    return json::Object{{"name", info.name},
                        {"description", info.description},
                        {"variants", std::move(variants)},
                        {"parameters", std::move(parameters)},
                        {"rules", std::move(rules)}};
}

json::Value settings_json(const WorkloadInfo& info, const std::map<std::string, std::string>& values)
{
    json::Object object;
    for (const auto& parameter : info.parameters) {
        const auto value = values.find(parameter.name);
        if (value == values.end()) {
            continue;
        }
        // Settings accepted the text, so it parses as the parameter's type.
        switch (parameter.type) {
        case WorkloadParameter::Type::integer:
            object.emplace_back(parameter.name, std::stoll(value->second));
            break;
        case WorkloadParameter::Type::real:
            object.emplace_back(parameter.name, std::stod(value->second));
            break;
        case WorkloadParameter::Type::choice:
            object.emplace_back(parameter.name, value->second);
            break;
        }
    }
    return object;
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
