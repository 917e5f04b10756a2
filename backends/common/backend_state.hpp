// What a backend's initialize() finds, the same for every backend: its devices and its version,
// built once under a lock and never destroyed, since drivers tear their contexts down at exit and
// core objects may still release handles during static destruction.
#pragma once

#include "edge.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace duet::backend {

template <class Device> struct BackendState {
    std::mutex init_mutex;
    std::atomic<bool> ready{false};
    std::vector<std::unique_ptr<Device>> devices;
    std::string version;

    /// This state once initialize() has succeeded; UNAVAILABLE, naming `api`, before that.
    const BackendState& initialized(const char* api) const
    {
        if (!ready.load(std::memory_order_acquire))
            fail(DUET_ERROR_UNAVAILABLE,
                 std::string("the ") + api + " backend is not initialized: initialize() must succeed first");
        return *this;
    }

    Device& device(std::uint32_t index, const char* api) const
    {
        const auto& state = initialized(api);
        if (index >= state.devices.size())
            fail(DUET_ERROR_INVALID_ARGUMENT, "no " + std::string(api) + " device " + std::to_string(index) +
                                                  "; there are " + std::to_string(state.devices.size()));
        return *state.devices[index];
    }
};

/// The process's one `State`, made on first use and never destroyed (see above).
template <class State> State& process_state()
{
    static State* const state = new State;
    return *state;
}

} // namespace duet::backend
