// What a workload exchanges with the other ranks of a distributed run, and how: an all-reduce, an
// all-gather and a halo exchange on device buffers, each timed on its queue and saying which path
// it took. Workloads call only this interface, so they build and run without MPI; one_rank() serves
// a run of one rank, and libduet_distributed's MpiCommunicator a run under mpirun.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <duet/device.hpp>
#include <duet/event.hpp>
#include <duet/queue.hpp>
#include <duet/workload/agreement.hpp>

namespace duet::workload {

/// How an exchange's data went between ranks.
enum class ExchangePath {
    local,           ///< one rank: nothing to move
    staged,          ///< device → pinned host memory, MPI on host memory, host → device
    device_pointers, ///< device pointers handed to a CUDA-aware MPI
    nccl             ///< NCCL on the queue's stream
};

/// "one rank", "staged through pinned host memory", "device pointers to CUDA-aware MPI", "NCCL".
std::string_view to_string(ExchangePath path);

enum class ReduceOp { sum, max, min };

/// "sum", "max", "min".
std::string_view to_string(ReduceOp op);

/// One exchange as it ran on this rank.
struct ExchangeRecord {
    std::string exchange; ///< "all_reduce", "all_gather", "halo_exchange"
    ExchangePath path = ExchangePath::local;
    /// This rank's payload: the reduced range, every rank's gathered blocks, the halos it sent and
    /// received. 0 on one rank, which moves nothing.
    std::uint64_t bytes = 0;
    /// Recorded on the exchange's queue just before its first enqueue and after its last: the
    /// device time of the exchange (elapsed_ms), host waits included, since the queue idles
    /// while the host waits for MPI.
    Event start;
    Event end;
};

/// One rank's view of a distributed run. Every rank calls the exchanges in the same order with the
/// same counts and types, as MPI's collectives require. Each exchange is ordered after the queue's
/// earlier work and before its later work, as a copy is; the host may block until its MPI part is
/// done. Offsets and counts are in elements of the exchange's ElementType. The arguments are checked
/// here, before anything is enqueued or sent (InvalidArgument naming the exchange, the problem and
/// the limit); the implementations see only checked ones.
class Communicator {
public:
    /// With the neighbours rank-1 and rank+1 (none past the ends: not periodic), `count` elements
    /// at send_low go to rank-1's recv_high, and at send_high to rank+1's recv_low. Ranges without
    /// a neighbour are neither read nor written (the first rank's low ones, the last's high ones).
    struct Halo {
        std::size_t send_low = 0;
        std::size_t recv_low = 0;
        std::size_t send_high = 0;
        std::size_t recv_high = 0;
        std::size_t count = 0;
    };

    virtual ~Communicator();

    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// "MPI, 2 ranks (Open MPI 4.1.6), NCCL 2.28" or "one rank": what a report names.
    virtual std::string describe() const = 0;
    /// The device this rank's exchanges run on, whose queues they take; none for one_rank(),
    /// which moves nothing and so takes any queue.
    virtual std::optional<Device> device() const = 0;

    /// Element-wise reduction of `count` elements at `offset` over every rank, the result on every
    /// rank, in place (MPI_Allreduce / ncclAllReduce).
    ExchangeRecord all_reduce(Queue& queue, const RawBuffer& buffer, std::size_t offset, std::size_t count,
                              ElementType type, ReduceOp op);
    /// Every rank's block into every rank's buffer, in place: rank r's block (counts[r] elements
    /// at displacement counts[0] + … + counts[r-1]) is already in its own buffer; counts may be
    /// uneven and zero (MPI_Allgatherv / NCCL broadcasts from each rank).
    ExchangeRecord all_gather(Queue& queue, const RawBuffer& buffer, std::span<const std::size_t> counts,
                              ElementType type);
    /// The halos of a domain split along one axis (MPI_Isend/MPI_Irecv / ncclSend/ncclRecv). The
    /// two receive ranges may overlap neither each other nor a send range.
    ExchangeRecord halo_exchange(Queue& queue, const RawBuffer& buffer, const Halo& halo, ElementType type);

    /// Host-side, for the verdict and the outputs: every rank's text (of any length: the outputs
    /// may pass 2 GiB) on rank 0, in rank order; other ranks get {}.
    virtual std::vector<std::string> gather_text(const std::string& text) = 0;
    /// Host-side: the largest of every rank's value, on every rank (the slowest rank's time).
    virtual double max_over_ranks(double value) = 0;
    /// Host-side: the sum of every rank's value, on every rank.
    virtual double sum_over_ranks(double value) = 0;
    /// Host-side: returns once every rank has called it (MPI_Barrier).
    virtual void barrier() = 0;
    /// From now on each exchange's record is also appended to `log` (null: to none), so that a
    /// runner can time its passes' communication; the caller keeps `log` alive meanwhile.
    void log_exchanges(std::vector<ExchangeRecord>* log) { log_ = log; }
    /// Ends every rank's process with `message`: a rank that fails in the middle of a run would
    /// otherwise leave the others waiting in its next exchange. One rank throws Error instead.
    [[noreturn]] virtual void abort(const std::string& message) = 0;

protected:
    // The exchanges themselves, their arguments checked; each returns the path it took and
    // enqueues its device work on `queue` (the start and end events are the caller's).
    virtual ExchangePath reduce(Queue& queue, const RawBuffer& buffer, std::size_t offset, std::size_t count,
                                ElementType type, ReduceOp op) = 0;
    virtual ExchangePath gather(Queue& queue, const RawBuffer& buffer, std::span<const std::size_t> counts,
                                ElementType type) = 0;
    virtual ExchangePath exchange_halos(Queue& queue, const RawBuffer& buffer, const Halo& halo, ElementType type) = 0;

private:
    std::vector<ExchangeRecord>* log_ = nullptr;
};

/// The one-rank communicator: size 1, every exchange records the path `local` and moves nothing.
Communicator& one_rank();

} // namespace duet::workload
