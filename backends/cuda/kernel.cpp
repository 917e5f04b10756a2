// Kernels: look-up by name, their parameter list (cuFuncGetParamInfo) for argument checks, and
// the limits the core checks launches against.
#include "common.hpp"

#include <memory>

namespace duet::backend::cuda {

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

        int value = 0;
        check(driver().cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, created->function),
              "cuFuncGetAttribute");
        created->max_block_size = static_cast<std::uint64_t>(value);
        check(driver().cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, created->function),
              "cuFuncGetAttribute");
        created->static_local_memory = static_cast<std::uint64_t>(value);
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

} // namespace duet::backend::cuda
