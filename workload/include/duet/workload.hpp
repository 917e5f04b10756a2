// Workload plugins: an algorithm's CUDA and OpenCL kernels behind one description (name,
// variants, parameters, the rules between them) and one run step that times every phase on the
// device clock, repeated until the median settles, and checks the result against the CPU
// reference. Most workloads are written as a Spec (duet/workload/kit.hpp), which does all of it.
// The CLI discovers them at run time, so a user adds a kernel pair without rebuilding duet: a
// shared library named libduet_workload_<name>.so that ends with DUET_EXPORT_WORKLOAD(...).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <duet/device.hpp>
#include <duet/workload/agreement.hpp>
#include <duet/workload/statistics.hpp>

/// Bumped whenever anything below changes; a plugin built against another version is refused
/// with both versions named. Workload plugins are C++ built with the same compiler and the same
/// libduet_core as the CLI; exceptions thrown by run() are duet::Error and reach the caller.
#define DUET_WORKLOAD_ABI_VERSION 11

namespace duet {

/// Written with designated initializers, as WorkloadInfo is: a field left out keeps its default.
struct WorkloadParameter {
    enum class Type { integer, real, choice };
    std::string name{};
    Type type = Type::integer;
    std::string default_value{};
    std::string help{};
    double min = 0; ///< integer and real: the accepted range, inclusive
    double max = 0;
    std::vector<std::string> choices{};  ///< choice: the accepted values
    std::vector<std::string> variants{}; ///< the variants it applies to; empty: every variant
};

/// An integer parameter's smallest and largest accepted values: WorkloadParameter::min rounded up and
/// max rounded down (a min of 0.5 accepts 1 first), as int64s: a bound of 2^63 or more, as int64's
/// largest becomes in a double, is int64's largest, and one below -2^63 its smallest, where
/// converting them would be undefined.
std::int64_t integer_min(const WorkloadParameter& parameter);
std::int64_t integer_max(const WorkloadParameter& parameter);

class Settings;

/// A rule between parameters, checked before anything is enqueued: a value set that breaks it is
/// an InvalidArgument naming the parameters, their values and the rule.
struct WorkloadRule {
    std::vector<std::string> parameters{}; ///< those it ties together
    std::string text{};                    ///< what must hold, e.g. "block_x * block_y must not exceed 1024"
    /// Whether it holds; or InvalidArgument saying how these values break it, where that depends
    /// on them (a manifest's expressions, files and sizes), which the message adds to `text`.
    std::function<bool(const Settings&)> holds{};
    /// The variants it binds (one kernel's tile limit); empty: every variant. Settings are checked
    /// against the rules of every variant when made, and against a variant's own when a run of that
    /// variant is asked for, so that the other variants still run with them.
    std::vector<std::string> variants{};
};

/// Whether something declared for `variants` (a parameter, a rule; empty: every variant) applies
/// to `variant`.
bool applies_to(const std::vector<std::string>& variants, const std::string& variant);

/// Written with designated initializers (.name = ..., .variants = ...); a field left out keeps its
/// default, empty unless given here (the `{}` lets -Wmissing-field-initializers accept that).
struct WorkloadInfo {
    std::string name{};
    std::string description{};
    std::vector<std::string> variants{}; ///< e.g. "naive", "shared"; the first is the default
    std::vector<WorkloadParameter> parameters{};
    /// Parameter sets the agreement tests run on every device and variant: tiny, odd, not a
    /// multiple of the block, large. Each names only the parameters it changes.
    std::vector<std::map<std::string, std::string>> test_cases{};
    std::vector<WorkloadRule> rules{};
    /// false: no reference computes the expected result (a kernel-pair manifest may name none), so
    /// a run is checked against the other devices and variants only.
    bool has_reference = true;
    /// What checks a result, as verdicts name it: "the CPU reference", or "the reference
    /// kernels" where a manifest's reference is another kernel pair, run on the same device.
    std::string reference = "the CPU reference";
    /// Whether run() shares a run with the other ranks of RunRequest::communicator (the kit's
    /// SpecWorkload sets it). A plain Workload's run() would do the whole job on every rank, each
    /// rank's verdict its own: under several ranks such a run is refused.
    bool runs_on_ranks = false;
};

/// Parameter values checked against a WorkloadInfo: every parameter has a value, in its range,
/// and every rule holds.
class Settings {
public:
    /// Defaults overridden by `values`; an unknown name or a bad value throws InvalidArgument
    /// naming the parameter and what it accepts, a broken rule InvalidArgument naming both
    /// parameters, their values and the rule.
    Settings(const WorkloadInfo& info, const std::map<std::string, std::string>& values);
    /// The same, but the rules are left for broken_rule() to report: a sweep marks such a
    /// point skipped rather than failing.
    static Settings without_rules(const WorkloadInfo& info, const std::map<std::string, std::string>& values);

