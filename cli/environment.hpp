// What duet records about where a result came from: this build (version, commit, compilers), the
// host, every backend (loaded or why not) and every device under duet's common property names.
#pragma once

#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "json.hpp"

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

/// One device property: its JSON key and value (null where the backend does not know it), and
/// its label and text for the terminal ("-" where unknown).
struct DeviceField {
    std::string key;
    json::Value value;
    std::string label;
    std::string text;
};
/// Every property duet reports, in the order `duet devices` shows them.
std::vector<DeviceField> device_fields(const Device& device);

/// "CUDA", or "OpenCL" with the platform in short: "OpenCL (PoCL)", "OpenCL (NVIDIA)".
std::string api_label(const Device& device);
/// What the device's backend reports of its driver and compiler (the toolkit on CUDA).
std::string backend_version(const Device& device);
/// "opencl:0 pthread-skylake..." for tables and messages.
std::string device_title(const Device& device);

json::Value device_json(const Device& device, bool with_raw_properties);
json::Value backend_json(const BackendInfo& backend);
/// The build, the host, the time, every backend and every device: recorded with every result.
json::Value environment_json(const Registry& registry);

/// "Linux 6.1.0-18-amd64 x86_64" and the host's name.
std::string operating_system();
std::string host_name();
/// Now, in UTC: "2024-05-01T12:34:56Z".
std::string utc_time();

} // namespace duet::cli
