// Kernels: look-up by name, their parameter list (cuFuncGetParamInfo) for argument checks, and
// the limits the core checks launches against, with what sets them.
#include "common.hpp"
#include "register_file.hpp"

#include <memory>

namespace duet::backend::cuda {
namespace {

int function_attribute(CUfunction function, CUfunction_attribute attribute)
{
    int value = 0;
    check(driver().cuFuncGetAttribute(&value, attribute, function), "cuFuncGetAttribute");
    return value;
}

/// CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK is the least of the device's maximum, what the
/// registers allow and the kernel's __launch_bounds__: below the first two, the kernel declared it.
duet_kernel_properties properties_of(CUfunction function, const duet_device_s& device)
{
    duet_kernel_properties properties{};
    properties.max_block_size =
        static_cast<std::uint64_t>(function_attribute(function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    properties.driver_max_block_size = properties.max_block_size;
    properties.static_local_memory =
        static_cast<std::uint64_t>(function_attribute(function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
    properties.private_memory =
        static_cast<std::uint64_t>(function_attribute(function, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
    properties.registers = static_cast<std::uint32_t>(function_attribute(function, CU_FUNC_ATTRIBUTE_NUM_REGS));
    const auto device_max = static_cast<std::uint64_t>(attribute(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    const std::uint64_t by_registers = block_limit_by_registers(
        properties.registers,
        static_cast<std::uint32_t>(attribute(device, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)),
        static_cast<std::uint32_t>(attribute(device, CU_DEVICE_ATTRIBUTE_WARP_SIZE)));
    if (properties.max_block_size >= device_max)
        properties.max_block_limit = DUET_BLOCK_LIMIT_DEVICE;
    else if (by_registers != 0 && properties.max_block_size >= by_registers)
        properties.max_block_limit = DUET_BLOCK_LIMIT_REGISTERS;
    else
        properties.max_block_limit = DUET_BLOCK_LIMIT_DECLARED;
    return properties;
}

} // namespace

duet_status kernel_create(duet_program program, const char* name, duet_kernel* kernel)
{
    return guard([&] {
        ContextScope scope(*program->device);
        auto created = std::make_unique<duet_kernel_s>();
        created->device = program->device;
        created->name = name;
        const CUresult found = driver().cuModuleGetFunction(&created->function, program->module, name);
        if (found == CUDA_ERROR_NOT_FOUND) {
            std::string names = program->kernel_names;
            for (auto& c : names)
                c = c == ';' ? ',' : c;
            fail(DUET_ERROR_NOT_FOUND, "no kernel '" + std::string(name) + "' in program; it has: " + names,
                 "cuModuleGetFunction", found, error_name(found));
        }
        check(found, "cuModuleGetFunction");

        // cuFuncGetParamInfo answers CUDA_ERROR_INVALID_VALUE past the last parameter; any other
        // failure means this driver cannot introspect, and launches go unchecked. It reports only
        // offsets and sizes, not whether a parameter is a pointer: an 8-byte value where a kernel
        // takes a pointer cannot be told from a buffer here, unlike OpenCL's address qualifiers.
        created->params_known = true;
        for (std::size_t index = 0;; ++index) {
            std::size_t offset = 0, size = 0;
            const CUresult code = driver().cuFuncGetParamInfo(created->function, index, &offset, &size);
            if (code == CUDA_ERROR_INVALID_VALUE)
                break;
            if (code != CUDA_SUCCESS) {
                created->params_known = false;
                created->param_sizes.clear();
                break;
            }
            created->param_sizes.push_back(size);
        }

        created->properties = properties_of(created->function, *program->device);
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

duet_status kernel_set_cache_preference(duet_kernel kernel, duet_cache_preference preference)
{
    return guard([&] {
        CUfunc_cache config = CU_FUNC_CACHE_PREFER_NONE;
        switch (preference) {
        case DUET_CACHE_PREFER_NONE:
            break;
        case DUET_CACHE_PREFER_SHARED:
            config = CU_FUNC_CACHE_PREFER_SHARED;
            break;
        case DUET_CACHE_PREFER_L1:
            config = CU_FUNC_CACHE_PREFER_L1;
            break;
        case DUET_CACHE_PREFER_EQUAL:
            config = CU_FUNC_CACHE_PREFER_EQUAL;
            break;
        default:
            fail(DUET_ERROR_INVALID_ARGUMENT,
                 "unknown cache preference " + std::to_string(static_cast<int>(preference)));
        }
        ContextScope scope(*kernel->device);
        check(driver().cuFuncSetCacheConfig(kernel->function, config), "cuFuncSetCacheConfig");
    });
}

duet_status kernel_occupancy(duet_kernel kernel, std::uint32_t block_threads, std::size_t dynamic_local,
                             std::uint32_t* blocks_per_multiprocessor)
{
    return guard([&] {
        ContextScope scope(*kernel->device);
        int blocks = 0;
        check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel->function,
                                                                   static_cast<int>(block_threads), dynamic_local),
              "cuOccupancyMaxActiveBlocksPerMultiprocessor");
        *blocks_per_multiprocessor = static_cast<std::uint32_t>(blocks);
    });
}

} // namespace duet::backend::cuda
