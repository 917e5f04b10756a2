// nccl.hpp declares NCCL's types and values itself, so that duet builds without NCCL: checked here
// against the nccl.h of the build machine (built only where it has one).
#include <nccl.h>

#include "nccl.hpp"

#include <gtest/gtest.h>

#include <type_traits>

namespace duet::distributed::nccl {
namespace {

static_assert(sizeof(UniqueId) == sizeof(ncclUniqueId) && unique_id_bytes == NCCL_UNIQUE_ID_BYTES);
static_assert(sizeof(Comm) == sizeof(ncclComm_t) && sizeof(Stream) == sizeof(cudaStream_t));
static_assert(sizeof(Result) == sizeof(ncclResult_t) && success == ncclSuccess);
static_assert(sizeof(DataType) == sizeof(ncclDataType_t) && sizeof(RedOp) == sizeof(ncclRedOp_t));
/// Two enumerators of different enums with one value.
constexpr bool same(int ours, int theirs)
{
    return ours == theirs;
}
static_assert(same(int8, ncclInt8) && same(uint8, ncclUint8) && same(int32, ncclInt32) && same(uint32, ncclUint32) &&
              same(int64, ncclInt64) && same(uint64, ncclUint64) && same(float32, ncclFloat32) &&
              same(float64, ncclFloat64));
static_assert(same(sum, ncclSum) && same(prod, ncclProd) && same(max, ncclMax) && same(min, ncclMin));
// The function pointers nccl.hpp declares take these same types where NCCL takes its own.
static_assert(std::is_same_v<decltype(&::ncclGetVersion), ncclResult_t (*)(int*)>);

TEST(NcclAbi, DeclaredAsNcclHHere)
{
    // Checked at compile time above; this names the header version the check was made against.
    RecordProperty("nccl_h_version", NCCL_VERSION_CODE);
    SUCCEED() << "nccl.h " << NCCL_MAJOR << "." << NCCL_MINOR;
}

} // namespace
} // namespace duet::distributed::nccl
