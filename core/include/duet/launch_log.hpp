// What a run launched: every kernel launch that the queues of one device issue (or record for
// replay) while a LaunchLog lives, with its range and dynamic local memory. duet explain reads it
// to describe each kernel as it was launched, whichever queue the workload launched it on.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <duet/device.hpp>
#include <duet/program.hpp>
#include <duet/range.hpp>

namespace duet {

namespace detail {
struct LaunchLogState;
}

/// One launch as the queue took it.
struct LaunchRecord {
    Kernel kernel;
    Range range;
    std::size_t dynamic_local_bytes = 0; ///< the LocalMemory argument's, 0 without one
    bool recorded = false;               ///< recorded into a sequence, run by each replay
};

/// Keeps the launches of every queue of `device` from its construction to its destruction, in the
/// order they were issued. One at a time per device: a second while one lives is InvalidArgument.
class LaunchLog {
public:
    explicit LaunchLog(const Device& device);
    ~LaunchLog();
    LaunchLog(const LaunchLog&) = delete;
    LaunchLog& operator=(const LaunchLog&) = delete;

    /// The launches kept so far.
    std::vector<LaunchRecord> launches() const;

private:
    std::shared_ptr<const detail::DeviceState> device_;
    std::shared_ptr<detail::LaunchLogState> state_;
};

} // namespace duet
