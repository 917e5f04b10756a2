// MpiWorld, the rank's device, and MpiCommunicator's three paths: MPI on pinned host copies
// (staged), MPI on device pointers (CUDA-aware Open MPI), NCCL on the queue's stream.
#include <duet/distributed/mpi.hpp>

#include <duet/error.hpp>

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> // Open MPI's extensions: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support()
#endif

#include "nccl.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>

namespace duet::distributed {

using workload::ElementType;
using workload::ExchangePath;
using workload::ReduceOp;

namespace {

/// duet::Error naming `call` and MPI's own text, unless `code` is MPI_SUCCESS.
void check(int code, const char* call)
{
    if (code == MPI_SUCCESS) {
        return;
    }
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
        length = 0;
    }
    throw Error("MPI", call, code, "", length > 0 ? std::string(text, length) : "no text from MPI_Error_string");
}

/// MPI counts are int: larger exchanges are refused rather than cut short.
int mpi_count(std::size_t count, const char* call, const char* what)
{
    if (count > static_cast<std::size_t>(INT_MAX)) {
        throw InvalidArgument("MPI", call,
                              std::string(what) + " of " + std::to_string(count) + " elements is more than MPI's " +
                                  std::to_string(INT_MAX) + " (an int count) in one call");
    }
    return static_cast<int>(count);
}

MPI_Datatype mpi_type(ElementType type)
{
    switch (type) {
    case ElementType::f64:
        return MPI_DOUBLE;
    case ElementType::i32:
        return MPI_INT32_T;
    case ElementType::u32:
        return MPI_UINT32_T;
    case ElementType::i64:
        return MPI_INT64_T;
    case ElementType::u8:
        return MPI_UINT8_T;
    case ElementType::f32:
        break;
    }
    return MPI_FLOAT;
}

MPI_Op mpi_op(ReduceOp op)
{
    switch (op) {
    case ReduceOp::max:
        return MPI_MAX;
    case ReduceOp::min:
        return MPI_MIN;
    case ReduceOp::sum:
        break;
    }
    return MPI_SUM;
}

nccl::DataType nccl_type(ElementType type)
{
    switch (type) {
    case ElementType::f64:
        return nccl::float64;
    case ElementType::i32:
        return nccl::int32;
    case ElementType::u32:
        return nccl::uint32;
    case ElementType::i64:
        return nccl::int64;
    case ElementType::u8:
        return nccl::uint8;
    case ElementType::f32:
        break;
    }
    return nccl::float32;
}

nccl::RedOp nccl_op(ReduceOp op)
{
    switch (op) {
    case ReduceOp::max:
        return nccl::max;
    case ReduceOp::min:
        return nccl::min;
    case ReduceOp::sum:
        break;
    }
    return nccl::sum;
}

/// "2.28.9" from NCCL_VERSION_CODE (major × 10000 + minor × 100 + patch since 2.9, × 1000 before).
std::string nccl_version_text(int code)
{
    const int major = code >= 10000 ? code / 10000 : code / 1000;
    const int minor = code >= 10000 ? code % 10000 / 100 : code % 1000 / 100;
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

bool finalised()
{
    int done = 0;
    MPI_Finalized(&done);
    return done != 0;
}

/// What a path needs, as bits every rank's capabilities are combined with.
int bit(ExchangePath path)
{
    return 1 << static_cast<int>(path);
}

std::string word_of(ExchangePath path)
{
    switch (path) {
    case ExchangePath::staged:
        return "staged";
    case ExchangePath::device_pointers:
        return "device_pointers";
    case ExchangePath::nccl:
        return "nccl";
    case ExchangePath::local:
        break;
    }
    return "local";
}

} // namespace

// --- MpiWorld ---

MpiWorld::MpiWorld()
{
    int initialised = 0;
    check(MPI_Initialized(&initialised), "MPI_Initialized");
    if (finalised()) {
        throw Error("MPI", "MPI_Init_thread", "MPI was finalised already in this process and cannot start again");
    }
    int provided = 0;
    if (initialised == 0) {
        check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
        initialised_here_ = true;
    } else {
        check(MPI_Query_thread(&provided), "MPI_Query_thread");
    }
    if (provided < MPI_THREAD_SERIALIZED) {
        if (initialised_here_) {
            MPI_Finalize();
        }
        throw Unsupported("MPI", "MPI_Init_thread",
                          "the MPI library gives thread level " + std::to_string(provided) +
                              ", below MPI_THREAD_SERIALIZED (" + std::to_string(MPI_THREAD_SERIALIZED) +
                              ") which exchanges from a workload's own thread need");
    }
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    MPI_Comm node = MPI_COMM_NULL;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    check(MPI_Comm_rank(node, &local_rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(node, &local_size_), "MPI_Comm_size");
    MPI_Comm_free(&node);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    check(MPI_Get_library_version(version, &length), "MPI_Get_library_version");
    library_version_.assign(version, static_cast<std::size_t>(length));
    // "Open MPI v4.1.6, package: ..., ident: ...": the name and version, before the details.
    library_version_ = library_version_.substr(0, library_version_.find_first_of(",\n"));
}

MpiWorld::~MpiWorld()
{
    if (initialised_here_ && !finalised()) {
        MPI_Finalize();
    }
}

void MpiWorld::abort(int code, const std::string& message) const
{
    std::fprintf(stderr, "duet: rank %d of %d: %s\n", rank_, size_, message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::abort(); // MPI_Abort does not return; should a library's return anyway, this process still ends.
}

bool MpiWorld::launched_by_mpirun()
{
    for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
        if (const char* value = std::getenv(variable); value != nullptr && *value != '\0') {
            return true;
        }
    }
    return false;
}

Device rank_device(const std::vector<Device>& candidates, const MpiWorld& world)
{
    const auto local_rank = static_cast<std::size_t>(world.local_rank());
    if (local_rank < candidates.size()) {
        return candidates[local_rank];
    }
    std::string selectors;
    for (const Device& device : candidates) {
        selectors += (selectors.empty() ? "" : ", ") + device.selector();
    }
    throw InvalidArgument("MPI", "rank_device",
                          std::to_string(world.local_size()) + (world.local_size() == 1 ? " rank" : " ranks") +
                              " on this node but " + std::to_string(candidates.size()) +
                              (candidates.size() == 1 ? " device (" : " devices (") +
                              (selectors.empty() ? "none" : selectors) + "): one device per rank");
}

std::optional<ExchangePath> parse_exchange(std::string_view word)
{
    for (const ExchangePath path : {ExchangePath::staged, ExchangePath::device_pointers, ExchangePath::nccl}) {
        if (word == word_of(path)) {
            return path;
        }
    }
    if (word == "auto") {
        return std::nullopt;
    }
    throw InvalidArgument("duet", "DUET_EXCHANGE",
                          "unknown exchange path '" + std::string(word) +
                              "': the paths are staged, device_pointers, nccl and auto");
}

std::optional<ExchangePath> exchange_from_environment()
{
    const char* value = std::getenv("DUET_EXCHANGE");
    return value == nullptr || *value == '\0' ? std::nullopt : parse_exchange(value);
}

// --- MpiCommunicator ---

struct MpiCommunicator::State {
    explicit State(const Device& device) : device(device) {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State()
    {
        if (nccl_comm != nullptr) {
            try {
                nccl->make_current(device.native().context);
            } catch (...) { // a destructor never throws; ncclCommDestroy still frees what it can
            }
            nccl->comm_destroy(nccl_comm);
        }
        if (comm != MPI_COMM_NULL && !finalised()) {
            MPI_Comm_free(&comm);
        }
    }

    /// Pinned host memory of at least `bytes`, once the device has read the last exchange's copy
    /// out of it (an exchange on another queue may come next).
    char* staging(std::size_t bytes)
    {
        if (staging_free.state()) {
            staging_free.wait();
        }
        if (staging_bytes < bytes) {
            staging_bytes = std::max(bytes, 2 * staging_bytes);
            staging_buffer = device.alloc_host(staging_bytes, HostMemoryKind::pinned);
        }
        return static_cast<char*>(staging_buffer.data());
    }

    // MPI on memory MPI may address: host memory, or device memory with a CUDA-aware MPI.
    void all_reduce(void* data, std::size_t count, ElementType type, ReduceOp op) const
    {
        check(MPI_Allreduce(MPI_IN_PLACE, data, mpi_count(count, "MPI_Allreduce", "the reduced range"), mpi_type(type),
                            mpi_op(op), comm),
              "MPI_Allreduce");
    }
    /// Every rank's block into `data`, in place: this rank's is there already.
    void all_gather(void* data, std::span<const std::size_t> counts, ElementType type) const
    {
        constexpr const char* call = "MPI_Allgatherv";
        std::vector<int> blocks;
        std::vector<int> displacements;
        std::size_t at = 0;
        for (const std::size_t count : counts) {
            displacements.push_back(mpi_count(at, call, "a block's displacement"));
            blocks.push_back(mpi_count(count, call, "a block"));
            at += count;
        }
        check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, blocks.data(), displacements.data(),
                             mpi_type(type), comm),
              call);
    }
    /// Sends and receives with each neighbour that exists; a null pointer for one that does not.
    void halos(const void* send_low, void* recv_low, const void* send_high, void* recv_high, std::size_t count,
               ElementType type) const
    {
        const int n = mpi_count(count, "MPI_Isend", "a halo");
        MPI_Request requests[4];
        int pending = 0;
        // One tag serves both directions: each pair of neighbours sends one message each way.
        constexpr int tag = 24;
        const auto with = [&](const void* send, void* recv, int peer) {
            check(MPI_Irecv(recv, n, mpi_type(type), peer, tag, comm, &requests[pending++]), "MPI_Irecv");
            check(MPI_Isend(send, n, mpi_type(type), peer, tag, comm, &requests[pending++]), "MPI_Isend");
        };
        if (send_low != nullptr) {
            with(send_low, recv_low, rank - 1);
        }
        if (send_high != nullptr) {
            with(send_high, recv_high, rank + 1);
        }
        check(MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
    }

    /// NCCL works on the calling thread's current device: its primary context first.
    nccl::Stream nccl_stream(const Queue& queue) const
    {
        nccl->make_current(device.native().context);
        return queue.native();
    }
    /// Runs `calls` between ncclGroupStart and ncclGroupEnd, the group ended even when one throws.
    template <class Calls> void nccl_group(Calls&& calls) const
    {
        nccl->check(nccl->group_start(), "ncclGroupStart");
        try {
            calls();
        } catch (...) {
            nccl->group_end();
            throw;
        }
        nccl->check(nccl->group_end(), "ncclGroupEnd");
    }

    Device device;
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    int size = 1;
    std::string mpi_version;
    ExchangePath path = ExchangePath::staged;
    std::shared_ptr<const nccl::Library> nccl;
    nccl::Comm nccl_comm = nullptr;
    std::string nccl_version;
    HostBuffer staging_buffer;
    std::size_t staging_bytes = 0;
    Event staging_free;
};

namespace {

/// Whether this rank can hand device pointers to MPI, else why not.
bool cuda_aware_mpi(std::string& reason)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    if (MPIX_Query_cuda_support() == 1) {
        return true;
    }
    reason = "Open MPI's library here is not CUDA-aware (MPIX_Query_cuda_support() returned 0)";
#else
    reason = "the MPI duet was built with is not CUDA-aware (MPIX_CUDA_AWARE_SUPPORT is not set in mpi-ext.h)";
#endif
    return false;
}

} // namespace

MpiCommunicator::MpiCommunicator(const MpiWorld& world, const Device& device, std::optional<ExchangePath> requested)
    : state_(std::make_unique<State>(device))
{
    State& s = *state_;
    check(MPI_Comm_dup(MPI_COMM_WORLD, &s.comm), "MPI_Comm_dup");
    check(MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    s.rank = world.rank();
    s.size = world.size();
    s.mpi_version = world.library_version();
    if (requested == ExchangePath::local) {
        throw InvalidArgument("MPI", "MpiCommunicator",
                              "the path 'one rank' is one_rank()'s: an MPI communicator takes staged, "
                              "device_pointers or nccl");
    }

    // What this rank can use, and why not where it cannot.
    std::string reasons[4];
    int mine = bit(ExchangePath::staged);
    if (device.backend() != "cuda") {
        reasons[static_cast<int>(ExchangePath::device_pointers)] = reasons[static_cast<int>(ExchangePath::nccl)] =
            "its device (" + device.selector() + ") is not a CUDA device";
    } else {
        if (cuda_aware_mpi(reasons[static_cast<int>(ExchangePath::device_pointers)])) {
            mine |= bit(ExchangePath::device_pointers);
        }
        s.nccl = nccl::load(reasons[static_cast<int>(ExchangePath::nccl)]);
        if (s.nccl) {
            mine |= bit(ExchangePath::nccl);
        }
    }
    std::vector<int> every(static_cast<std::size_t>(s.size));
    check(MPI_Allgather(&mine, 1, MPI_INT, every.data(), 1, MPI_INT, s.comm), "MPI_Allgather");
    const int agreed = std::accumulate(every.begin(), every.end(), ~0, std::bit_and<>());

    if (requested) {
        if ((agreed & bit(*requested)) == 0) {
            std::string lacking;
            for (int r = 0; r < s.size; ++r) {
                if ((every[static_cast<std::size_t>(r)] & bit(*requested)) == 0) {
                    lacking += (lacking.empty() ? "" : ", ") + std::to_string(r);
                }
            }
            std::string why = "DUET_EXCHANGE=" + word_of(*requested) + ": rank(s) " + lacking + " cannot take it";
            if ((mine & bit(*requested)) == 0) {
                why += "; this rank, " + std::to_string(s.rank) + ": " + reasons[static_cast<int>(*requested)];
            }
            throw Unsupported("MPI", "MpiCommunicator", why);
        }
        s.path = *requested;
    } else if ((agreed & bit(ExchangePath::device_pointers)) != 0) {
        s.path = ExchangePath::device_pointers;
    } else if ((agreed & bit(ExchangePath::nccl)) != 0) {
        s.path = ExchangePath::nccl;
    } else {
        s.path = ExchangePath::staged;
    }

    if (s.path == ExchangePath::nccl) {
        nccl::UniqueId id{};
        s.nccl->make_current(device.native().context);
        if (s.rank == 0) {
            s.nccl->check(s.nccl->get_unique_id(&id), "ncclGetUniqueId");
        }
        check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, s.comm), "MPI_Bcast");
        s.nccl->check(s.nccl->comm_init_rank(&s.nccl_comm, s.size, id, s.rank), "ncclCommInitRank");
        int version = 0;
        s.nccl->check(s.nccl->get_version(&version), "ncclGetVersion");
        s.nccl_version = nccl_version_text(version);
    }
}

