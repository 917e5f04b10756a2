// The CLI under mpirun (duet built with MPI): MPI started, this rank's devices and communicators.
#pragma once

#include <memory>

#include "model/ranks.hpp"

namespace duet::cli {

/// The ranks of this process where mpirun started it and duet has MPI; null otherwise (a process
/// mpirun started in a duet built without MPI runs on its own, as any other). MPI ends when the
/// returned object goes, so main keeps it for the command's whole run. With DUET_OVERSUBSCRIBE=1,
/// ranks beyond a node's devices share them, round robin.
std::unique_ptr<Ranks> start_ranks();

} // namespace duet::cli
