// Distributed runs on MPI (Open MPI): the process's place in the job (MpiWorld), the device each
// rank uses, and the Communicator over MPI_COMM_WORLD that workloads exchange data through. MPI's
// own headers stay out of this one, so the CLI builds against it without them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <duet/device.hpp>
#include <duet/workload/communicator.hpp>

namespace duet::distributed {

/// MPI for this process: initialised on construction (MPI_Init_thread, MPI_THREAD_SERIALIZED:
/// exchanges may come from any thread, one at a time) unless something else did, finalised on
/// destruction only if it initialised it. One per process; communicators must go first.
class MpiWorld {
public:
    MpiWorld();
    ~MpiWorld();
    MpiWorld(const MpiWorld&) = delete;
    MpiWorld& operator=(const MpiWorld&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    /// This rank's place among the ranks of its node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED):
    /// which of the node's devices it takes.
    int local_rank() const { return local_rank_; }
    int local_size() const { return local_size_; }
    /// "Open MPI v4.1.6, ..." (MPI_Get_library_version), its first line.
    const std::string& library_version() const { return library_version_; }

    /// Ends every rank of the job (MPI_Abort), after printing `message` with this rank's number to
    /// stderr: a rank that fails must not leave the others waiting in a collective forever.
    [[noreturn]] void abort(int code, const std::string& message) const;

    /// Whether mpirun (or another PMI launcher) started this process, read from the environment
    /// (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK), so the CLI can tell without initialising MPI.
    static bool launched_by_mpirun();

private:
    bool initialised_here_ = false;
    int rank_ = 0;
    int size_ = 1;
    int local_rank_ = 0;
    int local_size_ = 1;
    std::string library_version_;
};

/// The device of this rank: the local rank's position among `candidates` (the selected backend's
/// devices, or a selector list). More ranks on the node than candidates is InvalidArgument naming
/// both counts and the candidates.
Device rank_device(const std::vector<Device>& candidates, const MpiWorld& world);

/// DUET_EXCHANGE's words: "staged", "device_pointers", "nccl" name a path; "auto" (nullopt) takes
/// the best every rank can use. Anything else is InvalidArgument listing the words.
std::optional<workload::ExchangePath> parse_exchange(std::string_view word);
/// parse_exchange(DUET_EXCHANGE), or auto where it is unset or empty.
std::optional<workload::ExchangePath> exchange_from_environment();

/// The exchanges of one device's rank over MPI_COMM_WORLD (a duplicate of it, so that its
/// messages and its error handler, MPI_ERRORS_RETURN, are its own). A failed MPI or NCCL call
/// throws duet::Error naming the call and the library's own text.
///
/// The path is chosen once, on construction, and agreed by every rank (an MPI_Allreduce of what
/// each can use), since NCCL and device-pointer calls must be made by all ranks alike. Auto takes
/// device pointers where every rank's device is CUDA and Open MPI is CUDA-aware
/// (MPIX_Query_cuda_support()), else NCCL where every rank's device is CUDA and libnccl.so.2
/// loads, else staged through pinned host memory, which OpenCL always takes. A requested path
/// that some rank cannot use is Unsupported, naming why. Constructing one is collective.
class MpiCommunicator final : public workload::Communicator {
public:
    MpiCommunicator(const MpiWorld& world, const Device& device,
                    std::optional<workload::ExchangePath> requested = exchange_from_environment());
    ~MpiCommunicator() override;
    MpiCommunicator(const MpiCommunicator&) = delete;
    MpiCommunicator& operator=(const MpiCommunicator&) = delete;

    int rank() const override;
    int size() const override;
    std::string describe() const override;
    std::optional<Device> device() const override;
    /// The path every exchange of this communicator takes.
    workload::ExchangePath path() const;

    std::vector<std::string> gather_text(const std::string& text) override;
    double max_over_ranks(double value) override;
    double sum_over_ranks(double value) override;
    void barrier() override;
    /// MPI_Abort on every rank, after printing `message` with this rank's number.
    [[noreturn]] void abort(const std::string& message) override;

    struct State;

protected:
    workload::ExchangePath reduce(Queue& queue, const RawBuffer& buffer, std::size_t offset, std::size_t count,
                                  workload::ElementType type, workload::ReduceOp op) override;
    workload::ExchangePath gather(Queue& queue, const RawBuffer& buffer, std::span<const std::size_t> counts,
                                  workload::ElementType type) override;
    workload::ExchangePath exchange_halos(Queue& queue, const RawBuffer& buffer, const Halo& halo,
                                          workload::ElementType type) override;

private:
    std::unique_ptr<State> state_;
};

} // namespace duet::distributed
