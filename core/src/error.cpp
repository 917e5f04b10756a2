// duet's exception types and the translation of a backend's status and detail into them.
#include <duet/error.hpp>

#include "state.hpp"

namespace duet {

namespace {
std::string describe(const std::string& backend, const std::string& call, std::int64_t code,
                     const std::string& native_name, const std::string& message)
{
    std::string text = "[" + backend + "]";
    if (!call.empty()) {
        text += " " + call + ":";
    }
    if (!native_name.empty()) {
        text += " " + native_name + " (" + std::to_string(code) + "):";
    } else if (code != 0) {
        text += " error " + std::to_string(code) + ":";
    }
    return text + " " + message;
}
} // namespace

Error::Error(std::string backend, std::string call, std::int64_t native_code, std::string native_name,
             std::string message)
    : std::runtime_error(describe(backend, call, native_code, native_name, message)), backend_(std::move(backend)),
      call_(std::move(call)), native_code_(native_code), native_name_(std::move(native_name)),
      message_(std::move(message))
{
}

Error::Error(std::string backend, std::string call, std::string message)
    : Error(std::move(backend), std::move(call), 0, "", std::move(message))
{
}

namespace detail {

Backend::Backend(std::string name, std::string version, const duet_backend_v1& table)
    : name_(std::move(name)), version_(std::move(version)), api_(table)
{
}

void Backend::raise(duet_status status) const
{
    duet_error_detail detail{sizeof(duet_error_detail), "", 0, "", "no detail: the backend has no last_error"};
    if (api_.last_error != nullptr) {
        api_.last_error(&detail);
    }
    const auto make = [&]<class E>() {
        return E(name_, detail.call ? detail.call : "", detail.native_code,
                 detail.native_name ? detail.native_name : "", detail.message ? detail.message : "");
    };
    switch (status) {
    case DUET_ERROR_INVALID_ARGUMENT:
        throw make.operator()<InvalidArgument>();
    case DUET_ERROR_NOT_FOUND:
        throw make.operator()<NotFound>();
    case DUET_ERROR_BUILD:
        throw make.operator()<BuildError>();
    case DUET_ERROR_UNSUPPORTED:
        throw make.operator()<Unsupported>();
    case DUET_ERROR_OUT_OF_MEMORY:
        throw make.operator()<OutOfMemory>();
    case DUET_ERROR_UNAVAILABLE:
    case DUET_ERROR_ABI_MISMATCH:
        throw make.operator()<Unavailable>();
    default:
        throw make.operator()<Error>();
    }
}

duet_function Backend::find_extension(const char* name, const char* what) const
{
    duet_function function = nullptr;
    const duet_status status = require(api_.extension, what)(name, &function);
    if (status == DUET_ERROR_NOT_FOUND || (status == DUET_SUCCESS && function == nullptr)) {
        unsupported(what);
    }
    check(status);
    return function;
}

void Backend::unsupported(const char* what) const
{
    fail<Unsupported>(name_, what, "the " + name_ + " backend does not provide " + what);
}

} // namespace detail
} // namespace duet
