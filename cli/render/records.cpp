// Model objects as JSON: numbers stay numbers, absent figures are null.
#include "render/records.hpp"

#include "model/environment.hpp"
#include "render/format.hpp"

namespace duet::cli {

json::Value timing_json(const workload::Timing& timing)
{
    return json::Object{{"warmup", timing.warmup},
                        {"min_runs", timing.min_runs},
                        {"max_runs", timing.max_runs},
                        {"budget_ms", timing.budget_ms},
                        {"precision", timing.precision}};
}

namespace {

json::Value summary_json(const workload::Summary& summary)
{
    return json::Object{{"median", summary.median}, {"low", summary.low}, {"high", summary.high},
                        {"min", summary.min},       {"max", summary.max}, {"count", summary.count}};
}

json::Value ratio_json(const workload::Ratio& ratio)
{
    if (!ratio.valid()) {
        return json::Value();
    }
    return json::Object{{"value", ratio.value}, {"low", ratio.low}, {"high", ratio.high}, {"parity", ratio.parity()}};
}

} // namespace

json::Value agreement_json(const workload::Agreement& agreement)
{
    json::Array histogram;
    for (std::size_t bucket = 0; bucket < agreement.histogram.size(); ++bucket) {
        if (agreement.histogram[bucket] > 0) {
            histogram.push_back(
                json::Object{{"ulps", workload::histogram_label(bucket)}, {"count", agreement.histogram[bucket]}});
        }
    }
    const bool nan = agreement.max_ulps == UINT64_MAX;
    return json::Object{{"element_type", std::string(workload::to_string(agreement.type))},
                        {"count", agreement.count},
                        {"differing", agreement.differing},
                        {"beyond_tolerance", agreement.beyond_tolerance},
                        {"max_error", agreement.max_error},
                        {"max_error_at", agreement.where(agreement.max_error_index)},
                        {"max_ulps", nan ? json::Value("NaN") : json::Value(agreement.max_ulps)},
                        {"max_ulps_at", agreement.where(agreement.max_ulps_index)},
                        {"ulp_histogram", std::move(histogram)}};
}

namespace {

json::Value comparison_json(const workload::Comparison& comparison)
{
    if (!comparison.compared()) {
        return json::Value();
    }
    return json::Object{{"with", comparison.with},
                        {"allowed", comparison.allowed},
                        {"agreement", agreement_json(comparison.agreement)}};
}

} // namespace

json::Value run_json(const Run& run)
{
    const auto& m = run.measurement;
    const auto measured = [&](double value) { return run.measured() ? json::Value(value) : json::Value(); };
    const auto statistics = [&](const workload::Summary& summary) {
        return run.measured() ? summary_json(summary) : json::Value();
    };
    json::Object extras;
    for (const auto& [name, value] : m.extras) {
        extras.emplace_back(name, value);
    }
    return json::Object{
        {"workload", run.job.info.name},
        {"variant", run.job.variant},
        {"settings", settings_json(run.job.info, run.job.settings.values())},
        {"device", run.job.label},
        {"selector", run.job.device.selector()},
        {"device_name", run.job.device.properties().name},
        {"api", api_label(run.job.device)},
        {"status", to_string(run.status)},
        {"reason", run.reason},
        {"samples", m.samples.size()},
        {"h2d_ms", measured(m.h2d_ms)},
        {"kernel_ms", measured(m.kernel_ms)},
        {"d2h_ms", measured(m.d2h_ms)},
        {"total_ms", measured(m.total_ms)},
        {"statistics", run.measured() ? json::Value(json::Object{{"h2d_ms", statistics(m.summary(Phase::h2d))},
                                                                 {"kernel_ms", statistics(m.summary(Phase::kernel))},
                                                                 {"d2h_ms", statistics(m.summary(Phase::d2h))},
                                                                 {"total_ms", statistics(m.total_summary())},
                                                                 {"rate_ms", statistics(m.rate_summary())}})
                                      : json::Value()},
        {"reference_ms", measured(m.reference_ms)},
        {"rate", measured(m.rate())},
        {"rate_unit", rate_unit(m.unit)},
        {"work", measured(m.work)},
        {"max_error", measured(m.max_error)},
        {"tolerance", measured(m.tolerance)},
        {"tolerance_reason", m.tolerance_reason},
        {"agreement", m.verified ? agreement_json(m.agreement) : json::Value()},
        {"baseline", run.device.with},
        {"difference", run.device.compared() ? json::Value(run.device.agreement.max_error) : json::Value()},
        {"allowed_difference", run.device.compared() ? json::Value(run.device.allowed) : json::Value()},
        {"device_agreement", comparison_json(run.device)},
        {"variant_agreement", comparison_json(run.variant)},
        {"extras", std::move(extras)}};
}

json::Value pair_json(const ApiPair& pair)
{
    const auto value = [](const workload::Ratio& ratio) {
        return ratio.valid() ? json::Value(ratio.value) : json::Value();
    };
    return json::Object{{"workload", pair.workload},
                        {"variant", pair.variant},
                        {"gpu", pair.gpu},
                        {"pci_bus_id", pair.pci_bus_id},
                        {"cuda", pair.cuda_label},
                        {"opencl", pair.opencl_label},
                        {"kernel_ratio", value(pair.kernel)},
                        {"total_ratio", value(pair.total)},
                        {"kernel", ratio_json(pair.kernel)},
                        {"total", ratio_json(pair.total)},
                        {"verdict", format::ratio_verdict(pair.total)}};
}

json::Value counts_json(const Verdict& verdict)
{
    const auto counts = verdict.counts();
    return json::Object{{"total", counts.total}, {"checked", counts.checked},         {"ok", counts.ok},
                        {"wrong", counts.wrong}, {"unsupported", counts.unsupported}, {"failed", counts.failed}};
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

} // namespace duet::cli
