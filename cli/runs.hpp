// Running one variant of a workload on one device and judging the result: against the CPU
// reference, against the other devices' results, and CUDA against OpenCL on the same GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>

#include "json.hpp"

namespace duet::cli {

enum class Status {
    ok,          ///< matches the reference (and, in a comparison, the other devices)
    wrong,       ///< differs from the reference or from another device
    unsupported, ///< the device cannot run this variant (duet::Unsupported): not a disagreement
    failed,      ///< the run threw an error
};
std::string to_string(Status status);

/// What to run: one variant of one workload, with its settings, on one device.
struct Job {
    std::shared_ptr<const Workload> workload;
    WorkloadInfo info;
    std::string variant;
    Settings settings;
    Device device;
    std::string label; ///< the device's selector; "opencl:0#2" when the same device was asked for twice
    std::uint64_t seed = 1;
};

/// One measured run of a job and its verdict.
struct Run {
    Job job;
    Status status = Status::ok;
    std::string reason; ///< why the status is not ok
    Measurement measurement;
    std::string baseline;  ///< the run this one's output was compared with; empty when none
    double difference = 0; ///< largest relative difference from the baseline's output
    double allowed = 0;    ///< the difference the two runs' tolerances allow

    bool measured() const { return status == Status::ok || status == Status::wrong; }
};

/// Runs `job` once; with `verify`, the workload checks its result against the CPU reference and a
/// result outside its tolerance makes the run wrong. duet::Unsupported and any other error become
/// the status, with the error's text as the reason.
Run execute(const Job& job, bool verify);

/// `warmup` unverified runs (the first launch on a device pays for loading the module), then one
/// verified run: what `run` and `compare` report.
Run measure(const Job& job, unsigned warmup);

/// Compares the outputs of [begin, end), one workload variant on several devices, with the first
/// run that matches the reference, within the sum of both runs' tolerances (each is within its
/// own of the reference). A run that differs becomes wrong, naming by how much. Outputs are
/// released afterwards.
void cross_check(std::vector<Run>::iterator begin, std::vector<Run>::iterator end);

/// One GPU reached through CUDA and through OpenCL (the same PCI bus id): OpenCL time / CUDA time.
struct ApiPair {
    std::string workload;
    std::string variant;
    std::string gpu;
    std::string pci_bus_id;
    std::string cuda_label;
    std::string opencl_label;
    double kernel_ratio = 0;
    double total_ratio = 0;
};
std::vector<ApiPair> api_pairs(const std::vector<Run>& runs);

/// Everything `compare` found, for its table, JSON, CSV and report.
struct Comparison {
    std::vector<Run> runs; ///< by workload, then variant, then device
    std::vector<ApiPair> pairs;
    std::vector<std::string> problems;
    std::uint64_t seed = 1;
    unsigned warmup = 0;
};

/// "vector_add/default on opencl:0: <reason>" for every run that is wrong or failed.
std::vector<std::string> problems(const std::vector<Run>& runs);

/// The exit code for a command whose runs found `problems`, listed on standard error as
/// "duet: 2 of 40 <what>:" when there are any.
int exit_code(const std::vector<std::string>& problems, std::size_t total, const std::string& what);

/// The device `selector` names, or the default device (DUET_DEVICE, else the first GPU) for an
/// empty one; an unknown or unavailable device is a UsageError that lists the devices that exist.
Device select_device(const std::string& selector);

/// The devices --devices names (every device when it names none), each with its label.
/// An unknown or unavailable device is a UsageError that lists the devices that exist.
std::vector<std::pair<Device, std::string>> pick_devices(const std::vector<std::string>& selectors);

/// The names of the workloads' own figures (Measurement::extras) in `runs`, in the order first seen.
std::vector<std::string> extra_names(std::span<const Run> runs);
/// The value of extra `name` in `measurement`, if it has one.
std::optional<double> extra(const Measurement& measurement, const std::string& name);

/// "GB/s" or "GFLOP/s".
std::string rate_unit(Measurement::Unit unit);

json::Value run_json(const Run& run);
json::Value pair_json(const ApiPair& pair);

} // namespace duet::cli
