// The few NCCL entry points the communicator calls, declared with NCCL 2.x's ABI types so that duet
// builds without NCCL's headers and opens libnccl.so.2 at run time, as the CUDA backend opens the
// driver. Types and values as in NCCL 2.x's nccl.h (NVIDIA/nccl, src/nccl.h.in; unchanged from 2.0
// to 2.28): ncclUniqueId is 128 bytes, ncclComm_t an opaque pointer, ncclResult_t, ncclDataType_t
// and ncclRedOp_t C enums (int-sized). tests/distributed/nccl_abi_test.cpp checks them against the
// nccl.h of the build machine, where it has one.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace duet::distributed::nccl {

using Result = int;                         ///< ncclResult_t
inline constexpr Result success = 0;        ///< ncclSuccess
inline constexpr int unique_id_bytes = 128; ///< NCCL_UNIQUE_ID_BYTES
struct UniqueId {                           ///< ncclUniqueId
    char internal[unique_id_bytes];
};
using Comm = struct Opaque*; ///< ncclComm_t
using Stream = void*;        ///< cudaStream_t, which is CUstream

/// ncclDataType_t: the values duet's element types map to.
enum DataType : int { int8 = 0, uint8 = 1, int32 = 2, uint32 = 3, int64 = 4, uint64 = 5, float32 = 7, float64 = 8 };
/// ncclRedOp_t: the built-in operations duet uses.
enum RedOp : int { sum = 0, prod = 1, max = 2, min = 3 };

/// libnccl.so.2's functions, and libcuda.so.1's two that NCCL's callers need: NCCL works on the
/// calling thread's current device, so the device's primary context is made current first.
struct Library {
    Result (*get_version)(int* version);
    Result (*get_unique_id)(UniqueId* id);
    Result (*comm_init_rank)(Comm* comm, int ranks, UniqueId id, int rank);
    Result (*comm_destroy)(Comm comm);
    Result (*all_reduce)(const void* send, void* recv, std::size_t count, DataType type, RedOp op, Comm comm,
                         Stream stream);
    Result (*all_gather)(const void* send, void* recv, std::size_t count, DataType type, Comm comm, Stream stream);
    Result (*broadcast)(const void* send, void* recv, std::size_t count, DataType type, int root, Comm comm,
                        Stream stream);
    Result (*send)(const void* send, std::size_t count, DataType type, int peer, Comm comm, Stream stream);
    Result (*recv)(void* recv, std::size_t count, DataType type, int peer, Comm comm, Stream stream);
    Result (*group_start)();
    Result (*group_end)();
    const char* (*get_error_string)(Result result);

    int (*cu_ctx_set_current)(void* context);                ///< CUresult cuCtxSetCurrent(CUcontext)
    int (*cu_get_error_name)(int result, const char** name); ///< CUresult cuGetErrorName(CUresult, const char**)

    /// Throws duet::Error naming `call` and NCCL's text unless `result` is success.
    void check(Result result, const char* call) const;
    /// cuCtxSetCurrent(context), or duet::Error naming the driver's error.
    void make_current(void* context) const;
};

/// The libraries, loaded once per process; null with `reason` saying why where either cannot be
/// opened or lacks a function.
std::shared_ptr<const Library> load(std::string& reason);

} // namespace duet::distributed::nccl