MpiCommunicator::~MpiCommunicator() = default;

int MpiCommunicator::rank() const
{
    return state_->rank;
}

int MpiCommunicator::size() const
{
    return state_->size;
}

std::string MpiCommunicator::describe() const
{
    const State& s = *state_;
    return "MPI, " + std::to_string(s.size) + (s.size == 1 ? " rank (" : " ranks (") + s.mpi_version +
           "); exchanges: " + std::string(to_string(s.path)) +
           (s.path == ExchangePath::nccl ? " " + s.nccl_version : "");
}

std::optional<Device> MpiCommunicator::device() const
{
    return state_->device;
}

ExchangePath MpiCommunicator::path() const
{
    return state_->path;
}

std::vector<std::string> MpiCommunicator::gather_text(const std::string& text)
{
    // The lengths in 64 bits, then each rank's text to rank 0 in pieces of at most 1 GiB: MPI's
    // counts are ints, and the outputs rank 0 gathers may pass 2 GiB.
    const State& s = *state_;
    constexpr std::size_t piece = std::size_t{1} << 30;
    constexpr int tag = 25; // the halos' is 24
    const std::uint64_t length = text.size();
    std::vector<std::uint64_t> lengths(s.rank == 0 ? static_cast<std::size_t>(s.size) : 0);
    check(MPI_Gather(&length, 1, MPI_UINT64_T, lengths.data(), 1, MPI_UINT64_T, 0, s.comm), "MPI_Gather");
    if (s.rank != 0) {
        for (std::size_t at = 0; at < text.size(); at += piece) {
            check(MPI_Send(text.data() + at, static_cast<int>(std::min(piece, text.size() - at)), MPI_CHAR, 0, tag,
                           s.comm),
                  "MPI_Send");
        }
        return {};
    }
    std::vector<std::string> texts{text};
    for (int r = 1; r < s.size; ++r) {
        std::string& received =
            texts.emplace_back(static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)]), '\0');
        for (std::size_t at = 0; at < received.size(); at += piece) {
            check(MPI_Recv(received.data() + at, static_cast<int>(std::min(piece, received.size() - at)), MPI_CHAR, r,
                           tag, s.comm, MPI_STATUS_IGNORE),
                  "MPI_Recv");
        }
    }
    return texts;
}

