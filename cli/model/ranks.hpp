// A command started by mpirun: every rank runs it, each on a device of its own, and rank 0 alone
// reports. What the model needs of that (which device a rank takes for the one a command picked,
// who prints); MPI itself is behind it, in commands/distributed.cpp.
#pragma once

#include <string>
#include <utility>

#include <duet/duet.hpp>

namespace duet::cli {

/// This process's rank of a distributed run.
class Ranks {
public:
    virtual ~Ranks() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// The device this rank takes where a command picked `picked` (rank 0 takes it, rank r the r-th
    /// of the node's devices of its backend, platform and type from it on), set up as one rank of a
    /// distributed run, and the label naming every rank's device ("cuda:0+1"). Collective: every
    /// rank takes the same picks in the same order. Too few devices is a UsageError naming both counts.
    virtual std::pair<Device, std::string> take(const Device& picked) = 0;
    /// Rank 0's exit code on every rank, so that mpirun's own exit code is the verdict's.
    virtual int agree_exit_code(int code) = 0;
    /// Ends every rank (MPI_Abort) after printing `message`: a rank that fails alone must not leave
    /// the others waiting in an exchange.
    [[noreturn]] virtual void abort(int code, const std::string& message) = 0;
};

/// The ranks of this process, or null where mpirun did not start it.
Ranks* ranks();
/// Set by main while a command runs under mpirun; null again after it.
void set_ranks(Ranks* ranks);
/// Whether this process prints and writes what a command reports: rank 0, or a process on its own.
bool reporting();

} // namespace duet::cli
