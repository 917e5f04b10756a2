// The known differences between backends and platforms, and where each shows.
#include "known_differences.hpp"

#include <string>

namespace duet::test::known {

namespace {

bool on_opencl(const Device& device)
{
    return device.backend() == "opencl";
}

bool on_cuda(const Device& device)
{
    return device.backend() == "cuda";
}

bool on_pocl5_cpu(const Device& device)
{
    const auto& p = device.properties();
    return on_opencl(device) && p.type == DeviceType::cpu &&
           p.platform.find("Portable Computing") != std::string::npos && p.driver_version.starts_with("5.");
}

} // namespace

const KnownDifference no_write_combined_memory{
    "no_write_combined_memory", "OpenCL",
    "OpenCL has no write-combined host allocation; duet refuses the kind rather than give ordinary pinned memory",
    on_opencl};

const KnownDifference no_cache_preference{"no_cache_preference", "OpenCL",
                                          "OpenCL has no L1/shared-memory split to prefer (cuFuncSetCacheConfig)",
                                          on_opencl};

const KnownDifference no_parameter_kinds{
    "no_parameter_kinds", "CUDA",
    "cuFuncGetParamInfo reports parameter sizes only: an 8-byte value has a pointer's size, and a wrong argument is "
    "named by its count or size, not its kind",
    on_cuda};

const KnownDifference pocl5_static_local_memory_zero{
    "pocl5_static_local_memory_zero", "PoCL 5 on a CPU",
    "PoCL 5's CPU driver reports 0 bytes of CL_KERNEL_LOCAL_MEM_SIZE for static __local arrays, which it places "
    "outside the work-group's local memory; duet passes the driver's number through",
    on_pocl5_cpu};

const KnownDifference binaries_checked_by_the_driver{
    "binaries_checked_by_the_driver", "CUDA",
    "CUDA program binaries are the driver's own cubins and fatbins, checked by the driver; duet checks the OpenCL "
    "binaries it wraps",
    on_cuda};

const KnownDifference no_ldg{"no_ldg", "OpenCL", "OpenCL C has no __ldg; its one read-only hint is const restrict",
                             on_opencl};

const KnownDifference no_constant_input{
    "no_constant_input", "CUDA",
    "CUDA's __constant__ memory is a fixed-size module symbol, and duet's API has no copy into one "
    "(cuModuleGetGlobal, cuMemcpyHtoD); OpenCL passes a buffer as a __constant argument",
    on_cuda};

const KnownDifference no_driver_occupancy{
    "no_driver_occupancy", "OpenCL",
    "OpenCL has no occupancy query (CUDA's cuOccupancyMaxActiveBlocksPerMultiprocessor)", on_opencl};

const KnownDifference no_assembly_text{
    "no_assembly_text", "OpenCL on a CPU",
    "a CPU driver's program binary is an object file of its own (PoCL), not PTX text",
    [](const Device& device) { return on_opencl(device) && device.properties().type == DeviceType::cpu; }};

} // namespace duet::test::known