    /// The first of info's rules these values break, as the InvalidArgument message says it: of
    /// the rules that bind every variant, and where `variant` is given, of its own too.
    std::optional<std::string> broken_rule(const WorkloadInfo& info, const std::string& variant = {}) const;
    /// The same, of `variant`'s own rules only: those that skip a run of it (check.hpp's execute).
    std::optional<std::string> broken_own_rule(const WorkloadInfo& info, const std::string& variant) const;

    std::int64_t integer(const std::string& name) const;
    double real(const std::string& name) const;
    const std::string& text(const std::string& name) const;
    const std::map<std::string, std::string>& values() const { return values_; }

private:
    Settings(const WorkloadInfo& info, const std::map<std::string, std::string>& values, bool check_rules);
    std::optional<std::string> first_broken(const WorkloadInfo& info, const std::string& variant, bool own_only) const;
    const std::string& value(const std::string& name) const;
    std::map<std::string, std::string> values_;
};

namespace workload {
class Communicator;
}

struct RunRequest {
    Device device;
    std::string variant;
    Settings settings;
    bool verify = true;      ///< run the CPU reference and compare; benchmarks repeat without it
    std::uint64_t seed = 1;  ///< inputs are drawn from it, so every device sees the same inputs
    workload::Timing timing; ///< how often the timed pass repeats
    /// The ranks of a distributed run, each with a RunRequest of its own device; null: one rank.
    /// Every rank runs the same request otherwise, and the samples, passes and verdict are agreed
    /// among them (kit.hpp).
    workload::Communicator* communicator = nullptr;
};

/// The phases of a timed pass. Work that is none of these is an extra phase with a name of its
/// own (Sample::extra_phases), never added to one of them.
enum class Phase { h2d, kernel, d2h };
const char* to_string(Phase phase);

/// One timed pass: device-clock milliseconds of each phase, summed over the queues it ran on.
struct Sample {
    double h2d_ms = 0;
    double kernel_ms = 0;
    double d2h_ms = 0;
    double total_ms = 0; ///< first copy in to last copy out, less the spacer (kit.hpp)
    /// The time the rate is over when the measured operation is not a kernel (a host-device copy
    /// of the bandwidth workload); 0 means the kernel phase.
    double rate_ms = 0;
    std::vector<std::pair<std::string, double>> extra_phases;

    double& operator[](Phase phase);
    double operator[](Phase phase) const;
    /// What the rate is over: rate_ms where the workload sets it, else the kernel phase.
    double rate_basis_ms() const { return rate_ms > 0 ? rate_ms : kernel_ms; }
    /// The time of the extra phase of that name; 0 where the pass has none.
    double extra_phase_ms(const std::string& name) const;
};

/// One run of one variant on one device: every timed pass, their medians, and the check. Times
/// are device-clock milliseconds unless named.
struct Measurement {
    std::vector<Sample> samples; ///< every timed pass, in order
    /// The medians of the samples (set by set_medians()): what tables show and ratios divide.
    double h2d_ms = 0;
    double kernel_ms = 0;
    double d2h_ms = 0;
    double total_ms = 0;
    double reference_ms = 0; ///< the CPU reference, host clock; 0 when not verified
    /// What the kernel phase does, for the rate and the roofline: the bytes it must move to and
    /// from device memory (compulsory traffic, each array once: not cache hits, nor the rest of a
    /// sector a scattered read fetches) and the floating-point operations it performs (an FMA is
    /// two); nullopt where the workload does not say. 0 flops is a count: a copy does none.
    std::optional<double> bytes;
    std::optional<double> flops;
    /// Which of the two the rate column is in: GB/s or GFLOP/s.
    enum class Unit { bytes, flops } unit = Unit::bytes;
    bool verified = false; ///< the reference ran and max_error was computed
    double max_error = 0;  ///< largest |device - reference|, relative (absolute below 1)
    double tolerance = 0;  ///< what max_error is allowed, and why
    std::string tolerance_reason;
    workload::Agreement agreement; ///< the output against the reference, element by element
    workload::Values output;       ///< compared across devices and variants, with `tolerance`
    workload::Shape output_shape;
    workload::Writes writes; ///< the check pass's verdict on what was written (the kit's runners)
    std::vector<std::pair<std::string, double>> extras; ///< further figures (e.g. overlap ratio)
    /// A distributed run's exchanges between ranks, each with the path it took, then the ranks:
    /// "halo_exchange: NCCL; MPI, 2 ranks (Open MPI v4.1.6); exchanges: NCCL 2.28.3". Empty on one rank.
    std::string exchanges;
    double rate_ms = 0; ///< the median of the samples' rate_ms

