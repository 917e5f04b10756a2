// The one list of device properties that `duet devices`, its JSON and every result's record share,
// and the environment record (build, host, backends, devices) written with every result.
#pragma once

#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "render/json.hpp"

namespace duet::cli {

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
/// One kernel's limits and resources on its device, in the order `duet doctor --kernel` shows them.
std::vector<DeviceField> kernel_fields(const KernelProperties& properties);

json::Value device_json(const Device& device, bool with_raw_properties);
json::Value backend_json(const BackendInfo& backend);
/// The build, the host, the time, every backend and every device: recorded with every result.
json::Value environment_json(const Registry& registry);

} // namespace duet::cli
