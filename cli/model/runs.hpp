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
#include <duet/workload.hpp>
#include <duet/workload/check.hpp>

namespace duet::cli {

using workload::Job;
using workload::job_name;
using workload::Run;
using workload::Status;
using workload::to_string;

/// "<name>: <reason>", the reason led by "failed: " or "unsupported: " for those statuses.
std::string outcome(const std::string& name, Status status, const std::string& reason);

/// One GPU reached through CUDA and through OpenCL (the same PCI bus id): OpenCL time / CUDA time.
struct ApiPair {
    std::string workload;
    std::string variant;
    std::string gpu;
    std::string pci_bus_id;
    std::string cuda_label;
    std::string opencl_label;
    workload::Ratio kernel; ///< invalid where a phase does not exist (a copy has no kernel phase)
    workload::Ratio total;
};
std::vector<ApiPair> api_pairs(const std::vector<Run>& runs);
/// Whether two devices are one GPU, reached through two APIs: the same PCI bus id, known.
bool same_gpu(const DeviceProperties& a, const DeviceProperties& b);
/// Whether `cuda` and `opencl` ran one workload and variant on one GPU, through CUDA and OpenCL.
bool api_twins(const workload::Job& cuda, const workload::Job& opencl);

/// How the runs of a compare, or the points of a bench, came out: the one count and the one list
/// of problems that the table, the JSON, the HTML report and the exit code all use.
class Verdict {
public:
    /// `noun` is what is counted ("run", "point").
    explicit Verdict(std::string noun);

    /// One run, named as job_name() names it, and how it came out; `reference`: what checked it
    /// (WorkloadInfo::reference), empty where its workload has none (an ok run agreed with other
    /// runs only); `cross_checked`: another run's output was compared with its own.
    void add(const std::string& name, Status status, const std::string& reason, const std::string& reference,
             bool cross_checked);
    /// A problem outside any run, such as a workload plugin that did not load.
    void add_problem(std::string problem);

    std::size_t total() const { return total_; }
    /// Runs that produced a result and had it judged: ok or wrong.
    std::size_t checked() const { return ok_ + wrong_; }

    struct Counts {
        std::size_t total, checked, ok, wrong, unsupported, failed;
        std::size_t unreferenced;  ///< ok runs whose workload has no reference: checked by each other alone
        std::size_t cross_checked; ///< ok runs whose output was compared with another run's
    };
    Counts counts() const
    {
        return {total_, checked(), ok_, wrong_, unsupported_, failed_, unreferenced_, cross_checked_};
    }
    /// What is counted ("run", "point").
    const std::string& noun() const { return noun_; }
    /// What checked the ok runs that have a reference: "the CPU reference", "the reference
    /// kernels", or "their references" where they differ; empty where none has one.
    std::string reference() const;

    /// Wrong and failed runs, the problems added, and when nothing was checked, that and why (each
    /// unsupported run with its reason); empty only when everything asked for was checked and agreed.
    std::vector<std::string> problems() const;
    bool ok() const { return problems().empty(); }

private:
    std::string noun_;
    std::vector<std::string> references_; ///< each once, in the order first seen
    std::size_t total_ = 0, ok_ = 0, wrong_ = 0, unsupported_ = 0, failed_ = 0, unreferenced_ = 0, cross_checked_ = 0;
    std::vector<std::string> run_problems_; ///< wrong and failed runs
    std::vector<std::string> unsupported_runs_;
    std::vector<std::string> other_problems_;
};

/// Everything `compare` found, for its table, JSON, CSV and report.
struct Comparison {
    std::vector<Run> runs; ///< by workload, then variant, then device
    std::vector<ApiPair> pairs;
    Verdict verdict{"run"};
    std::uint64_t seed = 1;
    workload::Timing timing;
    bool in_turns = false; ///< the devices of each variant took their passes in turn (workload::execute_in_turns)
    /// "workload/variant: why" for each variant whose devices ran one after another instead,
    /// their runs not fitting in memory at once (workload::why_apart).
    std::vector<std::string> apart;
};

/// The names of the workloads' own figures (Measurement::extras) in `runs`, in the order first seen.
std::vector<std::string> extra_names(std::span<const Run> runs);
/// The value of extra `name` in `measurement`, if it has one.
std::optional<double> extra(const Measurement& measurement, const std::string& name);

/// "GB/s" or "GFLOP/s".
std::string rate_unit(Measurement::Unit unit);
/// What the rate is over: "copy rate" where the workload timed host-device copies
/// (Measurement::rate_ms, the bandwidth workload), else "kernel rate".
std::string rate_name(const Measurement& measurement);
/// The name shared by the rates in `names`, or "rate" when they differ.
std::string common_rate_name(const std::vector<std::string>& names);

/// Whether the phases of `measurement` ran at once: together they took longer than the whole run.
bool phases_overlap(const Measurement& measurement);
/// How to read phase times that overlap, shown wherever such figures are.
extern const std::string overlap_note;

} // namespace duet::cli
