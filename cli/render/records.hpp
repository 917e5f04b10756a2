// The JSON records of the model that every command's --json shares: runs, their agreement and
// timing, OpenCL/CUDA pairs, a verdict's counts, workloads and their settings.
#pragma once

#include <map>
#include <span>
#include <string>

#include <duet/workload.hpp>
#include <duet/workload/check.hpp>

#include "model/runs.hpp"
#include "model/sweep.hpp"
#include "render/json.hpp"

namespace duet::cli {

/// The timing rule; `in_turns`: the devices of a variant took their passes in turn.
json::Value timing_json(const workload::Timing& timing, bool in_turns = false);
/// A comparison of outputs element by element: counts, the largest ULP distance and where, the
/// histogram of ULP distances.
json::Value agreement_json(const workload::Agreement& agreement);
/// `devices`: every device of the record, among which a device without peak figures finds its CUDA
/// twin's (roofline_of).
json::Value run_json(const Run& run, std::span<const DeviceProperties* const> devices = {});
json::Value pair_json(const ApiPair& pair);
/// total, checked, ok, wrong, unsupported, failed.
json::Value counts_json(const Verdict& verdict);

json::Value workload_json(const WorkloadInfo& info);
/// Parameter values for JSON: numbers for integer and real parameters, text for choices.
json::Value settings_json(const WorkloadInfo& info, const std::map<std::string, std::string>& values);

/// compare's whole record: the environment, the timing rule, the verdict, every run and pair.
json::Value comparison_json(const Comparison& comparison);
/// bench's whole record: the environment, the sweeps, the verdict, and every point with its samples.
json::Value bench_json(const Benchmark& bench);

} // namespace duet::cli
