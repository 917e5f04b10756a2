// Model objects as JSON: numbers stay numbers, absent figures are null.
#include "render/records.hpp"

#include "model/environment.hpp"
#include "model/roofline.hpp"
#include "model/workloads.hpp"
#include "render/environment.hpp"
#include "render/format.hpp"

namespace duet::cli {

json::Value timing_json(const workload::Timing& timing, bool in_turns)
{
    return json::Object{{"warmup", timing.warmup},       {"min_runs", timing.min_runs},   {"max_runs", timing.max_runs},
                        {"budget_ms", timing.budget_ms}, {"precision", timing.precision}, {"in_turns", in_turns}};
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
    const auto ulps = [](std::uint64_t value) { return value == UINT64_MAX ? json::Value("NaN") : json::Value(value); };
    return json::Object{{"element_type", std::string(workload::to_string(agreement.type))},
                        {"count", agreement.count},
                        {"unwritten_left_out", agreement.skipped},
                        {"differing", agreement.differing},
                        {"beyond_tolerance", agreement.beyond_tolerance},
                        {"max_error", agreement.max_error},
                        {"max_error_at", agreement.where(agreement.max_error_index)},
                        {"max_ulps", ulps(agreement.max_ulps)},
                        {"max_ulps_at", agreement.where(agreement.max_ulps_index)},
                        {"max_scaled_ulps", ulps(agreement.max_scaled_ulps)},
                        {"max_scaled_ulps_at", agreement.where(agreement.max_scaled_ulps_index)},
                        {"ulp_histogram", std::move(histogram)}};
}

namespace {

/// A run against the base of its group (`with`), or, for the base, the runs that agreed with it
/// (`confirmed_by`, the widest of their agreements); null where neither.
json::Value cross_check_json(const workload::Comparison& comparison)
{
    if (!comparison.compared() && !comparison.base) {
        return json::Value();
    }
    const bool agreed = comparison.compared() || comparison.confirmed();
    return json::Object{{"with", comparison.compared() ? json::Value(comparison.with) : json::Value()},
                        {"base", comparison.base},
                        {"confirmed_by", comparison.base ? json::Value(comparison.confirmed_by) : json::Value()},
                        {"allowed", agreed ? json::Value(comparison.allowed) : json::Value()},
                        {"agreement", agreed ? agreement_json(comparison.agreement) : json::Value()}};
}

/// What the runner's check pass found of the outputs' writes (its sentinels held, or the run
/// failed); null where it made none.
json::Value writes_json(const workload::Writes& writes, workload::Shape shape)
{
    if (!writes.checked) {
        return json::Value();
    }
    json::Array outputs;
    for (const auto& output : writes.outputs) {
        const bool any = output.unwritten > 0;
        outputs.push_back(json::Object{{"name", output.name},
                                       {"elements", output.size},
                                       {"unwritten", output.unwritten},
                                       {"first_at", any ? json::Value(where(output.first, shape)) : json::Value()},
                                       {"last_at", any ? json::Value(where(output.last, shape)) : json::Value()}});
    }
    return json::Object{{"judged", writes.judged}, {"unwritten", writes.unwritten}, {"outputs", std::move(outputs)}};
}

/// A device's peak for a run's rate, with its unit and what it is of; null where unknown.
json::Value peak_json(const std::optional<Peak>& peak)
{
    if (!peak) {
        return json::Value();
    }
    return json::Object{{"value", peak->value}, {"unit", rate_unit(peak->unit)}, {"of", peak->of}};
}

/// A run's place on the roofline: what its workload declares, the rates, their fractions of the
/// device's roofs and of its own copy, the bound, the roofs themselves and why any is unknown.
json::Value roofline_json(const Roofline& line)
{
    return json::Object{{"bytes", json::optional(line.bytes)},
                        {"flops", json::optional(line.flops)},
                        {"intensity", json::optional(line.intensity)},
                        {"gbps", json::optional(line.gbps)},
                        {"gflops", json::optional(line.gflops)},
                        {"of_peak_bandwidth", json::optional(line.of_peak_bandwidth)},
                        {"of_peak_flops", json::optional(line.of_peak_flops)},
                        {"of_d2d_copy", json::optional(line.of_d2d_copy)},
                        {"bound", line.bound ? json::Value(to_string(*line.bound)) : json::Value()},
                        {"peak_bandwidth_gbps", json::optional(line.peaks.gbps)},
                        {"peak_gflops", json::optional(line.peaks.gflops)},
                        {"peak_gflops_of", line.peaks.flops_of},
                        {"ridge", json::optional(line.peaks.ridge())},
                        {"d2d_copy_gbps", json::optional(line.d2d_copy_gbps)},
                        {"unknown", json::Array(line.peaks.unknown.begin(), line.peaks.unknown.end())}};
}

/// Each timed pass's phases in the order the passes ran, so that drift within a run (a slower
/// stretch of host copies) can be seen, not only the medians it moved.
json::Value passes_json(const std::vector<Sample>& samples)
{
    json::Array h2d, kernel, d2h, total;
    for (const Sample& sample : samples) {
        h2d.push_back(sample.h2d_ms);
        kernel.push_back(sample.kernel_ms);
        d2h.push_back(sample.d2h_ms);
        total.push_back(sample.total_ms);
    }
    return json::Object{{"h2d_ms", std::move(h2d)},
                        {"kernel_ms", std::move(kernel)},
                        {"d2h_ms", std::move(d2h)},
                        {"total_ms", std::move(total)}};
}

} // namespace

json::Value run_json(const Run& run, std::span<const DeviceProperties* const> devices)
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
    // Phases beside h2d, kernel and d2h (a distributed run's communication), their medians.
    json::Object extra_phases;
    if (!m.samples.empty()) {
        for (const auto& [name, ms] : m.samples.front().extra_phases) {
            if (name != "spacer") {
                extra_phases.emplace_back(name, m.summary(name).median);
            }
        }
    }
    // The base of the devices is compared by the others; its baseline is none.
    const bool device_compared = run.device.compared();
    const Roofline line = roofline_of(run, devices);
    return json::Object{
        {"workload", run.job.info.name},
        {"variant", run.job.variant},
        {"settings", settings_json(run.job.info, run.job.settings.values())},
        {"device", run.job.label},
        {"selector", run.job.device.selector()},
        {"device_name", run.job.device.properties().name},
        {"api", api_label(run.job.device)},
        {"build_options", run.job.build_flags}, // --options' flags, after each program's own
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
        {"passes", run.measured() ? passes_json(m.samples) : json::Value()},
        {"reference_ms", measured(m.reference_ms)},
        {"rate", measured(m.rate())},
        {"rate_unit", rate_unit(m.unit)},
        {"work", measured(m.work())},
        {"peak", peak_json(line.peak(m.unit))},
        {"fraction_of_peak", json::optional(line.of_peak(m.unit))},
        {"roofline", roofline_json(line)},
        {"max_error", m.verified ? measured(m.max_error) : json::Value()},
        {"tolerance", measured(m.tolerance)},
        {"tolerance_reason", m.tolerance_reason},
        {"agreement", m.verified ? agreement_json(m.agreement) : json::Value()},
        {"writes", run.measured() ? writes_json(m.writes, m.output_shape) : json::Value()},
        {"baseline", run.device.with}, // empty where not compared
        {"difference", device_compared ? json::Value(run.device.agreement.max_error) : json::Value()},
        {"allowed_difference", device_compared ? json::Value(run.device.allowed) : json::Value()},
        {"device_agreement", cross_check_json(run.device)},
        {"variant_agreement", cross_check_json(run.variant)},
        {"extra_phases", std::move(extra_phases)},
        {"exchanges", m.exchanges},
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
        rules.push_back(json::Object{{"parameters", json::Array(rule.parameters.begin(), rule.parameters.end())},
                                     {"rule", rule.text}});
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

json::Value comparison_json(const Comparison& comparison)
{
    json::Array runs, pairs;
    const auto devices = device_properties_of(comparison.runs);
    for (const auto& run : comparison.runs) {
        runs.push_back(run_json(run, devices));
    }
    for (const auto& pair : comparison.pairs) {
        pairs.push_back(pair_json(pair));
    }
    const auto problems = comparison.verdict.problems();
    return json::Object{{"schema", "duet.compare/2"},
                        {"environment", environment_json(Registry::global())},
                        {"seed", comparison.seed},
                        {"warmup", comparison.timing.warmup},
                        {"timing", timing_json(comparison.timing, comparison.in_turns)},
                        {"apart", json::Array(comparison.apart.begin(), comparison.apart.end())},
                        {"agree", problems.empty()},
                        {"counts", counts_json(comparison.verdict)},
                        {"problems", json::Array(problems.begin(), problems.end())},
                        {"runs", std::move(runs)},
                        {"pairs", std::move(pairs)}};
}

namespace {

json::Value stats_json(const std::vector<double>& samples)
{
    if (samples.empty()) {
        return {};
    }
    const workload::Summary stats = workload::summarize(samples);
    return json::Object{
        {"median", stats.median}, {"min", stats.min}, {"max", stats.max}, {"q1", stats.q1}, {"q3", stats.q3}};
}

json::Value point_json(const Point& point)
{
    json::Object extras, extra_samples;
    for (const auto& [name, samples] : point.extras) {
        extras.emplace_back(name, stats_json(samples));
        extra_samples.emplace_back(name, json::Array(samples.begin(), samples.end()));
    }
    const auto measured = [&](double value) { return point.measured() ? json::Value(value) : json::Value(); };
    return json::Object{
        {"variant", point.job.variant},
        {"device", point.job.label},
        {"selector", point.job.device.selector()},
        {"device_name", point.job.device.properties().name},
        {"api", api_label(point.job.device)},
        {"build_options", point.job.build_flags}, // --options' flags, after each program's own
        {"settings", settings_json(point.job.info, point.job.settings.values())},
        {"status", to_string(point.status)},
        {"reason", point.reason},
        {"max_error", point.verified ? measured(point.max_error) : json::Value()},
        {"tolerance", measured(point.tolerance)},
        {"rate_unit", rate_unit(point.unit)},
        {"h2d_ms", stats_json(point.h2d_ms)},
        {"kernel_ms", stats_json(point.kernel_ms)},
        {"d2h_ms", stats_json(point.d2h_ms)},
        {"total_ms", stats_json(point.total_ms)},
        {"rate", stats_json(point.rate)},
        {"extras", std::move(extras)},
        {"samples", json::Object{{"kernel_ms", json::Array(point.kernel_ms.begin(), point.kernel_ms.end())},
                                 {"total_ms", json::Array(point.total_ms.begin(), point.total_ms.end())},
                                 {"rate", json::Array(point.rate.begin(), point.rate.end())},
                                 {"extras", std::move(extra_samples)}}}};
}

} // namespace

json::Value bench_json(const Benchmark& bench)
{
    json::Array sweeps, points;
    for (const auto& sweep : bench.sweeps) {
        sweeps.push_back(json::Object{{"parameter", sweep.parameter},
                                      {"values", json::Array(sweep.values.begin(), sweep.values.end())}});
    }
    for (const auto& point : bench.points) {
        points.push_back(point_json(point));
    }
    const auto problems = bench.verdict.problems();
    return json::Object{{"schema", "duet.bench/2"},
                        {"environment", environment_json(Registry::global())},
                        {"workload", workload_json(bench.info)},
                        {"sweeps", std::move(sweeps)},
                        {"fixed", settings_json(bench.info, bench.fixed)},
                        {"warmup", bench.warmup},
                        {"repeats", bench.repeats},
                        {"seed", bench.seed},
                        {"ok", problems.empty()},
                        {"counts", counts_json(bench.verdict)},
                        {"problems", json::Array(problems.begin(), problems.end())},
                        {"points", std::move(points)}};
}

} // namespace duet::cli
