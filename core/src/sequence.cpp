// Sequences: what Queue::record_sequence made, and its release; recording and replaying are the
// queue's (queue.cpp).
#include <duet/sequence.hpp>

#include "state.hpp"

namespace duet {

ReplayMethod Sequence::method() const
{
    return detail::live(state_, "Sequence::method", "Sequence").method;
}

const std::string& Sequence::reason() const
{
    return detail::live(state_, "Sequence::reason", "Sequence").reason;
}

std::size_t Sequence::commands() const
{
    return detail::live(state_, "Sequence::commands", "Sequence").count;
}

std::string_view to_string(ReplayMethod method)
{
    switch (method) {
    case ReplayMethod::graph:
        return "graph";
    case ReplayMethod::command_buffer:
        return "command_buffer";
    case ReplayMethod::plain:
        return "plain";
    }
    return "unknown";
}

namespace detail {
SequenceState::~SequenceState()
{
    if (handle != nullptr) {
        // A replay still running finishes first (the backend frees the graph or command buffer
        // once it completes); what the commands use is released after, with `kept`.
        device->api().sequence_release(handle);
    }
}
} // namespace detail

} // namespace duet
