// Kernel pairs described in one file (libduet_manifest): a manifest (*.duet.toml) names a CUDA
// kernel and its OpenCL port, their parameters, buffers, scalars, launch geometry and reference,
// and becomes a workload::Spec that the kit's runner runs and checks like any workload, with no C++
// written. The CLI registers manifest_loader() with the workload registry, which then finds
// manifests by name. README's "Port check" shows the format.
#pragma once

#include <duet/workload.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace duet::workload {

/// How a manifest's file name ends.
inline constexpr const char* manifest_suffix = ".duet.toml";

/// The largest kernel source a manifest or `duet doctor --kernel` reads, far above any written by
/// hand or generated: a bound on what loading a workload reads.
inline constexpr std::uint64_t max_source_bytes = 16ull << 20;

/// `text` as the file `shown` for a compiler: a #line naming it first, so that a build log points at
/// the user's file and line rather than the compiler's temporary copy.
std::string labelled_source(const std::filesystem::path& shown, std::string_view text);

/// Whether `path` names a manifest: a file name ending in manifest_suffix.
bool is_manifest(const std::filesystem::path& path);

/// The workload the manifest at `path` describes, once every field, expression and source file
/// is read and both kernels' parameters are checked against its arguments and each other.
/// InvalidArgument naming the file, the line and the field of the first problem.
std::shared_ptr<const Workload> load_manifest(const std::filesystem::path& path);

/// Manifests as the workload registry finds them (register_workload_loader): <name>.duet.toml,
/// read by load_manifest.
WorkloadLoader manifest_loader();

} // namespace duet::workload
