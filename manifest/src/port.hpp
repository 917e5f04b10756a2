// A kernel pair described by a manifest (*.duet.toml), as read and checked: what manifest.cpp
// makes of the file and port.cpp makes a Spec of. Every field keeps where it was written, so that a problem
// found later (an expression that divides by zero for the values asked) still names its line.
#pragma once

#include "expression.hpp"
#include "signature.hpp"

#include <duet/workload.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace duet::workload::port {

/// Where a field was written: "saxpy.duet.toml:12: buffers.y.count".
struct Place {
    std::filesystem::path file;
    std::size_t line = 0;
    std::string field;

    std::string text() const;
};

/// An InvalidArgument whose message starts with the place.
[[noreturn]] void fail(const Place& place, const std::string& problem);

/// The spacing of `type`'s values at 1: an ulp there. 1 for the integer types.
double epsilon_of(ElementType type);

/// An expression and where it was written.
struct Formula {
    Expression expression;
    Place place;

    Number value(const std::map<std::string, Number>& values) const;
    std::int64_t integer(const std::map<std::string, Number>& values) const;
    double real(const std::map<std::string, Number>& values) const;
};

/// One API's kernel: its source (read when the manifest is), entry point, options and defines,
/// and its argument order where it differs from the launch's.
struct KernelSource {
    Language language = Language::cuda;
    std::filesystem::path file;
    std::string text;
    std::string entry;
    std::string options;
    std::vector<std::pair<std::string, Formula>> defines;
    std::optional<std::vector<std::string>> args;
    Place args_place;
    KernelSignature signature;
    Place place; ///< the [cuda] or [opencl] table
};

/// How a buffer starts each pass.
struct Init {
    enum class Kind { none, random, constant, iota, file } kind = Kind::none;
    double low = 0, high = 0; ///< random: uniform in [low, high] (integers: inclusive)
    double value = 0;         ///< constant; iota: the first value
    std::string bytes;        ///< file: exactly the buffer's bytes
};

struct BufferDecl {
    std::string name;
    ElementType type = ElementType::f32;
    Formula count;
    Init init;
    bool output = false;
    /// How the kernel indexes it, where the manifest says: one element per work-item of the
    /// domain, or per block of the grid; a buffer too small for that is refused before a launch.
    enum class Index { unspecified, item, group } index = Index::unspecified;
    double relative_tolerance = 0;
    std::optional<std::uint64_t> ulps_tolerance;
    std::string tolerance_reason;
    Place place;
};

struct ScalarDecl {
    std::string name;
    ElementType type = ElementType::i32;
    Formula value;
    Place place;
};

struct LaunchDecl {
    std::vector<Formula> grid;   ///< 1-3 dimensions; from the domain and the block when absent
    std::vector<Formula> block;  ///< as many dimensions as the grid or the domain
    std::vector<Formula> domain; ///< the work-items that do work, where the manifest says
    std::vector<std::string> args;
    Place args_place;
    std::optional<Formula> local_memory; ///< bytes, for a "local" argument
    Place place;
};

/// What the outputs are checked against.
struct Reference {
    enum class Kind { none, kernels, library } kind = Kind::none;
    KernelSource cuda, opencl;        ///< kernels: run once on the same device and inputs
    std::optional<LaunchDecl> launch; ///< kernels: their own geometry, where it differs
    std::filesystem::path library;
    std::string function;
    Place place;
};

struct Manifest {
    std::filesystem::path file;
    WorkloadInfo info;
    KernelSource cuda, opencl;
    std::vector<BufferDecl> buffers;
    std::vector<ScalarDecl> scalars;
    LaunchDecl launch;
    Formula launches; ///< per pass
    /// Floating-point operations one launch performs (launch.flops); unknown where not given.
    std::optional<Formula> flops;
    std::optional<std::pair<std::string, std::string>> swap;
    Reference reference;
};

/// Reads and checks `path`: every field, every expression against the parameters, every source
/// file, both kernels' parameters against the arguments and each other. InvalidArgument naming
/// the file, the line and the field for the first problem.
Manifest read_manifest(const std::filesystem::path& path);

/// The values of the settings' parameters, for expressions.
std::map<std::string, Number> parameter_values(const Manifest& manifest, const Settings& settings);

/// The manifest's kernels and arguments against each other: InvalidArgument showing both
/// signatures side by side with the first difference marked.
void check_interfaces(const Manifest& manifest, const KernelSource& cuda, const KernelSource& opencl,
                      const LaunchDecl& launch);

/// The manifest's kernel pair as a workload: a Spec, which the kit's runner runs.
std::shared_ptr<const Workload> make_port_workload(Manifest manifest);

} // namespace duet::workload::port
