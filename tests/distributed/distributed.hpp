// What the distributed tests share: the process's MpiWorld (made by main.cpp), and the fixture that
// gives each rank its device, queue and communicator for one backend and path.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <duet/distributed/mpi.hpp>
#include <duet/duet.hpp>

namespace duet::test {

distributed::MpiWorld& world();

/// The devices of the first OpenCL platform that has one for every rank on this node, in order, so
/// that the ranks, each taking its own, run one request on one platform; empty where none has.
std::vector<Device> one_platforms_devices_for_the_ranks();

/// Skips the current test on a run of fewer than two ranks, saying so.
#define DUET_REQUIRE_TWO_RANKS()                                                                                       \
    do {                                                                                                               \
        if (::duet::test::world().size() < 2) {                                                                        \
            GTEST_SKIP() << "needs at least 2 ranks (run under mpirun -n 2); this run has "                            \
                         << ::duet::test::world().size();                                                              \
        }                                                                                                              \
    } while (false)

} // namespace duet::test
