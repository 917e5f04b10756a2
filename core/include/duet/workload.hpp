// Workload plugins: an algorithm's CUDA and OpenCL kernels behind one description (name,
// variants, parameters) and one run step that times every phase on the device clock and checks
// the result against the CPU reference. The CLI discovers them at run time, so a user adds a
// kernel pair without rebuilding duet: a shared library named libduet_workload_<name>.so that
// ends with DUET_EXPORT_WORKLOAD(TheirWorkload).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <duet/device.hpp>

/// Bumped whenever anything below changes; a plugin built against another version is refused
/// with both versions named. Workload plugins are C++ built with the same compiler and the same
/// libduet_core as the CLI; exceptions thrown by run() are duet::Error and reach the caller.
#define DUET_WORKLOAD_ABI_VERSION 2

namespace duet {

struct WorkloadParameter {
    enum class Type { integer, real, choice };
    std::string name;
    Type type = Type::integer;
    std::string default_value;
    std::string help;
    double min = 0; ///< integer and real: the accepted range, inclusive
    double max = 0;
    std::vector<std::string> choices; ///< choice: the accepted values
};

struct WorkloadInfo {
    std::string name;
    std::string description;
    std::vector<std::string> variants; ///< e.g. "naive", "shared"; the first is the default
    std::vector<WorkloadParameter> parameters;
    /// Parameter sets the agreement tests run on every device and variant: tiny, odd, not a
    /// multiple of the block, large. Each names only the parameters it changes.
    std::vector<std::map<std::string, std::string>> test_cases;
};

/// Parameter values checked against a WorkloadInfo: every parameter has a value, in its range.
class Settings {
public:
    /// Defaults overridden by `values`; an unknown name or a bad value throws InvalidArgument
    /// naming the parameter and what it accepts.
    Settings(const WorkloadInfo& info, const std::map<std::string, std::string>& values);

    std::int64_t integer(const std::string& name) const;
    double real(const std::string& name) const;
    const std::string& text(const std::string& name) const;
    const std::map<std::string, std::string>& values() const { return values_; }

private:
    const std::string& value(const std::string& name) const;
    std::map<std::string, std::string> values_;
};

struct RunRequest {
    Device device;
    std::string variant;
    Settings settings;
    bool verify = true;      ///< run the CPU reference and compare; benchmarks repeat without it
    std::uint64_t seed = 1;  ///< inputs are drawn from it, so every device sees the same inputs
};

/// One run of one variant on one device. Times are device-clock milliseconds unless named.
struct Measurement {
    double h2d_ms = 0;
    double kernel_ms = 0;
    double d2h_ms = 0;
    double total_ms = 0;     ///< first copy in to last copy out
    double reference_ms = 0; ///< the CPU reference, host clock; 0 when not verified
    /// What the kernel phase accomplishes, for the rate column: bytes moved (GB/s) or floating
    /// point operations (GFLOP/s).
    double work = 0;
    enum class Unit { bytes, flops } unit = Unit::bytes;
    bool verified = false;   ///< the reference ran and max_error was computed
    double max_error = 0;    ///< largest |device - reference|, relative where the workload says so
    double tolerance = 0;    ///< what max_error is allowed, and why
    std::string tolerance_reason;
    std::vector<float> output; ///< compared across devices, with `tolerance`
    std::vector<std::pair<std::string, double>> extras; ///< further figures (e.g. overlap ratio)

    /// The time the rate is over when the measured operation is not a kernel (a host-device copy
    /// of the bandwidth workload); 0 means the kernel phase.
    double rate_ms = 0;

    bool matches_reference() const { return verified && max_error <= tolerance; }
    /// GB/s or GFLOP/s over rate_ms, or else the kernel phase.
    double rate() const
    {
        const double ms = rate_ms > 0 ? rate_ms : kernel_ms;
        return ms > 0 ? work / (ms * 1e-3) / 1e9 : 0;
    }
};

/// The memory one run holds at its peak, computed from the settings alone, so that a run that
/// cannot fit is refused before any input is drawn or any buffer allocated.
struct Footprint {
    std::uint64_t device_bytes = 0;   ///< every device buffer the run holds at once
    std::uint64_t largest_buffer = 0; ///< the largest of them, against the device's largest allocation
    std::uint64_t host_bytes = 0;     ///< host memory: inputs, host buffers, results and the reference's
};

/// Bytes of host memory the operating system can give without swapping (Linux's MemAvailable), or
/// nullopt where it does not say.
std::optional<std::uint64_t> host_available_memory();

/// Throws OutOfMemory naming what `footprint` needs and the limit it breaks: the device's global
/// memory, its largest allocation, or the host memory available now. `what` names the run.
void check_fits(const Footprint& footprint, const Device& device, const std::string& what);

/// Largest |got - want| / max(|want|, floor): relative error, absolute for values below `floor`.
/// NaN anywhere (a poisoned element nobody wrote) or a size mismatch gives infinity. The one rule
/// for a result against its reference and for one device's output against another's.
double max_relative_error(std::span<const float> got, std::span<const float> want, double floor = 1.0);

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

struct WorkloadPluginInfo {
    std::string name;
    std::filesystem::path path;
    bool loaded = false;
    std::string reason; ///< why it did not load
};

/// Finds and loads workload plugins: DUET_PLUGIN_PATH (':'-separated), the build tree's plugin
/// directory, and duet/workloads beside libduet_core.so. The first file of a name wins. A plugin
/// that cannot be opened, whose entry or info() throws, or whose entry gives no workload is listed
/// as not loaded with why, and the others load as usual.
class WorkloadRegistry {
public:
    static const WorkloadRegistry& global();
    static std::vector<std::filesystem::path> default_search_path();
    explicit WorkloadRegistry(const std::vector<std::filesystem::path>& directories);

    const std::vector<WorkloadPluginInfo>& plugins() const { return plugins_; }
    const std::vector<std::shared_ptr<const Workload>>& workloads() const { return workloads_; }
    /// NotFound listing the workloads that exist (and those that failed to load, with why), the
    /// folders searched and what DUET_PLUGIN_PATH holds.
    std::shared_ptr<const Workload> find(const std::string& name) const;

private:
    std::vector<std::filesystem::path> directories_; ///< searched, in order; named when a workload is not found
    std::vector<WorkloadPluginInfo> plugins_;
    std::vector<std::shared_ptr<const Workload>> workloads_;
};

} // namespace duet

/// Defines the entry symbol of a workload plugin; `Type` is default-constructible.
#define DUET_EXPORT_WORKLOAD(Type)                                                                                     \
    extern "C" __attribute__((visibility("default"))) duet::Workload* duet_workload_entry(std::uint32_t abi_version)  \
    {                                                                                                                  \
        return abi_version == DUET_WORKLOAD_ABI_VERSION ? new Type() : nullptr;                                       \
    }                                                                                                                  \
    extern "C" __attribute__((visibility("default"))) std::uint32_t duet_workload_abi_version()                       \
    {                                                                                                                  \
        return DUET_WORKLOAD_ABI_VERSION;                                                                              \
    }
