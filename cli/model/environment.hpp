// What duet records about where a result came from: this build (version, commit, compilers), the
// host, and how a device is named in tables and messages.
#pragma once

#include <string>
#include <vector>

#include <duet/duet.hpp>

namespace duet::cli {

/// Fixed when duet was built (cli/version.cmake writes it on every build).
struct BuildInfo {
    std::string version;            ///< the project version, "0.1.0"
    std::string commit;             ///< `git describe --always --dirty`, or "unknown" outside a checkout
    std::string compiler;           ///< "GNU 12.2.0"
    std::string cuda_compiler;      ///< nvcc that compiled the kernels offline, "NVIDIA 12.4.131"; empty without
    std::string cuda_architectures; ///< the SASS targets of those fatbins, "80 90"
};
const BuildInfo& build_info();

/// "CUDA", or "OpenCL" with the platform in short: "OpenCL (PoCL)", "OpenCL (NVIDIA)".
std::string api_label(const Device& device);
/// What the device's backend reports of its driver and compiler (the toolkit on CUDA).
std::string backend_version(const Device& device);
/// "opencl:0 pthread-skylake..." for tables and messages.
std::string device_title(const Device& device);

/// "Linux 6.1.0-18-amd64 x86_64" and the host's name.
std::string operating_system();
std::string host_name();
/// Now, in UTC: "2024-05-01T12:34:56Z".
std::string utc_time();

} // namespace duet::cli
