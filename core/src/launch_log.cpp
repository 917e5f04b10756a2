// The launch log: a device holds at most one, which every queue of the device adds its launches to.
#include <duet/launch_log.hpp>

#include "state.hpp"

namespace duet {

namespace detail {

void DeviceState::attach_launch_log(std::shared_ptr<LaunchLogState> log) const
{
    const std::lock_guard lock(log_mutex_);
    if (log_) {
        fail<InvalidArgument>(backend->name(), "LaunchLog",
                              label() + " already keeps a launch log: one at a time per device");
    }
    log_ = std::move(log);
    logging_.store(true, std::memory_order_relaxed);
}

void DeviceState::detach_launch_log() const noexcept
{
    const std::lock_guard lock(log_mutex_);
    logging_.store(false, std::memory_order_relaxed);
    log_.reset();
}

void DeviceState::add_to_log(const LaunchRecord& launch) const
{
    const std::lock_guard lock(log_mutex_);
    if (log_) { // the log may have ended since logging_ was read
        const std::lock_guard kept(log_->mutex);
        log_->launches.push_back(launch);
    }
}

} // namespace detail

LaunchLog::LaunchLog(const Device& device) : device_(device.state()), state_(std::make_shared<detail::LaunchLogState>())
{
    detail::live(device_, "LaunchLog", "Device").attach_launch_log(state_);
}

LaunchLog::~LaunchLog()
{
    device_->detach_launch_log();
}

std::vector<LaunchRecord> LaunchLog::launches() const
{
    const std::lock_guard lock(state_->mutex);
    return state_->launches;
}

} // namespace duet
