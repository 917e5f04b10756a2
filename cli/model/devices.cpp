// Device selection, with a message that lists what exists when a selector matches nothing.
#include "model/devices.hpp"

#include "model/environment.hpp"
#include "model/ranks.hpp"
#include "model/usage_error.hpp"

#include <algorithm>

namespace duet::cli {

Device select_device(const std::string& selector)
{
    const auto& registry = Registry::global();
    try {
        return selector.empty() ? registry.default_device() : registry.select(selector);
    } catch (const NotFound& error) {
        throw UsageError(error.message());
    } catch (const Unavailable& error) {
        throw UsageError(error.message());
    }
}

std::vector<std::pair<Device, std::string>> pick_devices(const std::vector<std::string>& selectors)
{
    const auto& registry = Registry::global();
    std::vector<Device> devices;
    if (selectors.empty()) {
        devices = registry.devices();
        if (devices.empty()) {
            std::string reasons;
            for (const auto& backend : registry.backends()) {
                reasons += "\n  " + backend.name + ": " + (backend.loaded ? "no devices" : backend.reason);
            }
            throw UsageError("no device to run on:" + reasons);
        }
    }
    for (const auto& selector : selectors) {
        devices.push_back(select_device(selector));
    }
    std::vector<std::pair<Device, std::string>> picked;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const auto first = std::find(devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(i), devices[i]);
        if (first != devices.begin() + static_cast<std::ptrdiff_t>(i)) {
            const auto earlier = static_cast<std::size_t>(first - devices.begin());
            throw UsageError("--devices names " + device_title(devices[i]) + " twice ('" + selectors[earlier] +
                             "' and '" + selectors[i] + "'); a device compared with itself proves nothing");
        }
        picked.emplace_back(devices[i], devices[i].selector());
    }
    // Under mpirun each pick stands for one device a rank: this rank's, labelled by all of them.
    // Picked by default, every device of a backend and platform would be a rank's: the first of
    // each stands for them (rank r takes the r-th).
    if (Ranks* distributed = ranks()) {
        if (selectors.empty()) {
            std::vector<std::pair<Device, std::string>> firsts;
            for (auto& pick : picked) {
                const auto& b = pick.first.properties();
                const bool seen = std::any_of(firsts.begin(), firsts.end(), [&](const auto& first) {
                    const auto& a = first.first.properties();
                    return first.first.backend() == pick.first.backend() && a.platform == b.platform &&
                           a.type == b.type;
                });
                if (!seen) {
                    firsts.push_back(std::move(pick));
                }
            }
            picked = std::move(firsts);
        }
        for (auto& pick : picked) {
            pick = distributed->take(pick.first);
        }
    }
    return picked;
}

namespace {
Ranks* current_ranks = nullptr;
}

Ranks* ranks()
{
    return current_ranks;
}

void set_ranks(Ranks* ranks)
{
    current_ranks = ranks;
}

bool reporting()
{
    return current_ranks == nullptr || current_ranks->rank() == 0;
}

} // namespace duet::cli
