// Modules: fatbins and cached cubins loaded with cuModuleLoadData, and CUDA source compiled at
// run time by NVRTC (loaded on first use, so a machine without it still runs fatbins).
#include "common.hpp"

#include <nvrtc.h>

#include <dlfcn.h>

#include <memory>
#include <sstream>

namespace duet::backend::cuda {
namespace {

struct Nvrtc {
    decltype(&::nvrtcVersion) version = nullptr;
    decltype(&::nvrtcGetErrorString) error_string = nullptr;
    decltype(&::nvrtcCreateProgram) create = nullptr;
    decltype(&::nvrtcCompileProgram) compile = nullptr;
    decltype(&::nvrtcGetProgramLogSize) log_size = nullptr;
    decltype(&::nvrtcGetProgramLog) log = nullptr;
    decltype(&::nvrtcGetCUBINSize) cubin_size = nullptr;
    decltype(&::nvrtcGetCUBIN) cubin = nullptr;
    decltype(&::nvrtcGetPTXSize) ptx_size = nullptr;
    decltype(&::nvrtcGetPTX) ptx = nullptr;
    decltype(&::nvrtcDestroyProgram) destroy = nullptr;
};

/// NVRTC of the toolkit duet was built with; the first CUDA-source build loads it.
const Nvrtc& nvrtc()
{
    static const Nvrtc loaded = [] {
        const std::string soname = "libnvrtc.so." + std::to_string(CUDA_VERSION / 1000);
        void* library = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr)
            fail(DUET_ERROR_UNSUPPORTED,
                 "CUDA source needs NVRTC, and " + soname + " is not installed (" + dlerror() +
                     "); programs shipped as fatbins still load",
                 "dlopen");
        Nvrtc api;
        const auto resolve = [&](auto& function, const char* symbol) {
            function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, symbol));
            if (function == nullptr)
                fail(DUET_ERROR_UNSUPPORTED, soname + " lacks " + symbol, "dlsym");
        };
        resolve(api.version, "nvrtcVersion");
        resolve(api.error_string, "nvrtcGetErrorString");
        resolve(api.create, "nvrtcCreateProgram");
        resolve(api.compile, "nvrtcCompileProgram");
        resolve(api.log_size, "nvrtcGetProgramLogSize");
        resolve(api.log, "nvrtcGetProgramLog");
        resolve(api.cubin_size, "nvrtcGetCUBINSize");
        resolve(api.cubin, "nvrtcGetCUBIN");
        resolve(api.ptx_size, "nvrtcGetPTXSize");
        resolve(api.ptx, "nvrtcGetPTX");
        resolve(api.destroy, "nvrtcDestroyProgram");
        return api;
    }();
    return loaded;
}

void check_nvrtc(nvrtcResult code, const char* call)
{
    if (code != NVRTC_SUCCESS)
        fail(DUET_ERROR_BACKEND, std::string(call) + " failed: " + nvrtc().error_string(code), call, code,
             nvrtc().error_string(code));
}

/// What NVRTC made of a source: the cubin loaded, and the PTX it was assembled from, to be read.
struct Compiled {
    std::string cubin;
    std::string ptx;
    std::string options; ///< NVRTC's, space-separated
};

