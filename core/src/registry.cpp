// Backend discovery and loading through Boost.DLL, and device selection by selector string.
#include <duet/registry.hpp>

#include "state.hpp"
#include <duet/detail/plugins.hpp>

#include <boost/dll/runtime_symbol_info.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

namespace duet {

namespace fs = std::filesystem;

namespace {

constexpr const char* backend_path_variable = "DUET_BACKEND_PATH";

/// Backends duet ships; each is listed even when its plugin is absent, so users see why.
constexpr const char* known_backends[] = {"opencl", "cuda"};

std::string lowercase(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

/// A slot of duet_backend_v1, by name and place, for checks that go over several.
struct Slot {
    const char* name;
    std::size_t offset;
    bool required;
    std::size_t end() const { return offset + sizeof(void (*)()); }
};

#define DUET_SLOT(name, required, parameters) Slot{#name, offsetof(duet_backend_v1, name), required != 0},
constexpr Slot slots[] = {DUET_BACKEND_SLOTS(DUET_SLOT)};
#undef DUET_SLOT

/// The last required slot, which every table must reach.
constexpr Slot last_required_slot =
    *std::max_element(std::begin(slots), std::end(slots), [](const Slot& a, const Slot& b) {
        return (a.required ? a.offset : 0) < (b.required ? b.offset : 0);
    });

bool filled(const duet_backend_v1& table, const Slot& slot)
{
    void (*function)() = nullptr;
    std::memcpy(&function, reinterpret_cast<const char*>(&table) + slot.offset, sizeof(function));
    return function != nullptr;
}

/// The copy of a plugin's table that the core keeps and calls through: this core's size, the
/// slots past the size the plugin declares empty, nothing past this core's table ever read.
/// Refused when the declared size does not reach every required slot or one of them is empty.
duet_backend_v1 kept_table(const duet_backend_v1& table)
{
    if (table.table_size < last_required_slot.end()) {
        throw detail::NotLoaded("its function table declares a size of " + std::to_string(table.table_size) +
                                " bytes; every backend's must hold at least " +
                                std::to_string(last_required_slot.end()) + " (up to " + last_required_slot.name +
                                "; this core's table is " + std::to_string(sizeof(duet_backend_v1)) + ")");
    }
    duet_backend_v1 kept{};
    std::memcpy(&kept, &table, std::min(table.table_size, sizeof(kept)));
    std::string empty;
    for (const Slot& slot : slots) {
        if (slot.required && !filled(kept, slot)) {
            empty += (empty.empty() ? "" : ", ") + std::string(slot.name);
        }
    }
    if (!empty.empty()) {
        throw detail::NotLoaded("its function table leaves slots every backend must provide empty: " + empty);
    }
    return kept;
}

/// The backend's own words for its last failure.
std::string last_error_text(const duet_backend_v1& api)
{
    duet_error_detail failure{sizeof(duet_error_detail), "", 0, "", ""};
    if (api.last_error != nullptr) {
        detail::call_plugin("its last_error", api.last_error, &failure);
    }
    std::string text = failure.message ? failure.message : "";
    if (failure.native_name != nullptr && *failure.native_name != '\0') {
        text += std::string(" (") + (failure.call ? failure.call : "") + ": " + failure.native_name + ")";
    }
    return text;
}

/// A fixed-size text field of duet_device_properties, up to its terminator or its end.
template <std::size_t N> std::string text(const char (&field)[N])
{
    return std::string(field, strnlen(field, N));
}

DeviceProperties convert(const duet_device_properties& p)
{
    DeviceProperties out;
    out.name = text(p.name);
    out.vendor = text(p.vendor);
    out.driver_version = text(p.driver_version);
    out.platform = text(p.platform);
    out.api_version = text(p.api_version);
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
    out.pci_bus_id = text(p.pci_bus_id);
    return out;
}

/// More entries than any backend has formats: a list that goes on past this never ends.
constexpr std::uint32_t max_program_formats = 64;

/// Reads everything the core keeps about one device; a failure here fails the whole backend.
std::shared_ptr<detail::DeviceState> describe_device(const std::shared_ptr<const detail::Backend>& backend,
                                                     std::uint32_t index)
{
    const auto& api = backend->api();
    auto device = std::make_shared<detail::DeviceState>();
    device->backend = backend;
    device->index = index;
    backend->check(detail::call_plugin("its device_get", api.device_get, index, &device->handle));
    duet_device_properties properties{};
    properties.size = sizeof(properties);
    backend->check(detail::call_plugin("its device_properties", api.device_properties, device->handle, &properties));
    if (properties.size > sizeof(properties)) {
        throw detail::NotLoaded("its device_properties says it wrote " + std::to_string(properties.size) +
                                " bytes into duet_device_properties of " + std::to_string(sizeof(properties)));
    }
    device->properties = convert(properties);
    if (api.device_raw_properties != nullptr) {
        const duet_property_sink sink = [](void* context, const char* key, const char* value) {
            if (key != nullptr) {
                static_cast<DeviceProperties*>(context)->raw.emplace_back(key, value != nullptr ? value : "");
            }
        };
        backend->check(detail::call_plugin("its device_raw_properties", api.device_raw_properties, device->handle, sink,
                                           static_cast<void*>(&device->properties)));
    }
    for (std::uint32_t i = 0;; ++i) {
        if (i == max_program_formats) {
            throw detail::NotLoaded("its device_program_format lists more than " + std::to_string(max_program_formats) +
                                    " formats without ending the list with DUET_FORMAT_NONE");
        }
        duet_program_format format{};
        backend->check(
            detail::call_plugin("its device_program_format", api.device_program_format, device->handle, i, &format));
        if (format == DUET_FORMAT_NONE) {
            break;
        }
        device->formats.push_back(static_cast<ProgramFormat>(format));
    }
    return device;
}

/// Opens the plugin at `path`, checks and keeps its table, initializes it and describes its
/// devices; throws NotLoaded, or the Error of a failed call, when it cannot be used.
std::vector<Device> open_backend(const std::string& name, const fs::path& path, std::string& version)
{
    std::string reason;
    const auto library = detail::open_plugin(path, reason);
    if (!library) {
        throw detail::NotLoaded(reason);
    }
    if (!library->has(DUET_BACKEND_ENTRY_SYMBOL)) {
        throw detail::NotLoaded("it does not export the entry symbol " DUET_BACKEND_ENTRY_SYMBOL
                                "; not a duet backend");
    }
    const auto entry = library->get<std::remove_pointer_t<duet_backend_entry_fn>>(DUET_BACKEND_ENTRY_SYMBOL);

    const duet_backend_v1* table = nullptr;
    const duet_status status =
        detail::call_plugin("its entry " DUET_BACKEND_ENTRY_SYMBOL, entry, DUET_ABI_MAJOR, DUET_ABI_MINOR, &table);
    if (status == DUET_ERROR_ABI_MISMATCH || (table != nullptr && table->abi_major != DUET_ABI_MAJOR)) {
        throw detail::NotLoaded("ABI mismatch: the plugin implements duet ABI " +
                                (table ? std::to_string(table->abi_major) + "." + std::to_string(table->abi_minor)
                                       : std::string("(unknown)")) +
                                ", this core needs " + std::to_string(DUET_ABI_MAJOR) + ".x");
    }
    if (status != DUET_SUCCESS || table == nullptr) {
        throw detail::NotLoaded("its entry point failed with status " + std::to_string(status));
    }
    const duet_backend_v1 api = kept_table(*table);
    if (const duet_status init = detail::call_plugin("its initialize", api.initialize); init != DUET_SUCCESS) {
        const std::string why = last_error_text(api);
        throw detail::NotLoaded(why.empty() ? "its initialize failed with status " + std::to_string(init) : why,
                                init != DUET_ERROR_UNAVAILABLE);
    }
    const char* text = nullptr;
    if (api.version != nullptr && detail::call_plugin("its version", api.version, &text) == DUET_SUCCESS &&
        text != nullptr) {
        version = text;
    }
    const auto backend = std::make_shared<const detail::Backend>(name, version, api);
    std::uint32_t count = 0;
    backend->check(detail::call_plugin("its device_count", api.device_count, &count));
    if (count == 0) {
        throw detail::NotLoaded("the backend loaded but found no devices", false);
    }
    std::vector<Device> devices;
    for (std::uint32_t i = 0; i < count; ++i) {
        devices.emplace_back(describe_device(backend, i));
    }
    return devices;
}

struct Loaded {
    BackendInfo info;
    std::vector<Device> devices;
};

/// The plugin at `path` loaded, or listed with why not; nothing it does escapes as an exception.
Loaded load_backend(const std::string& name, const fs::path& path)
{
    Loaded result;
    auto& info = result.info;
    info.name = name;
    info.path = path;
    try {
        result.devices = open_backend(name, path, info.version);
        info.loaded = true;
        info.device_count = static_cast<std::uint32_t>(result.devices.size());
    } catch (const detail::NotLoaded& refusal) {
        info.reason = refusal.what();
        info.failed = refusal.broken;
    } catch (const Unavailable& error) {
        info.reason = error.what();
    } catch (const std::exception& error) {
        info.reason = error.what();
        info.failed = true;
    } catch (...) {
        info.reason = "loading it threw something that is not even a std::exception";
        info.failed = true;
    }
    return result;
}

std::string device_list(const std::vector<Device>& devices, const std::vector<BackendInfo>& backends)
{
    std::string text = "devices that exist:";
    for (const auto& device : devices) {
        text +=
            "\n  " + device.selector() + "  " + device.properties().name + " (" + device.properties().platform + ")";
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
    const fs::path here = boost::dll::this_line_location().parent_path();
    return detail::search_path(backend_path_variable, here, DUET_BUILD_LIBRARY_DIR, DUET_BUILD_BACKEND_DIR,
                               here / "duet");
}

std::vector<fs::path> Registry::environment_search_path()
{
    return detail::directories_from(backend_path_variable);
}

const Registry& Registry::global()
{
    // Never destroyed, like the plugins it loaded (see open_plugin).
    static const auto* registry = new Registry(default_search_path());
    return *registry;
}

Registry::Registry(const std::vector<fs::path>& directories)
{
    const auto found = detail::find_named_files(directories, "libduet_backend_", ".so");
    for (const char* name : known_backends) {
        if (!found.contains(name)) {
            BackendInfo absent;
            absent.name = name;
            absent.reason = std::string("no libduet_backend_") + name + ".so in " + detail::join(directories) +
                            " (this build has no " + name + " backend, or DUET_BACKEND_PATH misses it)";
            backends_.push_back(std::move(absent));
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
        const auto info =
            std::find_if(backends_.begin(), backends_.end(), [&](const auto& b) { return b.name == backend; });
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
        detail::fail<Unavailable>("duet", "Registry::default_device",
                                  "no device found\n" + device_list(devices_, backends_));
    }
    return devices_.front();
}

} // namespace duet