double MpiCommunicator::max_over_ranks(double value)
{
    double result = 0;
    check(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, state_->comm), "MPI_Allreduce");
    return result;
}

void MpiCommunicator::abort(const std::string& message)
{
    const State& s = *state_;
    std::fprintf(stderr, "duet: rank %d of %d (%s): %s\n", s.rank, s.size, s.device.selector().c_str(),
                 message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort(); // MPI_Abort does not return; should a library's return anyway, this process still ends.
}

double MpiCommunicator::sum_over_ranks(double value)
{
    double result = 0;
    check(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_SUM, state_->comm), "MPI_Allreduce");
    return result;
}

void MpiCommunicator::barrier()
{
    check(MPI_Barrier(state_->comm), "MPI_Barrier");
}

ExchangePath MpiCommunicator::reduce(Queue& queue, const RawBuffer& buffer, std::size_t offset, std::size_t count,
                                     ElementType type, ReduceOp op)
{
    State& s = *state_;
    const std::size_t element = workload::element_size(type);
    if (count == 0) {
        return s.path; // every rank has nothing to reduce
    }
    switch (s.path) {
    case ExchangePath::nccl: {
        char* data = static_cast<char*>(buffer.native()) + offset * element;
        s.nccl->check(
            s.nccl->all_reduce(data, data, count, nccl_type(type), nccl_op(op), s.nccl_comm, s.nccl_stream(queue)),
            "ncclAllReduce");
        break;
    }
    case ExchangePath::device_pointers:
        queue.finish(); // the MPI library reads the device memory outside the queue's order
        s.all_reduce(static_cast<char*>(buffer.native()) + offset * element, count, type, op);
        break;
    default: {
        char* host = s.staging(count * element);
        queue.read_bytes(host, buffer, offset * element, count * element);
        queue.finish();
        s.all_reduce(host, count, type, op);
        queue.write_bytes(buffer, offset * element, host, count * element);
        s.staging_free = queue.record();
    }
    }
    return s.path;
}

