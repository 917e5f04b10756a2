// A tiny MPI program for the CTest cases that check how a failing rank ends the job: "abort", the
// last rank throws and calls MpiWorld::abort while the others wait in a barrier it never reaches
// (the job must end, non-zero, within seconds); "exit", the last rank returns 1 after a barrier
// (mpirun must return non-zero, as the gtest binary's ranks rely on).
#include <duet/distributed/mpi.hpp>
#include <duet/error.hpp>

#include <mpi.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode != "abort" && mode != "exit") {
        std::fprintf(stderr, "usage: %s abort|exit\n", argv[0]);
        return 2;
    }
    duet::distributed::MpiWorld world;
    const bool failing = world.rank() == world.size() - 1;
    if (mode == "exit") {
        MPI_Barrier(MPI_COMM_WORLD);
        return failing ? 1 : 0;
    }
    try {
        if (failing) {
            throw duet::Error("duet", "abort_probe", "this rank fails on purpose");
        }
        MPI_Barrier(MPI_COMM_WORLD); // never completes: the failing rank does not come
    } catch (const std::exception& error) {
        world.abort(3, error.what());
    }
    std::fprintf(stderr, "rank %d passed a barrier that a rank never reached\n", world.rank());
    return 0;
}