    /// The summary of one quantity over the samples.
    workload::Summary summary(Phase phase) const;
    workload::Summary summary(const std::string& extra_phase) const;
    workload::Summary total_summary() const;
    workload::Summary rate_summary() const; ///< of each sample's rate_basis_ms()
    /// Sets h2d_ms, kernel_ms, d2h_ms, total_ms and rate_ms to the medians of the samples.
    void set_medians();

    /// Within the tolerance of the reference, and no element left unwritten.
    bool matches_reference() const { return verified && max_error <= tolerance && writes.unwritten == 0; }
    /// What the rate is of: the bytes or the flops, as `unit` says; 0 where not declared.
    double work() const { return (unit == Unit::bytes ? bytes : flops).value_or(0); }
    /// `amount` per second over rate_ms, or else the kernel phase, in billions (GB/s, GFLOP/s).
    double per_second(double amount) const
    {
        const double ms = rate_ms > 0 ? rate_ms : kernel_ms;
        return ms > 0 ? amount / (ms * 1e-3) / 1e9 : 0;
    }
    /// GB/s or GFLOP/s over rate_ms, or else the kernel phase.
    double rate() const { return per_second(work()); }
};

/// The memory one run holds at its peak, computed from the settings alone, so that a run that
/// cannot fit is refused before any input is drawn or any buffer allocated.
struct Footprint {
    std::uint64_t device_bytes = 0;   ///< every device buffer the run holds at once
    std::uint64_t largest_buffer = 0; ///< the largest of them, against the device's largest allocation
    std::uint64_t host_bytes = 0;     ///< host memory: inputs, host buffers, results and the reference's
};

/// Bytes of host memory this process can still get: what the operating system can give without
/// swapping (Linux's MemAvailable) or, where less, what an address-space limit (RLIMIT_AS,
/// `ulimit -v`) leaves above the address space in use; nullopt where neither is known.
std::optional<std::uint64_t> host_available_memory();

/// The host memory a run of `footprint` takes on `device`: its own, and a CPU device's buffers too,
/// whose memory is the host's.
std::uint64_t host_bytes_needed(const Footprint& footprint, const Device& device);

/// Throws OutOfMemory naming what `footprint` needs and the limit it breaks: the device's global
/// memory, its largest allocation, or the host memory available now (host_available_memory(), and
/// for a CPU device, whose memory is the host's, its buffers count there too). `what` names the run.
void check_fits(const Footprint& footprint, const Device& device, const std::string& what);

class Workload {
public:
    virtual ~Workload() = default;
    virtual WorkloadInfo info() const = 0;
    /// The memory run(request) would hold at its peak; reads the device's properties, nothing more.
    virtual Footprint footprint(const RunRequest& request) const = 0;
    virtual Measurement run(const RunRequest& request) const = 0;
};

/// The one way to run a workload: refuses (OutOfMemory) a run whose footprint does not fit the
/// device or the host, then runs it.
Measurement run_within_limits(const Workload& workload, const RunRequest& request);

/// What a run fails with when `workload` throws, from `call` ("run()"; empty where not known),
/// something that is not a std::exception: duet cannot read it, but names who threw it.
std::string foreign_exception_text(const std::string& workload, const std::string& call);

struct WorkloadPluginInfo {
    std::string name;
    std::filesystem::path path;
    bool loaded = false;
    std::string reason; ///< why it did not load, or that it is shadowed
    /// The file, found before it and loaded, whose workload of the same name is used instead; empty if none.
    std::filesystem::path shadowed_by;

