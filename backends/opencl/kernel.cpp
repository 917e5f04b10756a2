// Kernels looked up by name in a built program, with what launches need cached once: the
// argument count and kinds that queue_launch checks (the program's, from the driver or its
// binary), and the limits that the core checks ranges against; the kinds are also what the
// kernel_parameters extension reports.
//
// NVIDIA's OpenCL (driver 580) answers CL_KERNEL_WORK_GROUP_SIZE 256 for every kernel: an empty
// one of 4 registers, one declaring reqd_work_group_size(32, 32, 1), whatever the build options
// (-cl-nv-maxrregcount, -cl-nv-opt-level, -cl-std). Yet it launches and computes blocks of 1024
// work-items of such kernels correctly, and refuses at the enqueue, with CL_OUT_OF_RESOURCES, a
// block whose registers do not fit (measured on an H100). So on NVIDIA's OpenCL a kernel's largest
// block is worked out as CUDA's driver does, from its registers (program.cpp reads them from the
// compiler's log) and the device's register file; the driver's 256 is kept for display. The log
// is empty when the driver takes the program from its compute cache (~/.nv/ComputeCache) and runs
// no ptxas, as for any source it has built before unless CUDA_CACHE_DISABLE=1. Then the 256 is not
// applied either: the device's maximum stands, and the enqueue's CL_OUT_OF_RESOURCES (queue.cpp)
// refuses a block whose registers do not fit.
#include "common.hpp"
#include "register_file.hpp"

#include <algorithm>
#include <array>
#include <memory>

namespace duet::backend::opencl {
namespace {

[[noreturn]] void fail_unknown_kernel(const duet_program_s& program, const char* name, cl_int code)
{
    std::string listed = program.kernel_names.empty() ? "none" : program.kernel_names;
    for (std::size_t at = listed.find(';'); at != std::string::npos; at = listed.find(';', at))
        listed.replace(at, 1, ", ");
    // PoCL renames a kernel that has the name of an OpenCL built-in function (dot -> _cl_dot).
    const std::string renamed = "_cl_" + std::string(name);
    const bool was_renamed = (";" + program.kernel_names + ";").find(";" + renamed + ";") != std::string::npos;
    fail(DUET_ERROR_NOT_FOUND,
         std::string("no kernel '") + name + "' in program" +
             (was_renamed ? ": the compiler renamed it '" + renamed + "' ('" + name +
                                "' is an OpenCL built-in function); give the kernel another name"
                          : "; it has: " + listed),
         "clCreateKernel", code, error_name(code));
}

template <class T> T work_group_info(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param)
{
    T value{};
    check(clGetKernelWorkGroupInfo(kernel, device, param, sizeof value, &value, nullptr), "clGetKernelWorkGroupInfo");
    return value;
}

duet_kernel_properties properties_of(cl_kernel kernel, const duet_program_s& program, const std::string& name)
{
    const duet_device_s& device = *program.device;
    duet_kernel_properties properties{};
    properties.driver_max_block_size = work_group_info<std::size_t>(kernel, device.id, CL_KERNEL_WORK_GROUP_SIZE);
    properties.static_local_memory = work_group_info<cl_ulong>(kernel, device.id, CL_KERNEL_LOCAL_MEM_SIZE);
    properties.private_memory = work_group_info<cl_ulong>(kernel, device.id, CL_KERNEL_PRIVATE_MEM_SIZE);
    const auto required =
        work_group_info<std::array<std::size_t, 3>>(kernel, device.id, CL_KERNEL_COMPILE_WORK_GROUP_SIZE);
    std::copy(required.begin(), required.end(), properties.required_block);
    const auto registers = program.kernel_registers.find(name);
    properties.registers = registers == program.kernel_registers.end() ? 0 : registers->second;

    const std::uint64_t by_registers =
        block_limit_by_registers(properties.registers, device.registers_per_block, device.warp_width);
    if (by_registers != 0) {
        properties.max_block_size = std::min(by_registers, device.max_block_size);
        properties.max_block_limit =
            by_registers < device.max_block_size ? DUET_BLOCK_LIMIT_REGISTERS : DUET_BLOCK_LIMIT_DEVICE;
    } else if (device.registers_per_block != 0) {
        properties.max_block_size = device.max_block_size;
        properties.max_block_limit = DUET_BLOCK_LIMIT_DEVICE;
    } else {
        properties.max_block_size = properties.driver_max_block_size;
        properties.max_block_limit =
            properties.max_block_size < device.max_block_size ? DUET_BLOCK_LIMIT_DRIVER : DUET_BLOCK_LIMIT_DEVICE;
    }
    const std::uint64_t required_size = required[0] * required[1] * required[2];
    if (required_size != 0 && required_size <= properties.max_block_size) {
        properties.max_block_size = required_size;
        properties.max_block_limit = DUET_BLOCK_LIMIT_DECLARED;
    }
    return properties;
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
        created->properties = properties_of(created->kernel, *program, created->name);
        *kernel = created.release();
    });
}

duet_status kernel_release(duet_kernel kernel)
{
    return guard([&] { delete kernel; });
}

duet_status kernel_properties(duet_kernel kernel, duet_kernel_properties* properties)
{
    return guard([&] { write_sized(properties, kernel->properties); });
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
