// Kernels looked up by name in a built program, with what launches need cached once: the
// argument count and kinds that queue_launch checks (the program's, from the driver or its
// binary), and the limits that the core checks ranges against; the kinds are also what the
// kernel_parameters extension reports.
#include "common.hpp"

#include <memory>

namespace duet::backend::opencl {
namespace {

[[noreturn]] void fail_unknown_kernel(const duet_program_s& program, const char* name, cl_int code)
{
    std::string listed = program.kernel_names.empty() ? "none" : program.kernel_names;
    for (std::size_t at = listed.find(';'); at != std::string::npos; at = listed.find(';', at))
        listed.replace(at, 1, ", ");
    fail(DUET_ERROR_NOT_FOUND, std::string("no kernel '") + name + "' in program; it has: " + listed, "clCreateKernel",
         code, error_name(code));
}

template <class T> T work_group_info(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param)
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

        const auto arguments = program->kernel_arguments.find(name);
        if (arguments == program->kernel_arguments.end())
            fail(DUET_ERROR_BACKEND, std::string("kernel '") + name + "' is missing from CL_PROGRAM_KERNEL_NAMES",
                 "clGetProgramInfo");
        created->arguments = arguments->second;
        const cl_device_id device = program->device->id;
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

duet_status kernel_parameters(duet_kernel kernel, void (*sink)(void*, const char*, const char*), void* context)
{
    return guard([&] {
        const KernelArguments& arguments = kernel->arguments;
        if (arguments.qualifiers.size() != arguments.count)
            fail(DUET_ERROR_UNSUPPORTED,
                 "the driver kept no argument info for kernel '" + kernel->name +
                     "' (CL_KERNEL_ARG_INFO_NOT_AVAILABLE)",
                 "clGetKernelArgInfo");
        for (std::size_t index = 0; index < arguments.count; ++index) {
            const cl_kernel_arg_address_qualifier qualifier = arguments.qualifiers[index];
            sink(context,
                 qualifier == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? "global"
                 : qualifier == CL_KERNEL_ARG_ADDRESS_LOCAL    ? "local"
                 : qualifier == CL_KERNEL_ARG_ADDRESS_CONSTANT ? "constant"
                                                               : "private",
                 arguments.types[index].c_str());
        }
    });
}

} // namespace duet::backend::opencl

duet_kernel_s::~duet_kernel_s()
{
    if (kernel)
        clReleaseKernel(kernel);
}