ExchangePath MpiCommunicator::gather(Queue& queue, const RawBuffer& buffer, std::span<const std::size_t> counts,
                                     ElementType type)
{
    State& s = *state_;
    const std::size_t element = workload::element_size(type);
    const std::size_t own = counts[static_cast<std::size_t>(s.rank)];
    const std::size_t before = std::accumulate(counts.begin(), counts.begin() + s.rank, std::size_t{0});
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    if (total == 0) {
        return s.path; // every block is empty, on every rank alike
    }
    if (s.path == ExchangePath::nccl) {
        char* data = static_cast<char*>(buffer.native());
        const nccl::Stream stream = s.nccl_stream(queue);
        if (std::ranges::all_of(counts, [&](std::size_t count) { return count == own; })) {
            // Even blocks: NCCL's own all-gather, in place (each rank's block already at rank · own).
            s.nccl->check(s.nccl->all_gather(data + before * element, data, own, nccl_type(type), s.nccl_comm, stream),
                          "ncclAllGather");
            return s.path;
        }
        // Uneven blocks: each rank broadcasts its own, in one group.
        s.nccl_group([&] {
            std::size_t at = 0;
            for (std::size_t r = 0; r < counts.size(); ++r) {
                if (counts[r] > 0) {
                    s.nccl->check(s.nccl->broadcast(data + at * element, data + at * element, counts[r],
                                                    nccl_type(type), static_cast<int>(r), s.nccl_comm, stream),
                                  "ncclBroadcast");
                }
                at += counts[r];
            }
        });
        return s.path;
    }
    if (s.path == ExchangePath::device_pointers) {
        queue.finish();
        s.all_gather(buffer.native(), counts, type);
        return s.path;
    }
    char* host = s.staging(total * element);
    if (own > 0) {
        queue.read_bytes(host + before * element, buffer, before * element, own * element);
    }
    queue.finish();
    s.all_gather(host, counts, type);
    // Every block but this rank's own, which is in place already.
    if (before > 0) {
        queue.write_bytes(buffer, 0, host, before * element);
    }
    if (const std::size_t after = before + own; after < total) {
        queue.write_bytes(buffer, after * element, host + after * element, (total - after) * element);
    }
    s.staging_free = queue.record();
    return s.path;
}