/// CUDA C++ source to a cubin for this device's exact architecture.
Compiled compile(const duet_device_s& device, const std::string& source, const char* options)
{
    const Nvrtc& api = nvrtc();
    nvrtcProgram program = nullptr;
    check_nvrtc(api.create(&program, source.c_str(), "duet_program.cu", 0, nullptr, nullptr), "nvrtcCreateProgram");
    const std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> owner(&program,
                                                                       [](nvrtcProgram* p) { nvrtc().destroy(p); });

    std::vector<std::string> words{"--gpu-architecture=sm_" + std::to_string(device.compute_major) +
                                       std::to_string(device.compute_minor),
                                   "--std=c++17"};
    std::istringstream split(options ? options : "");
    for (std::string word; split >> word;)
        words.push_back(word);
    std::vector<const char*> arguments;
    for (const auto& word : words)
        arguments.push_back(word.c_str());

    const nvrtcResult compiled = api.compile(program, static_cast<int>(arguments.size()), arguments.data());
    std::size_t log_size = 0;
    std::string log;
    if (api.log_size(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
        log.resize(log_size);
        api.log(program, log.data());
        log.resize(log_size - 1);
    }
    if (compiled != NVRTC_SUCCESS)
        fail(DUET_ERROR_BUILD, log.empty() ? std::string(api.error_string(compiled)) : log, "nvrtcCompileProgram",
             compiled, api.error_string(compiled));

    Compiled compiled_program;
    for (const auto& word : words) {
        compiled_program.options += (compiled_program.options.empty() ? "" : " ") + word;
    }
    std::size_t size = 0;
    check_nvrtc(api.cubin_size(program, &size), "nvrtcGetCUBINSize");
    compiled_program.cubin.assign(size, '\0');
    check_nvrtc(api.cubin(program, compiled_program.cubin.data()), "nvrtcGetCUBIN");
    check_nvrtc(api.ptx_size(program, &size), "nvrtcGetPTXSize");
    compiled_program.ptx.assign(size, '\0');
    check_nvrtc(api.ptx(program, compiled_program.ptx.data()), "nvrtcGetPTX");
    if (!compiled_program.ptx.empty() && compiled_program.ptx.back() == '\0') {
        compiled_program.ptx.pop_back(); // the size counts the terminating null
    }
    return compiled_program;
}

std::string kernel_names(CUmodule module)
{
    unsigned count = 0;
    check(driver().cuModuleGetFunctionCount(&count, module), "cuModuleGetFunctionCount");
    std::vector<CUfunction> functions(count);
    check(driver().cuModuleEnumerateFunctions(functions.data(), count, module), "cuModuleEnumerateFunctions");
    std::string names;
    for (const CUfunction function : functions) {
        const char* name = nullptr;
        check(driver().cuFuncGetName(&name, function), "cuFuncGetName");
        if (!names.empty()) {
            names += ';';
        }
        names += name;
    }
    return names;
}

} // namespace

std::string nvrtc_version()
{
    int major = 0, minor = 0;
    try {
        if (nvrtc().version(&major, &minor) != NVRTC_SUCCESS)
            return {};
    } catch (const Failure&) {
        return {};
    }
    return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

duet_status program_create(duet_device device, duet_program_format format, const void* data, std::size_t size,
                           const char* options, duet_program* program)
{
    return guard([&] {
        auto created = std::make_unique<duet_program_s>();
        created->device = device;
        switch (format) {
        case DUET_FORMAT_FATBIN:
        case DUET_FORMAT_NATIVE:
            created->binary.assign(static_cast<const char*>(data), size);
            break;
        case DUET_FORMAT_CUDA_C: {
            Compiled compiled = compile(*device, std::string(static_cast<const char*>(data), size), options);
            created->binary = std::move(compiled.cubin);
            created->assembly = std::move(compiled.ptx);
            created->options = std::move(compiled.options);
            break;
        }
        default:
            fail(DUET_ERROR_UNSUPPORTED, "the CUDA backend builds fatbins, cubins and CUDA C++ source, not format " +
                                             std::to_string(static_cast<int>(format)));
        }
        ContextScope scope(*device);
        const CUresult loaded = driver().cuModuleLoadData(&created->module, created->binary.data());
        if (loaded == CUDA_ERROR_NO_BINARY_FOR_GPU || loaded == CUDA_ERROR_INVALID_IMAGE)
            fail_native(loaded, "cuModuleLoadData",
                        "the binary holds no code this GPU (sm_" + std::to_string(device->compute_major) +
                            std::to_string(device->compute_minor) + ") can run, nor PTX for it (" + error_name(loaded) +
                            ")");
        check(loaded, "cuModuleLoadData");
        created->kernel_names = kernel_names(created->module);
        *program = created.release();
    });
}

duet_status program_release(duet_program program)
{
    return guard([&] { delete program; });
}

duet_status program_binary(duet_program program, void (*sink)(void* context, const void* data, std::size_t size),
                           void* context)
{
    return guard([&] { sink(context, program->binary.data(), program->binary.size()); });
}

duet_status program_assembly(duet_program program, duet_program_sink sink, void* context)
{
    return guard([&] {
        if (program->assembly.empty()) {
            fail(DUET_ERROR_UNSUPPORTED, "this program was loaded as a fatbin or a cubin, which keep no PTX the driver "
                                         "hands back; NVRTC's builds keep theirs");
        }
        sink(context, program->assembly.data(), program->assembly.size());
    });
}

duet_status program_options(duet_program program, const char** options)
{
    return guard([&] { *options = program->options.c_str(); });
}

duet_status program_kernel_names(duet_program program, const char** names)
{
    return guard([&] { *names = program->kernel_names.c_str(); });
}

} // namespace duet::backend::cuda

duet_program_s::~duet_program_s()
{
    using duet::backend::cuda::driver;
    if (module != nullptr && driver().cuCtxSetCurrent(device->context) == CUDA_SUCCESS)
        driver().cuModuleUnload(module);
}
