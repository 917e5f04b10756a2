// The CLI under mpirun (duet built with MPI): MPI started, this rank's devices and communicators.
#pragma once

#include <memory>

#include "model/ranks.hpp"

namespace duet::cli {

/// The ranks of this process where mpirun started it and duet has MPI; null otherwise. MPI ends
/// when the returned object goes, so main keeps it for the command's whole run. With
/// `oversubscribe` (DUET_OVERSUBSCRIBE=1), ranks beyond a node's devices share them, round robin.
std::unique_ptr<Ranks> start_ranks();

/// Rank 0's exit code on every rank, so that mpirun's own exit code is the verdict's.
int agree_exit_code(Ranks& ranks, int code);

/// Ends every rank (MPI_Abort) after printing `message`: a rank that fails alone must not leave
/// the others waiting in an exchange.
[[noreturn]] void abort_ranks(Ranks& ranks, int code, const std::string& message);

} // namespace duet::cli
