// Backend discovery and loading through Boost.DLL, and device selection by selector string.
#include <duet/registry.hpp>

#include "plugin_library.hpp"
#include "state.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>

namespace duet {

namespace fs = std::filesystem;

namespace {

/// Backends duet ships; each is listed even when its plugin is absent, so users see why.
constexpr const char* known_backends[] = {"opencl", "cuda"};

std::string lowercase(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string last_error_text(const duet_backend_v1& table)
{
    duet_error_detail detail{"", 0, "", ""};
    if (table.last_error != nullptr) {
        table.last_error(&detail);
    }
    std::string text = detail.message ? detail.message : "";
    if (detail.native_name != nullptr && *detail.native_name != '\0') {
        text += std::string(" (") + (detail.call ? detail.call : "") + ": " + detail.native_name + ")";
    }
    return text;
}

DeviceProperties convert(const duet_device_properties& p)
{
    DeviceProperties out;
    out.name = p.name;
    out.vendor = p.vendor;
    out.driver_version = p.driver_version;
    out.platform = p.platform;
    out.api_version = p.api_version;
    out.type = static_cast<DeviceType>(p.type);
    out.compute_units = p.compute_units;
    out.max_block_size = p.max_block_size;
    std::copy(std::begin(p.max_block_dims), std::end(p.max_block_dims), out.max_block_dims.begin());
    std::copy(std::begin(p.max_grid_dims), std::end(p.max_grid_dims), out.max_grid_dims.begin());
    out.warp_width = p.warp_width;
    out.local_memory_per_block = p.local_memory_per_block;
    out.local_memory_per_block_optin = p.local_memory_per_block_optin;
    out.global_memory = p.global_memory;
    out.max_allocation = p.max_allocation;
    out.l2_cache = p.l2_cache;
    out.clock_mhz = p.clock_mhz;
    out.compute_capability_major = p.compute_capability_major;
    out.compute_capability_minor = p.compute_capability_minor;
    out.opencl_version_major = p.opencl_version_major;
    out.opencl_version_minor = p.opencl_version_minor;
    out.base_address_alignment = p.base_address_alignment;
    out.copy_engines = p.copy_engines;
    out.can_map_host_memory = p.can_map_host_memory != 0;
    out.unified_addressing = p.unified_addressing != 0;
    out.integrated = p.integrated != 0;
    out.ecc = p.ecc != 0;
    out.registers_per_block = p.registers_per_block;
    out.max_threads_per_multiprocessor = p.max_threads_per_multiprocessor;
    out.memory_bus_width_bits = p.memory_bus_width_bits;
    out.memory_clock_mhz = p.memory_clock_mhz;
    out.pci_bus_id = p.pci_bus_id;
    return out;
}

/// Reads everything the core keeps about one device; a failure here fails the whole backend.
std::shared_ptr<detail::DeviceState> describe_device(const std::shared_ptr<const detail::Backend>& backend,
                                                     std::uint32_t index)
{
    const auto& api = backend->api();
    auto device = std::make_shared<detail::DeviceState>();
    device->backend = backend;
    device->index = index;
    backend->check(api.device_get(index, &device->handle));
    duet_device_properties properties{};
    backend->check(api.device_properties(device->handle, &properties));
    device->properties = convert(properties);
    if (api.device_raw_properties != nullptr) {
        backend->check(api.device_raw_properties(
            device->handle,
            [](void* context, const char* key, const char* value) {
                static_cast<DeviceProperties*>(context)->raw.emplace_back(key, value);
            },
            &device->properties));
    }
    for (std::uint32_t i = 0;; ++i) {
        duet_program_format format{};
        backend->check(api.device_program_format(device->handle, i, &format));
        if (format == DUET_FORMAT_NONE) {
            break;
        }
        device->formats.push_back(static_cast<ProgramFormat>(format));
    }
    return device;
}

struct Loaded {
    BackendInfo info;
    std::vector<Device> devices;
};

Loaded load_backend(const std::string& name, const fs::path& path)
{
    Loaded result;
    result.info.name = name;
    result.info.path = path;
    auto& info = result.info;

    const auto library = detail::open_plugin(path, info.reason);
    if (!library) {
        return result;
    }
    if (!library->has(DUET_BACKEND_ENTRY_SYMBOL)) {
        info.reason = "it does not export the entry symbol " DUET_BACKEND_ENTRY_SYMBOL "; not a duet backend";
        return result;
    }
    const auto entry = library->get<std::remove_pointer_t<duet_backend_entry_fn>>(DUET_BACKEND_ENTRY_SYMBOL);

    const duet_backend_v1* table = nullptr;
    const duet_status status = entry(DUET_ABI_MAJOR, DUET_ABI_MINOR, &table);
    if (status == DUET_ERROR_ABI_MISMATCH || (table != nullptr && table->abi_major != DUET_ABI_MAJOR)) {
        info.reason = "ABI mismatch: the plugin implements duet ABI " +
                      (table ? std::to_string(table->abi_major) + "." + std::to_string(table->abi_minor)
                             : std::string("(unknown)")) +
                      ", this core needs " + std::to_string(DUET_ABI_MAJOR) + ".x";
        return result;
    }
    if (status != DUET_SUCCESS || table == nullptr) {
        info.reason = "its entry point failed with status " + std::to_string(status);
        return result;
    }
    if (table->initialize == nullptr || table->device_count == nullptr || table->device_get == nullptr ||
        table->device_properties == nullptr || table->device_program_format == nullptr) {
        info.reason = "its function table lacks the slots every backend must provide";
        return result;
    }
    if (table->initialize() != DUET_SUCCESS) {
        info.reason = last_error_text(*table);
        return result;
    }
    const char* version = nullptr;
    if (table->version != nullptr && table->version(&version) == DUET_SUCCESS && version != nullptr) {
        info.version = version;
    }
    auto backend = std::make_shared<const detail::Backend>(name, info.version, *table);
    try {
        std::uint32_t count = 0;
        backend->check(table->device_count(&count));
        if (count == 0) {
            info.reason = "the backend loaded but found no devices";
            return result;
        }
        for (std::uint32_t i = 0; i < count; ++i) {
            result.devices.emplace_back(describe_device(backend, i));
        }
    } catch (const Error& error) {
        info.reason = error.what();
        result.devices.clear();
        return result;
    }
    info.loaded = true;
    info.device_count = static_cast<std::uint32_t>(result.devices.size());
    return result;
}

std::string device_list(const std::vector<Device>& devices, const std::vector<BackendInfo>& backends)
{
    std::string text = "devices that exist:";
    for (const auto& device : devices) {
        text += "\n  " + device.selector() + "  " + device.properties().name + " (" + device.properties().platform + ")";
    }
    if (devices.empty()) {
        text += " none";
    }
    for (const auto& backend : backends) {
        if (!backend.loaded) {
            text += "\n  " + backend.name + ": unavailable: " + backend.reason;
        }
    }
    return text;
}

/// A device type ("gpu", "cpu", "accelerator") or a substring of the device's name.
bool matches(const Device& device, const std::string& which)
{
    for (const auto type : {DeviceType::gpu, DeviceType::cpu, DeviceType::accelerator}) {
        if (which == to_string(type)) {
            return device.properties().type == type;
        }
    }
    return !which.empty() && lowercase(device.properties().name).find(which) != std::string::npos;
}

} // namespace

std::vector<fs::path> Registry::default_search_path()
{
    auto directories = detail::directories_from("DUET_BACKEND_PATH");
#ifdef DUET_BUILD_BACKEND_DIR
    directories.emplace_back(DUET_BUILD_BACKEND_DIR);
#endif
    directories.push_back(boost::dll::this_line_location().parent_path() / "duet");
    return directories;
}

const Registry& Registry::global()
{
    // Never destroyed, like the plugins it loaded (see open_plugin).
    static const auto* registry = new Registry(default_search_path());
    return *registry;
}

Registry::Registry(const std::vector<fs::path>& directories)
{
    const auto found = detail::find_plugins(directories, "duet_backend_");
    for (const char* name : known_backends) {
        if (!found.contains(name)) {
            backends_.push_back({name, {}, false,
                                 std::string("no libduet_backend_") + name + ".so in " + detail::join(directories) +
                                     " (this build has no " + name + " backend, or DUET_BACKEND_PATH misses it)",
                                 {}, 0});
        }
    }
    for (const auto& [name, path] : found) {
        auto loaded = load_backend(name, path);
        backends_.push_back(std::move(loaded.info));
        devices_.insert(devices_.end(), loaded.devices.begin(), loaded.devices.end());
    }
    std::sort(backends_.begin(), backends_.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
}

Device Registry::select(std::string_view selector) const
{
    const std::string wanted = lowercase(selector);
    const auto not_found = [&](const std::string& why) -> Device {
        detail::fail<NotFound>("duet", "Registry::select", why + "\n" + device_list(devices_, backends_));
    };
    const auto colon = wanted.find(':');
    const bool backend_alone =
        std::any_of(backends_.begin(), backends_.end(), [&](const auto& b) { return b.name == wanted; });
    if (colon != std::string::npos || backend_alone) {
        const std::string backend = wanted.substr(0, colon);
        const std::string which = colon == std::string::npos ? "" : wanted.substr(colon + 1);
        const auto info = std::find_if(backends_.begin(), backends_.end(), [&](const auto& b) { return b.name == backend; });
        if (info == backends_.end()) {
            return not_found("no backend named '" + backend + "' in selector '" + std::string(selector) + "'");
        }
        if (!info->loaded) {
            detail::fail<Unavailable>(backend, "Registry::select",
                                      "selector '" + std::string(selector) + "' asks for the " + backend +
                                          " backend, which is unavailable: " + info->reason);
        }
        std::vector<Device> candidates;
        std::copy_if(devices_.begin(), devices_.end(), std::back_inserter(candidates),
                     [&](const Device& d) { return d.backend() == backend; });
        if (which.empty()) {
            // The backend's name alone: its first GPU, else its first device, as default_device() picks.
            const auto gpu = std::find_if(candidates.begin(), candidates.end(),
                                          [](const Device& d) { return d.properties().type == DeviceType::gpu; });
            if (gpu != candidates.end()) {
                return *gpu;
            }
            if (!candidates.empty()) {
                return candidates.front();
            }
            return not_found("the " + backend + " backend has no devices");
        }
        const bool numeric = !which.empty() && which.size() < 10 && std::all_of(which.begin(), which.end(), ::isdigit);
        if (numeric) {
            const auto index = std::stoul(which);
            if (index < candidates.size()) {
                return candidates[index];
            }
            return not_found("no device " + which + " in the " + backend + " backend, which has " +
                             std::to_string(candidates.size()));
        }
        for (const auto& device : candidates) {
            if (matches(device, which)) {
                return device;
            }
        }
        return not_found("no " + backend + " device matches '" + which + "'");
    }
    for (const auto& device : devices_) {
        if (matches(device, wanted)) {
            return device;
        }
    }
    return not_found("no device matches '" + std::string(selector) + "'");
}

Device Registry::default_device() const
{
    if (const char* selector = std::getenv("DUET_DEVICE"); selector != nullptr && *selector != '\0') {
        // The selector came from the environment, not the command line: say where to fix it.
        const auto named = [&](const Error& error) {
            return "DUET_DEVICE=" + std::string(selector) + ": " + error.message();
        };
        try {
            return select(selector);
        } catch (const NotFound& error) {
            detail::fail<NotFound>("duet", "Registry::default_device", named(error));
        } catch (const Unavailable& error) {
            detail::fail<Unavailable>(error.backend(), "Registry::default_device", named(error));
        }
    }
    const auto gpu = std::find_if(devices_.begin(), devices_.end(),
                                  [](const Device& d) { return d.properties().type == DeviceType::gpu; });
    if (gpu != devices_.end()) {
        return *gpu;
    }
    if (devices_.empty()) {
        detail::fail<Unavailable>("duet", "Registry::default_device", "no device found\n" + device_list(devices_, backends_));
    }
    return devices_.front();
}

} // namespace duet
