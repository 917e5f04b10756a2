// Builds the parameter list once per process from Registry::global().
#include "devices.hpp"

#include <cctype>
#include <map>

namespace duet::test {

std::string sanitize(const std::string& text)
{
    std::string out;
    bool underscore = false;
    for (const char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
            out += c;
            underscore = false;
        } else if (!underscore && !out.empty()) {
            out += '_';
            underscore = true;
        }
    }
    while (!out.empty() && out.back() == '_') {
        out.pop_back();
    }
    return out.empty() ? "unnamed" : out;
}

namespace {

// The first two words of the device name, then its type where that helps:
// "pthread-skylake-avx512-AMD EPYC" -> pthread_skylake_cpu, "NVIDIA H100 80GB HBM3" -> NVIDIA_H100.
std::string base_name(const Device& device)
{
    const std::string words = sanitize(device.properties().name);
    std::string prefix;
    int taken = 0;
    for (std::size_t start = 0; start < words.size() && taken < 2;) {
        std::size_t end = words.find('_', start);
        if (end == std::string::npos) {
            end = words.size();
        }
        prefix += (prefix.empty() ? "" : "_") + words.substr(start, end - start);
        ++taken;
        start = end + 1;
    }
    // GPUs go without a suffix (cuda_NVIDIA_H100); other types say what they are, unless the
    // name already does (PoCL 5 calls its CPU device "cpu-skylake-...").
    const std::string type = std::string(to_string(device.properties().type));
    const bool named = ("_" + prefix + "_").find("_" + type + "_") != std::string::npos;
    const std::string suffix = device.properties().type == DeviceType::gpu || named ? "" : "_" + type;
    return sanitize(device.backend()) + "_" + prefix + suffix;
}

std::vector<DeviceParam> build_params()
{
    std::vector<DeviceParam> params;
    try {
        const Registry& registry = Registry::global();
        for (const Device& device : registry.devices()) {
            params.push_back({readable_name(device), device.backend(), device, {}, false});
        }
        for (const BackendInfo& info : registry.backends()) {
            const bool has_devices = info.loaded && info.device_count > 0;
            if (!has_devices) {
                std::string reason = "backend '" + info.name + "' " +
                                     (info.loaded ? "loaded but has no devices" : "did not load") +
                                     (info.reason.empty() ? std::string() : ": " + info.reason);
                if (!info.path.empty()) {
                    reason += " (plugin " + info.path.string() + ")";
                }
                params.push_back({sanitize(info.name) + "_unavailable", info.name, std::nullopt, reason, false});
            }
        }
    } catch (const std::exception& error) {
        params.push_back({"registry_failed", "", std::nullopt,
                          std::string("duet::Registry::global() threw: ") + error.what(), true});
    }
    if (params.empty()) {
        params.push_back({"no_backends", "", std::nullopt, "the registry lists no backend at all", true});
    }
    return params;
}

} // namespace

std::string readable_name(const Device& device)
{
    // Two devices with the same model get their index appended.
    std::map<std::string, int> uses;
    for (const Device& other : Registry::global().devices()) {
        ++uses[base_name(other)];
    }
    std::string name = base_name(device);
    if (uses[name] > 1) {
        name += "_" + std::to_string(device.index());
    }
    return name;
}

const std::vector<DeviceParam>& device_params()
{
    static const std::vector<DeviceParam> params = build_params();
    return params;
}

std::vector<DeviceParam> backend_params(const std::string& backend)
{
    std::vector<DeviceParam> out;
    for (const DeviceParam& param : device_params()) {
        if (param.backend == backend || param.fail) {
            out.push_back(param);
        }
    }
    if (out.empty()) {
        out.push_back({sanitize(backend) + "_unavailable", backend, std::nullopt,
                       "the registry does not list the backend '" + backend + "'", false});
    }
    return out;
}

std::vector<Device> all_devices()
{
    std::vector<Device> out;
    for (const DeviceParam& param : device_params()) {
        if (param.device) {
            out.push_back(*param.device);
        }
    }
    return out;
}

void PrintTo(const DeviceParam& param, std::ostream* os)
{
    *os << param.name;
}

bool DeviceTest::shows(const KnownDifference& difference) const
{
    if (!difference.shows_on(device())) {
        return false;
    }
    std::cout << "known difference " << difference.name << " (" << difference.where << "): " << difference.reason
              << "\n";
    ::testing::Test::RecordProperty("known_difference", std::string(difference.name));
    return true;
}

std::vector<Device> DeviceTest::other_devices() const
{
    std::vector<Device> others;
    for (const Device& candidate : all_devices()) {
        if (!(candidate == device())) {
            others.push_back(candidate);
        }
    }
    return others;
}

std::string DeviceTest::no_other_device_reason() const
{
    std::string reason = "needs a second device; the registry found only " + device().selector();
    for (const DeviceParam& param : device_params()) {
        if (!param.device) {
            reason += "; " + param.skip_reason;
        }
    }
    return reason;
}

} // namespace duet::test
