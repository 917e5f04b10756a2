// The devices a command runs on, picked by selector: the default device, or those --devices names,
// each named device checked to exist, be available and appear once.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>

namespace duet::cli {

/// The device `selector` names, or the default device (DUET_DEVICE, else the first GPU) for an
/// empty one; an unknown or unavailable device is a UsageError that lists the devices that exist.
Device select_device(const std::string& selector);

/// The devices --devices names (every device when it names none), each with its label.
/// An unknown or unavailable device is a UsageError that lists the devices that exist, and so is
/// a device named twice (by any two selectors), which would only be compared with itself.
std::vector<std::pair<Device, std::string>> pick_devices(const std::vector<std::string>& selectors);

} // namespace duet::cli
