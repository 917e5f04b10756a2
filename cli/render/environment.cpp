// Device properties under duet's common names, for the terminal and for JSON.
#include "render/environment.hpp"

#include "model/environment.hpp"
#include "render/format.hpp"

namespace duet::cli {

namespace {

DeviceField text_field(std::string key, std::string label, const std::string& text)
{
    return {std::move(key), text.empty() ? json::Value() : json::Value(text), std::move(label),
            text.empty() ? "-" : text};
}

/// A count where zero means "not known on this backend".
DeviceField count_field(std::string key, std::string label, std::uint64_t count)
{
    return {std::move(key), count == 0 ? json::Value() : json::Value(count), std::move(label),
            count == 0 ? "-" : std::to_string(count)};
}

DeviceField bytes_field(std::string key, std::string label, std::uint64_t count)
{
    return {std::move(key), count == 0 ? json::Value() : json::Value(count), std::move(label),
            count == 0 ? "-" : format::bytes(count)};
}

DeviceField flag_field(std::string key, std::string label, bool flag)
{
    return {std::move(key), flag, std::move(label), flag ? "yes" : "no"};
}

DeviceField version_field(std::string key, std::string label, std::uint32_t major, std::uint32_t minor)
{
    const std::string text = major == 0 ? "" : std::to_string(major) + "." + std::to_string(minor);
    return text_field(std::move(key), std::move(label), text);
}

DeviceField dims_field(std::string key, std::string label, const std::array<std::uint64_t, 3>& dims)
{
    if (dims[0] == 0) {
        return {std::move(key), json::Value(), std::move(label), "-"};
    }
    // OpenCL sets no limit on the number of work-groups; its backend reports the largest size_t.
    const auto text = [](std::uint64_t size) {
        return size >= (std::uint64_t{1} << 63) ? std::string("unlimited") : std::to_string(size);
    };
    return {std::move(key), json::Array{dims[0], dims[1], dims[2]}, std::move(label),
            text(dims[0]) + " x " + text(dims[1]) + " x " + text(dims[2])};
}

} // namespace

std::vector<DeviceField> device_fields(const Device& device)
{
    const auto& p = device.properties();
    const double bandwidth = p.theoretical_bandwidth_gbps();
    return {
        text_field("name", "name", p.name),
        text_field("api", "API", api_label(device)),
        text_field("platform", "platform", p.platform),
        text_field("vendor", "vendor", p.vendor),
        text_field("type", "type", std::string(to_string(p.type))),
        text_field("driver_version", "driver", p.driver_version),
        text_field("api_version", "API version", p.api_version),
        version_field("compute_capability", "compute capability", p.compute_capability_major,
                      p.compute_capability_minor),
        version_field("opencl_version", "OpenCL version", p.opencl_version_major, p.opencl_version_minor),
        text_field("pci_bus_id", "PCI bus id", p.pci_bus_id),
        count_field("compute_units", "compute units (SMs)", p.compute_units),
        count_field("clock_mhz", "clock MHz", p.clock_mhz),
        bytes_field("global_memory", "global memory", p.global_memory),
        bytes_field("max_allocation", "largest allocation", p.max_allocation),
        bytes_field("l2_cache", "L2 cache", p.l2_cache),
        count_field("memory_bus_width_bits", "memory bus bits", p.memory_bus_width_bits),
        count_field("memory_clock_mhz", "memory clock MHz", p.memory_clock_mhz),
        {"theoretical_bandwidth_gbps", bandwidth == 0 ? json::Value() : json::Value(bandwidth), "peak bandwidth GB/s",
         bandwidth == 0 ? "-" : format::rate(bandwidth)},
        count_field("max_block_size", "max block size", p.max_block_size),
        dims_field("max_block_dims", "max block dims", p.max_block_dims),
        dims_field("max_grid_dims", "max grid dims", p.max_grid_dims),
        count_field("warp_width", "warp width", p.warp_width),
        count_field("max_threads_per_multiprocessor", "max threads per SM", p.max_threads_per_multiprocessor),
        count_field("registers_per_block", "registers per block", p.registers_per_block),
        bytes_field("local_memory_per_block", "local memory per block", p.local_memory_per_block),
        bytes_field("local_memory_per_block_optin", "local memory opt-in", p.local_memory_per_block_optin),
        count_field("copy_engines", "copy engines", p.copy_engines),
        count_field("base_address_alignment", "base alignment bytes", p.base_address_alignment),
        flag_field("ecc", "ECC", p.ecc),
        flag_field("integrated", "integrated", p.integrated),
        flag_field("unified_addressing", "unified addressing", p.unified_addressing),
        flag_field("can_map_host_memory", "can map host memory", p.can_map_host_memory),
    };
}

std::vector<DeviceField> kernel_fields(const KernelProperties& properties)
{
    return {
        count_field("max_block_size", "max block", properties.max_block_size),
        text_field("max_block_limit", "set by", std::string(to_string(properties.max_block_limit))),
        count_field("registers", "registers", properties.registers),
        bytes_field("static_local_memory", "static local", properties.static_local_memory),
        bytes_field("private_memory", "private", properties.private_memory),
        dims_field("required_block", "required block", properties.required_block),
        count_field("driver_max_block_size", "driver's figure", properties.driver_max_block_size),
    };
}

json::Value device_json(const Device& device, bool with_raw_properties)
{
    json::Object object{{"selector", device.selector()}, {"backend", device.backend()}, {"index", device.index()}};
    for (auto& field : device_fields(device)) {
        object.emplace_back(std::move(field.key), std::move(field.value));
    }
    if (with_raw_properties) {
        json::Object raw;
        for (const auto& [key, value] : device.properties().raw) {
            raw.emplace_back(key, value);
        }
        object.emplace_back("raw", std::move(raw));
    }
    return object;
}

json::Value backend_json(const BackendInfo& backend)
{
    return json::Object{{"name", backend.name},
                        {"loaded", backend.loaded},
                        {"failed", backend.failed},
                        {"path", backend.path.string()},
                        {"version", backend.version},
                        {"reason", backend.reason},
                        {"device_count", backend.device_count}};
}

json::Value environment_json(const Registry& registry)
{
    const auto& build = build_info();
    json::Array backends, devices;
    for (const auto& backend : registry.backends()) {
        backends.push_back(backend_json(backend));
    }
    for (const auto& device : registry.devices()) {
        devices.push_back(device_json(device, false));
    }
    return json::Object{{"duet_version", build.version},
                        {"duet_commit", build.commit},
                        {"compiler", build.compiler},
                        {"cuda_compiler", build.cuda_compiler},
                        {"cuda_architectures", build.cuda_architectures},
                        {"host", host_name()},
                        {"os", operating_system()},
                        {"time", utc_time()},
                        {"backends", std::move(backends)},
                        {"devices", std::move(devices)}};
}

} // namespace duet::cli
