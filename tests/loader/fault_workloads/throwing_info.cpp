// Fault workload plugin: made without trouble, but its info() throws, so no command could name
// it; the registry must list it as not loaded with the exception's text, and go on.
#include <duet/workload.hpp>

#include <stdexcept>

namespace {

class ThrowingInfo final : public duet::Workload {
public:
    duet::WorkloadInfo info() const override { throw std::runtime_error("simulated: info() threw"); }
    duet::Footprint footprint(const duet::RunRequest&) const override
    {
        throw std::logic_error("footprint() of a workload whose info() throws must never be reached");
    }
    duet::Measurement run(const duet::RunRequest&) const override
    {
        throw std::logic_error("run() of a workload whose info() throws must never be reached");
    }
};

} // namespace

DUET_EXPORT_WORKLOAD(ThrowingInfo)
