// Finds backend plugins, loads them through their C ABI, and lists their devices. A backend that
// cannot load is listed with the reason; asking for it by name is an error, never a fallback.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <duet/device.hpp>

namespace duet {

struct BackendInfo {
    std::string name;           ///< "opencl", "cuda"
    std::filesystem::path path; ///< the plugin file tried; empty when none was found
    bool loaded = false;
    std::string reason;  ///< why it did not load (loader text, ABI mismatch, bad table, no devices)
    std::string version; ///< driver and compiler versions the backend reports
    std::uint32_t device_count = 0;
    /// Not loaded through the plugin's own fault (it cannot be opened, breaks the ABI's rules, or
    /// a call failed or threw), rather than for want of a driver or a device here.
    bool failed = false;
};

/// Threads: global() and every const method may be called from several threads at once; a
/// backend is initialised once, under a lock.
class Registry {
public:
    /// The process-wide registry over default_search_path(). Built on first use and never
    /// destroyed, so that no backend is unloaded while its driver may still be tearing down.
    static const Registry& global();

    /// In order: every directory in DUET_BACKEND_PATH (':'-separated), the build tree's backend
    /// directory, and the directory beside the installed core library.
    static std::vector<std::filesystem::path> default_search_path();
    /// The directories DUET_BACKEND_PATH names, in order: the user's part of default_search_path(),
    /// where a missing plugin is the user's to find.
    static std::vector<std::filesystem::path> environment_search_path();

    /// Loads every libduet_backend_<name>.so in `directories`; the first file of a name wins.
    /// Nothing a plugin does escapes as an exception: one that cannot be opened, breaks the ABI's
    /// rules (its table's size, an empty required slot) or whose calls fail or throw is listed,
    /// not loaded, with why.
    explicit Registry(const std::vector<std::filesystem::path>& directories);

    const std::vector<BackendInfo>& backends() const { return backends_; }
    const std::vector<Device>& devices() const { return devices_; }

    /// "opencl:0", "cuda:1", "opencl:gpu", "opencl:cpu", "gpu", a backend's name alone ("cuda":
    /// its first GPU, else its first device), or a substring of a device name.
    /// Unknown selectors throw NotFound listing the devices that exist; a backend that did not
    /// load throws Unavailable with its reason.
    Device select(std::string_view selector) const;
    /// DUET_DEVICE when set, else the first GPU, else the first device. A DUET_DEVICE that selects
    /// nothing throws as select() does, the message led by "DUET_DEVICE=<value>: ".
    Device default_device() const;

private:
    std::vector<BackendInfo> backends_;
    std::vector<Device> devices_;
};

} // namespace duet
