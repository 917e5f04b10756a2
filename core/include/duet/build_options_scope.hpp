// Build options for a whole run: while a BuildOptionsScope lives, every program its device builds
// gets the scope's flags after its own, so a workload whose code builds its programs deep inside
// (device.build(kernels::x())) is rebuilt with other options without passing them call by call.
#pragma once

#include <memory>
#include <string>

#include <duet/device.hpp>

namespace duet {

/// Appends `flags` to the options of every program `device` builds from its construction to its
/// destruction (Device::build; the cache key holds them, and a program that ships a fatbin is built
/// from its CUDA source instead, by NVRTC, since a fatbin takes no options). Empty flags change
/// nothing. One at a time per device: a second while one lives is InvalidArgument.
class BuildOptionsScope {
public:
    BuildOptionsScope(const Device& device, std::string flags);
    ~BuildOptionsScope();
    BuildOptionsScope(const BuildOptionsScope&) = delete;
    BuildOptionsScope& operator=(const BuildOptionsScope&) = delete;

    const std::string& flags() const { return flags_; }

private:
    std::shared_ptr<const detail::DeviceState> device_;
    std::string flags_;
};

} // namespace duet
