// Where a backend or a platform is known to behave differently, declared once, each with where it
// shows and why (as Unified Runtime's known-failure lists do). A test asks DeviceTest::shows() and
// then asserts the difference where it shows and the common behaviour elsewhere, so a difference
// that goes away fails its test, and the entry here is what to delete.
#pragma once

#include <duet/device.hpp>

#include <string_view>

namespace duet::test {

struct KnownDifference {
    std::string_view name;
    std::string_view where; ///< in words, for the test's output
    std::string_view reason;
    bool (*shows_on)(const Device& device);
};

namespace known {

/// Write-combined host memory: CUDA has it (CU_MEMHOSTALLOC_WRITECOMBINED); OpenCL has no such
/// allocation, and duet refuses the kind rather than hand out ordinary pinned memory.
extern const KnownDifference no_write_combined_memory;
/// Kernel::set_cache_preference: cuFuncSetCacheConfig on CUDA; OpenCL has no L1/shared split.
extern const KnownDifference no_cache_preference;
/// cuFuncGetParamInfo reports parameter sizes only: CUDA launches cannot tell an 8-byte value
/// from a pointer, and a wrong argument is named by count or size, not by its kind.
extern const KnownDifference no_parameter_kinds;
/// PoCL 5's CPU driver answers CL_KERNEL_LOCAL_MEM_SIZE with 0 for static __local arrays, which
/// it places outside the work-group's local memory (PoCL 3.1 reports their size).
extern const KnownDifference pocl5_static_local_memory_zero;
/// Program binaries on CUDA are the driver's own cubins and fatbins, which the driver checks;
/// on OpenCL duet wraps the driver's binary with the kernels' argument kinds and checks both.
extern const KnownDifference binaries_checked_by_the_driver;
/// access's ldg path: OpenCL C has no __ldg; its one read-only hint is const restrict.
extern const KnownDifference no_ldg;
/// access's constant path: CUDA's __constant__ memory is a module symbol, which duet's API
/// cannot copy into; OpenCL passes a buffer as a __constant argument.
extern const KnownDifference no_constant_input;
/// Kernel::driver_occupancy: cuOccupancyMaxActiveBlocksPerMultiprocessor on CUDA; OpenCL's API has
/// no occupancy query (duet explain computes one with the same rules).
extern const KnownDifference no_driver_occupancy;
/// Program::assembly: PTX on CUDA and NVIDIA's OpenCL; a CPU driver's binary is an object file
/// of its own (PoCL), with no text to read.
extern const KnownDifference no_assembly_text;

} // namespace known
} // namespace duet::test
