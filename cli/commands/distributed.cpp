// The CLI under mpirun: each rank takes, for every device a command picks, the device of its own
// that stands in its place, and hands the kit an MPI communicator for it.
#include "commands/distributed.hpp"

#include "model/usage_error.hpp"

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#ifdef DUET_WITH_MPI
#include <duet/distributed/mpi.hpp>
#include <duet/workload/check.hpp>
#endif

namespace duet::cli {

#ifdef DUET_WITH_MPI
namespace {

bool oversubscribing()
{
    const char* value = std::getenv("DUET_OVERSUBSCRIBE");
    return value != nullptr && (std::string(value) == "1" || std::string(value) == "on");
}

class MpiRanks final : public Ranks {
public:
    MpiRanks() : oversubscribe_(oversubscribing()) {}
    ~MpiRanks() override
    {
        for (const auto& [device, communicator] : communicators_) {
            workload::set_communicator(device, nullptr);
        }
    }

    int rank() const override { return world_.rank(); }
    int size() const override { return world_.size(); }

    std::pair<Device, std::string> take(const Device& picked) override
    {
        // The devices a rank may take in the pick's place: the same backend, platform and type,
        // in the registry's order, from the pick on.
        std::vector<Device> group;
        bool from_pick = false;
        for (const Device& device : Registry::global().devices()) {
            from_pick = from_pick || device == picked;
            const auto& a = device.properties();
            const auto& b = picked.properties();
            if (from_pick && device.backend() == picked.backend() && a.platform == b.platform && a.type == b.type) {
                group.push_back(device);
            }
        }
        const auto local = static_cast<std::size_t>(world_.local_rank());
        const auto needed = static_cast<std::size_t>(world_.local_size());
        if (needed > group.size() && !oversubscribe_) {
            std::string names;
            for (const Device& device : group) {
                names += (names.empty() ? "" : ", ") + device.selector();
            }
            throw UsageError(std::to_string(needed) + " ranks on this node need " + std::to_string(needed) +
                             " devices like " + picked.selector() + " (" + picked.backend() + ", " +
                             picked.properties().platform + ") from it on, but there are " +
                             std::to_string(group.size()) + " (" + names +
                             "); run fewer ranks, or set DUET_OVERSUBSCRIBE=1 to share them");
        }
        if (needed > group.size() && world_.rank() == 0) {
            std::cerr << "note: " << needed << " ranks on this node share " << group.size() << " device(s) like "
                      << picked.selector() << ", round robin (DUET_OVERSUBSCRIBE): their times are not one device's "
                      << "a rank\n";
        }
        const Device mine = group[local % group.size()];
        // One communicator a pick, made by every rank alike (making one is collective); a rank whose
        // two picks land on one device (oversubscribed) could not tell their runs apart.
        for (const auto& [device, made] : communicators_) {
            if (device == mine) {
                throw UsageError("rank " + std::to_string(world_.rank()) + " would run two picks on " +
                                 mine.selector() + ", sharing devices (DUET_OVERSUBSCRIBE): pick one device a backend");
            }
        }
        auto* communicator =
            communicators_.emplace_back(mine, std::make_unique<distributed::MpiCommunicator>(world_, mine))
                .second.get();
        workload::set_communicator(mine, communicator);
        // Rank 0 names every rank's device: "cuda:0+1" where they share a backend, as they do.
        std::string label = picked.backend() + ":";
        const auto selectors = communicator->gather_text(std::to_string(mine.index()));
        for (std::size_t r = 0; r < selectors.size(); ++r) {
            label += (r == 0 ? "" : "+") + selectors[r];
        }
        return {mine, world_.rank() == 0 ? label : mine.selector()};
    }

    int agree_exit_code(int code) override
    {
        // Any communicator serves: they all span every rank. Without one (a command that picked no
        // device), each rank's own code stands.
        if (communicators_.empty()) {
            return code;
        }
        auto& communicator = *communicators_.front().second;
        return static_cast<int>(communicator.sum_over_ranks(world_.rank() == 0 ? code : 0));
    }

    [[noreturn]] void abort(int code, const std::string& message) override { world_.abort(code, message); }

private:
    distributed::MpiWorld world_;
    bool oversubscribe_;
    /// In the order made, the same on every rank: collectives on the first agree the exit code.
    std::vector<std::pair<Device, std::unique_ptr<distributed::MpiCommunicator>>> communicators_;
};

} // namespace

std::unique_ptr<Ranks> start_ranks()
{
    if (!distributed::MpiWorld::launched_by_mpirun()) {
        return nullptr;
    }
    return std::make_unique<MpiRanks>();
}

#else

std::unique_ptr<Ranks> start_ranks()
{
    return nullptr;
}

#endif

} // namespace duet::cli
