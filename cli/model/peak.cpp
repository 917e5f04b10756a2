// Peak bandwidth and FMA rate of a device, and the CUDA twin that lends them to a device without.
#include "model/peak.hpp"

#include "model/architecture.hpp"

#include <algorithm>

namespace duet::cli {

std::optional<double> peak_bandwidth_gbps(const DeviceProperties& device)
{
    if (device.memory_clock_mhz == 0 || device.memory_bus_width_bits == 0) {
        return std::nullopt;
    }
    return device.theoretical_bandwidth_gbps();
}

std::optional<double> peak_gflops(const DeviceProperties& device, bool fp64)
{
    if (device.type != DeviceType::gpu || device.compute_units == 0 || device.clock_mhz == 0) {
        return std::nullopt;
    }
    const auto arch = architecture(device);
    if (!arch) {
        return std::nullopt;
    }
    return peak_gflops(*arch, device.compute_units, device.clock_mhz, fp64);
}

const DeviceProperties* cuda_twin(const DeviceProperties& device, std::span<const DeviceProperties* const> devices)
{
    const auto found = std::find_if(devices.begin(), devices.end(), [&](const DeviceProperties* other) {
        return other->platform == "CUDA" && same_gpu(*other, device);
    });
    return found == devices.end() ? nullptr : *found;
}

std::vector<const DeviceProperties*> device_properties_of(std::span<const Run> runs)
{
    std::vector<const DeviceProperties*> devices;
    for (const auto& run : runs) {
        devices.push_back(&run.job.device.properties());
    }
    return devices;
}

} // namespace duet::cli
