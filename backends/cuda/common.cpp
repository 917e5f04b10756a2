// CUresult names and failures (their status from status.hpp), and the ContextScope every slot
// opens. Error names come from the driver (cuGetErrorName), so codes newer than this build are
// still named.
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