    /// Did not load through its own fault: neither loaded nor merely shadowed.
    bool failed() const { return !loaded && shadowed_by.empty(); }
};

/// A kind of file that gives a workload without being a plugin library: a manifest
/// (<name>.duet.toml, read by libduet_manifest, whose manifest_loader() the CLI registers) is one.
struct WorkloadLoader {
    std::string suffix; ///< how its files' names end, after the workload's name: ".duet.toml"
    std::string files;  ///< what its files are called in messages: "manifests"
    /// The workload of the file at `path`; throws saying why where it gives none.
    std::function<std::shared_ptr<const Workload>(const std::filesystem::path& path)> load;
};

/// Adds `loader` to those every registry made afterwards searches with, WorkloadRegistry::global()
/// among them (so register before its first use), after those registered before it; a loader of a
/// suffix already registered replaces that one.
void register_workload_loader(WorkloadLoader loader);
/// The loaders registered so far, in order.
std::vector<WorkloadLoader> registered_workload_loaders();

/// Finds and loads workload plugins: DUET_PLUGIN_PATH (':'-separated), the build tree's plugin
/// directory, and duet/workloads beside libduet_core.so. The first file of a name that loads wins:
/// the folders in that order, in each a plugin library before the files of each loader in turn (a
/// manifest); a later file of the same name, by its file name or by the workload name it gives, is
/// listed as shadowed by it and not used.
/// A plugin that cannot be opened, whose entry or info() throws, or whose entry gives no workload is
/// listed as not loaded with why (and the file used instead, if any), and shadows nothing. Every workload it gives
/// guards the calls into it: its info() is read once, and anything but a std::exception thrown by footprint() or run()
/// becomes a duet::Error naming the workload (foreign_exception_text).
class WorkloadRegistry {
public:
    static const WorkloadRegistry& global();
    static std::vector<std::filesystem::path> default_search_path();
    /// The directories DUET_PLUGIN_PATH names, in order: the user's part of default_search_path().
    static std::vector<std::filesystem::path> environment_search_path();
    /// Searches `directories` for plugin libraries and for the files of `loaders`.
    explicit WorkloadRegistry(const std::vector<std::filesystem::path>& directories,
                              std::vector<WorkloadLoader> loaders = registered_workload_loaders());

    const std::vector<WorkloadPluginInfo>& plugins() const { return plugins_; }
    const std::vector<std::shared_ptr<const Workload>>& workloads() const { return workloads_; }
    /// NotFound listing the workloads that exist (and those that failed to load, with why), the
    /// folders searched and what DUET_PLUGIN_PATH holds.
    std::shared_ptr<const Workload> find(const std::string& name) const;

private:
    std::vector<std::filesystem::path> directories_; ///< searched, in order; named when a workload is not found
    std::vector<WorkloadLoader> loaders_;            ///< named when a workload is not found
    std::vector<WorkloadPluginInfo> plugins_;
    std::vector<std::shared_ptr<const Workload>> workloads_;
};

} // namespace duet

/// Defines the entry symbol of a workload plugin; `Type` is default-constructible.
#define DUET_EXPORT_WORKLOAD(Type)                                                                                     \
    extern "C" __attribute__((visibility("default"))) duet::Workload* duet_workload_entry(std::uint32_t abi_version)   \
    {                                                                                                                  \
        return abi_version == DUET_WORKLOAD_ABI_VERSION ? new Type() : nullptr;                                        \
    }                                                                                                                  \
    extern "C" __attribute__((visibility("default"))) std::uint32_t duet_workload_abi_version()                        \
    {                                                                                                                  \
        return DUET_WORKLOAD_ABI_VERSION;                                                                              \
    }
