// CUresult translation and the ContextScope every slot opens. Error names come from the driver
// (cuGetErrorName), so codes newer than this build are still named.
#include "common.hpp"

#include <utility>

namespace duet::backend::cuda {

const char* error_name(CUresult code)
{
    const char* name = nullptr;
    if (driver().cuGetErrorName == nullptr || driver().cuGetErrorName(code, &name) != CUDA_SUCCESS || name == nullptr)
        return "unknown CUDA error";
    return name;
}

namespace {
duet_status status_of(CUresult code)
{
    switch (code) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        return DUET_ERROR_OUT_OF_MEMORY;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_INVALID_CONTEXT:
        return DUET_ERROR_INVALID_ARGUMENT;
    case CUDA_ERROR_NOT_FOUND:
        return DUET_ERROR_NOT_FOUND;
    case CUDA_ERROR_NOT_SUPPORTED:
        return DUET_ERROR_UNSUPPORTED;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED:
        return DUET_ERROR_UNAVAILABLE;
    default:
        return DUET_ERROR_BACKEND;
    }
}
} // namespace

void fail_native(CUresult code, const char* call, std::string message)
{
    const char* name = error_name(code);
    if (message.empty()) {
        const char* text = nullptr;
        message = std::string(call) + " failed: " + name + " (" + std::to_string(code) + ")";
        if (driver().cuGetErrorString != nullptr && driver().cuGetErrorString(code, &text) == CUDA_SUCCESS && text)
            message += ": " + std::string(text);
    }
    fail(status_of(code), std::move(message), call, code, name);
}

} // namespace duet::backend::cuda

using duet::backend::cuda::check;
using duet::backend::cuda::driver;

ContextScope::ContextScope(const duet_device_s& device)
{
    CUcontext current = nullptr;
    if (driver().cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != device.context)
        check(driver().cuCtxSetCurrent(device.context), "cuCtxSetCurrent");
}