ExchangePath MpiCommunicator::exchange_halos(Queue& queue, const RawBuffer& buffer, const Halo& halo, ElementType type)
{
    State& s = *state_;
    const std::size_t element = workload::element_size(type);
    const bool low = s.rank > 0;
    const bool high = s.rank + 1 < s.size;
    if (halo.count == 0 || (!low && !high)) {
        return s.path;
    }
    const std::size_t bytes = halo.count * element;
    if (s.path == ExchangePath::nccl) {
        char* data = static_cast<char*>(buffer.native());
        const nccl::Stream stream = s.nccl_stream(queue);
        const auto with = [&](std::size_t send, std::size_t recv, int peer) {
            s.nccl->check(s.nccl->send(data + send * element, halo.count, nccl_type(type), peer, s.nccl_comm, stream),
                          "ncclSend");
            s.nccl->check(s.nccl->recv(data + recv * element, halo.count, nccl_type(type), peer, s.nccl_comm, stream),
                          "ncclRecv");
        };
        s.nccl_group([&] {
            if (low) {
                with(halo.send_low, halo.recv_low, s.rank - 1);
            }
            if (high) {
                with(halo.send_high, halo.recv_high, s.rank + 1);
            }
        });
        return s.path;
    }
    if (s.path == ExchangePath::device_pointers) {
        char* data = static_cast<char*>(buffer.native());
        queue.finish();
        s.halos(low ? data + halo.send_low * element : nullptr, data + halo.recv_low * element,
                high ? data + halo.send_high * element : nullptr, data + halo.recv_high * element, halo.count, type);
        return s.path;
    }
    // Staged: [send low | send high | received low | received high] in the pinned buffer.
    char* host = s.staging(4 * bytes);
    if (low) {
        queue.read_bytes(host, buffer, halo.send_low * element, bytes);
    }
    if (high) {
        queue.read_bytes(host + bytes, buffer, halo.send_high * element, bytes);
    }
    queue.finish();
    s.halos(low ? host : nullptr, host + 2 * bytes, high ? host + bytes : nullptr, host + 3 * bytes, halo.count, type);
    if (low) {
        queue.write_bytes(buffer, halo.recv_low * element, host + 2 * bytes, bytes);
    }
    if (high) {
        queue.write_bytes(buffer, halo.recv_high * element, host + 3 * bytes, bytes);
    }
    s.staging_free = queue.record();
    return s.path;
}

} // namespace duet::distributed
