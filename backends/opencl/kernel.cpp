// Kernels looked up by name in a built program, with what launches need cached once: the
// argument count and kinds that queue_launch checks, and the limits that the core checks ranges
// against.
#include "common.hpp"

#include <memory>
#include <optional>

namespace duet::backend::opencl {
namespace {

[[noreturn]] void fail_unknown_kernel(const duet_program_s& program, const char* name, cl_int code)
{
    std::string listed = program.kernel_names.empty() ? "none" : program.kernel_names;
    for (std::size_t at = listed.find(';'); at != std::string::npos; at = listed.find(';', at))
        listed.replace(at, 1, ", ");
    fail(DUET_ERROR_NOT_FOUND, std::string("no kernel '") + name + "' in program; it has: " + listed,
         "clCreateKernel", code, error_name(code));
}

/// CL_KERNEL_ARG_TYPE_NAME of one argument ("float*"), or nullopt when the driver will not say.
std::optional<std::string> argument_type(cl_kernel kernel, cl_uint index)
{
    std::size_t size = 0;
    if (clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_NAME, 0, nullptr, &size) != CL_SUCCESS)
        return std::nullopt;
    std::string name(size, '\0');
    if (clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_NAME, size, name.data(), nullptr) != CL_SUCCESS)
        return std::nullopt;
    while (!name.empty() && name.back() == '\0')
        name.pop_back();
    return name;
}

/// Each argument's address qualifier and type name, or nothing when the driver keeps no argument
/// info for this kernel (CL_KERNEL_ARG_INFO_NOT_AVAILABLE, or any other refusal of the query).
void read_argument_info(duet_kernel_s& kernel)
{
    for (cl_uint index = 0; index < kernel.arg_count; ++index) {
        cl_kernel_arg_address_qualifier qualifier = 0;
        std::optional<std::string> type;
        if (clGetKernelArgInfo(kernel.kernel, index, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof qualifier, &qualifier,
                               nullptr) != CL_SUCCESS ||
            !(type = argument_type(kernel.kernel, index))) {
            kernel.arg_qualifiers.clear();
            kernel.arg_types.clear();
            return;
        }
        kernel.arg_qualifiers.push_back(qualifier);
        kernel.arg_types.push_back(std::move(*type));
    }
}

template <class T>
T work_group_info(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param)
{
    T value{};
    check(clGetKernelWorkGroupInfo(kernel, device, param, sizeof value, &value, nullptr), "clGetKernelWorkGroupInfo");
    return value;
}

} // namespace

duet_status kernel_create(duet_program program, const char* name, duet_kernel* kernel)
{
    return guard([&] {
        auto created = std::make_unique<duet_kernel_s>();
        created->name = name;
        cl_int code = CL_SUCCESS;
        created->kernel = clCreateKernel(program->program, name, &code);
        if (code == CL_INVALID_KERNEL_NAME)
            fail_unknown_kernel(*program, name, code);
        check(code, "clCreateKernel");

        const cl_device_id device = program->device->id;
        created->arg_count = info<cl_uint>(clGetKernelInfo, created->kernel, CL_KERNEL_NUM_ARGS, "clGetKernelInfo");
        read_argument_info(*created);
        created->max_block_size = work_group_info<std::size_t>(created->kernel, device, CL_KERNEL_WORK_GROUP_SIZE);
        created->static_local_memory = work_group_info<cl_ulong>(created->kernel, device, CL_KERNEL_LOCAL_MEM_SIZE);
        *kernel = created.release();
    });
}

duet_status kernel_release(duet_kernel kernel)
{
    return guard([&] { delete kernel; });
}

duet_status kernel_limits(duet_kernel kernel, std::uint64_t* max_block_size, std::uint64_t* static_local_memory)
{
    return guard([&] {
        *max_block_size = kernel->max_block_size;
        *static_local_memory = kernel->static_local_memory;
    });
}

} // namespace duet::backend::opencl

duet_kernel_s::~duet_kernel_s()
{
    if (kernel)
        clReleaseKernel(kernel);
}

namespace duet::backend::opencl {

duet_status kernel_set_cache_preference(duet_kernel, duet_cache_preference)
{
    return guard([] {
        fail(DUET_ERROR_UNSUPPORTED, "OpenCL has no control over the split between L1 cache and local memory "
                                     "(CUDA's cuFuncSetCacheConfig); the driver chooses it");
    });
}

} // namespace duet::backend::opencl
