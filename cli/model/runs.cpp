// One run and its verdict; cross-device agreement; CUDA/OpenCL pairs on one GPU.
#include "model/runs.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <new>

namespace duet::cli {

std::vector<std::string> extra_names(std::span<const Run> runs)
{
    std::vector<std::string> names;
    for (const auto& run : runs) {
        for (const auto& [name, value] : run.measurement.extras) {
            if (std::find(names.begin(), names.end(), name) == names.end()) {
                names.push_back(name);
            }
        }
    }
    return names;
}

std::optional<double> extra(const Measurement& measurement, const std::string& name)
{
    for (const auto& [key, value] : measurement.extras) {
        if (key == name) {
            return value;
        }
    }
    return std::nullopt;
}

std::string rate_unit(Measurement::Unit unit)
{
    return unit == Measurement::Unit::flops ? "GFLOP/s" : "GB/s";
}

std::string rate_name(const Measurement& measurement)
{
    return measurement.rate_ms > 0 ? "copy rate" : "kernel rate";
}

std::string common_rate_name(const std::vector<std::string>& names)
{
    const bool shared = !names.empty() && std::all_of(names.begin(), names.end(),
                                                      [&](const std::string& name) { return name == names.front(); });
    return shared ? names.front() : "rate";
}

bool phases_overlap(const Measurement& measurement)
{
    // Phases timed one after another add up to the whole run, up to rounding.
    const double phases = measurement.h2d_ms + measurement.kernel_ms + measurement.d2h_ms;
    return phases > measurement.total_ms * (1 + 1e-9);
}

const std::string overlap_note =
    "Where phases overlap (matmul's schedule=overlapped or forkjoin: one queue per product; bandwidth's "
    "direction=both), each phase's time is summed over the queues it ran on, while total is the wall time of the "
    "whole run, first copy in to last copy out: so a phase, the kernel time included, can exceed the total.";

std::string outcome(const std::string& name, Status status, const std::string& reason)
{
    const bool named = status == Status::failed || status == Status::unsupported;
    return name + ": " + (named ? to_string(status) + ": " : "") + reason;
}

bool same_gpu(const DeviceProperties& a, const DeviceProperties& b)
{
    return !a.pci_bus_id.empty() && a.pci_bus_id == b.pci_bus_id;
}

bool api_twins(const workload::Job& cuda, const workload::Job& opencl)
{
    return cuda.device.backend() == "cuda" && opencl.device.backend() == "opencl" &&
           same_gpu(cuda.device.properties(), opencl.device.properties()) && opencl.info.name == cuda.info.name &&
           opencl.variant == cuda.variant;
}

std::vector<ApiPair> api_pairs(const std::vector<Run>& runs)
{
    std::vector<ApiPair> pairs;
    for (const auto& cuda : runs) {
        const auto& gpu = cuda.job.device.properties();
        if (!cuda.measured()) {
            continue;
        }
        for (const auto& opencl : runs) {
            if (opencl.measured() && api_twins(cuda.job, opencl.job)) {
                pairs.push_back(
                    {cuda.job.info.name, cuda.job.variant, gpu.name, gpu.pci_bus_id, cuda.job.label, opencl.job.label,
                     workload::ratio(opencl.measurement.summary(Phase::kernel),
                                     cuda.measurement.summary(Phase::kernel)),
                     workload::ratio(opencl.measurement.total_summary(), cuda.measurement.total_summary())});
            }
        }
    }
    return pairs;
}

Verdict::Verdict(std::string noun) : noun_(std::move(noun)) {}

void Verdict::add(const std::string& name, Status status, const std::string& reason, const std::string& reference,
                  bool cross_checked)
{
    ++total_;
    switch (status) {
    case Status::ok:
        ++ok_;
        unreferenced_ += reference.empty() ? 1 : 0;
        cross_checked_ += cross_checked ? 1 : 0;
        if (!reference.empty() && std::find(references_.begin(), references_.end(), reference) == references_.end()) {
            references_.push_back(reference);
        }
        return;
    case Status::wrong:
        ++wrong_;
        run_problems_.push_back(outcome(name, status, reason));
        return;
    case Status::unsupported:
        ++unsupported_;
        unsupported_runs_.push_back(outcome(name, status, reason));
        return;
    case Status::failed:
        ++failed_;
        run_problems_.push_back(outcome(name, status, reason));
        return;
    }
}

std::string Verdict::reference() const
{
    return references_.empty() ? "" : references_.size() == 1 ? references_.front() : "their references";
}

void Verdict::add_problem(std::string problem)
{
    other_problems_.push_back(std::move(problem));
}

std::vector<std::string> Verdict::problems() const
{
    std::vector<std::string> all = other_problems_;
    if (checked() == 0) {
        // No result was judged, so nothing can be said to agree; the reasons are the answer.
        all.push_back("nothing was checked: " + (total_ == 0 ? "there was no " + noun_ + " to run"
                                                             : "no " + noun_ + " produced a result that was checked"));
        all.insert(all.end(), unsupported_runs_.begin(), unsupported_runs_.end());
    }
    all.insert(all.end(), run_problems_.begin(), run_problems_.end());
    return all;
}

} // namespace duet::cli
