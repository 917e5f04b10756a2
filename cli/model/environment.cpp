// The build, the host and the names of devices, as every result records them.
#include "model/environment.hpp"

#include <ctime>

#include <sys/utsname.h>
#include <unistd.h>

namespace duet::cli {

std::string api_label(const Device& device)
{
    if (device.backend() == "cuda") {
        return "CUDA";
    }
    if (device.backend() != "opencl") {
        return device.backend();
    }
    const std::string& platform = device.properties().platform;
    // PoCL names its platform in full; the others lead with their vendor's name.
    const std::string vendor =
        platform == "Portable Computing Language" ? "PoCL" : platform.substr(0, platform.find(' '));
    return vendor.empty() ? "OpenCL" : "OpenCL (" + vendor + ")";
}

std::string backend_version(const Device& device)
{
    for (const auto& backend : Registry::global().backends()) {
        if (backend.name == device.backend()) {
            return backend.version;
        }
    }
    return "";
}

std::string device_title(const Device& device)
{
    return device.selector() + " " + device.properties().name;
}

std::string operating_system()
{
    utsname name{};
    if (::uname(&name) != 0) {
        return "unknown";
    }
    return std::string(name.sysname) + " " + name.release + " " + name.machine;
}

std::string host_name()
{
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? name : "unknown";
}

std::string utc_time()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    ::gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

} // namespace duet::cli
