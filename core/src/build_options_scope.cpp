// Build options scopes: a device holds at most one, whose flags Device::build appends to every program's.
#include <duet/build_options_scope.hpp>

#include "state.hpp"

namespace duet {

namespace detail {

std::string DeviceState::scoped_build_flags() const
{
    const std::lock_guard lock(build_flags_mutex_);
    return build_flags_.value_or("");
}

bool DeviceState::attach_build_flags(std::string flags) const
{
    const std::lock_guard lock(build_flags_mutex_);
    if (build_flags_) {
        return false;
    }
    build_flags_ = std::move(flags);
    return true;
}

void DeviceState::detach_build_flags() const noexcept
{
    const std::lock_guard lock(build_flags_mutex_);
    build_flags_.reset();
}

} // namespace detail

BuildOptionsScope::BuildOptionsScope(const Device& device, std::string flags)
    : device_(device.state()), flags_(std::move(flags))
{
    const detail::DeviceState& state = detail::live(device_, "BuildOptionsScope", "Device");
    if (!state.attach_build_flags(flags_)) {
        detail::fail<InvalidArgument>(state.backend->name(), "BuildOptionsScope",
                                      state.label() + " already has build options '" + state.scoped_build_flags() +
                                          "' in scope: one scope at a time per device");
    }
}

BuildOptionsScope::~BuildOptionsScope()
{
    device_->detach_build_flags();
}

} // namespace duet
