// The CUDA backend's function table and the one symbol the plugin exports.
#include "common.hpp"

namespace duet::backend::cuda {
namespace {
#define DUET_BACKEND_NAME "cuda"
#include "backend_table.inc"
#undef DUET_BACKEND_NAME
} // namespace
} // namespace duet::backend::cuda

/// Hands out the table even on a major mismatch, so that the core can name both versions.
extern "C" DUET_BACKEND_EXPORT duet_status duet_backend_entry(uint32_t abi_major, uint32_t,
                                                              const duet_backend_v1** table)
{
    *table = &duet::backend::cuda::table;
    return abi_major == DUET_ABI_MAJOR ? DUET_SUCCESS : DUET_ERROR_ABI_MISMATCH;
}
