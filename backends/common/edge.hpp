// The C ABI edge of a backend: backend code throws duet::backend::Failure (or anything else);
// guard() turns it into a duet_status and keeps the detail for last_error() on the same thread,
// so no exception ever crosses into the core.
#pragma once

#include <duet/abi/backend.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <utility>

namespace duet::backend {

struct Failure {
    duet_status status;
    std::string message;
    std::string call;
    std::int64_t native_code = 0;
    std::string native_name;
};

[[noreturn]] inline void fail(duet_status status, std::string message, std::string call = {},
                              std::int64_t native_code = 0, std::string native_name = {})
{
    throw Failure{status, std::move(message), std::move(call), native_code, std::move(native_name)};
}

inline Failure& last_failure()
{
    thread_local Failure failure{DUET_SUCCESS, {}, {}, 0, {}};
    return failure;
}

/// Hands `filled` over into the caller's `out`, a sized struct of the ABI ("Structs that a backend
/// fills" in backend.h): no more bytes than the caller's size says, nor than this backend's struct;
/// size becomes the bytes written. Nothing is written when the caller's size cannot hold the size.
template <class Sized> void write_sized(Sized* out, Sized filled)
{
    if (out->size < sizeof(out->size))
        return;
    filled.size = std::min(out->size, sizeof(Sized));
    std::memcpy(static_cast<void*>(out), &filled, filled.size);
}

inline void last_error(duet_error_detail* detail)
{
    const Failure& failure = last_failure();
    duet_error_detail filled{};
    filled.call = failure.call.c_str();
    filled.native_code = failure.native_code;
    filled.native_name = failure.native_name.c_str();
    filled.message = failure.message.c_str();
    write_sized(detail, filled);
}

/// A function of one backend alone, handed out by name through the extension slot.
struct Extension {
    const char* name;
    duet_function function;
};

/// Runs `body` and reports how it ended; every ABI slot of a backend is one call to this.
template <class Body> duet_status guard(Body&& body) noexcept
{
    try {
        body();
        return DUET_SUCCESS;
    } catch (Failure& failure) {
        last_failure() = std::move(failure);
    } catch (const std::bad_alloc&) {
        last_failure() = {DUET_ERROR_OUT_OF_MEMORY, "host memory exhausted", "operator new", 0, {}};
    } catch (const std::exception& error) {
        last_failure() = {DUET_ERROR_BACKEND, error.what(), {}, 0, {}};
    } catch (...) {
        last_failure() = {DUET_ERROR_BACKEND, "unknown exception inside the backend", {}, 0, {}};
    }
    return last_failure().status;
}

/// Copies `text` into a fixed-size char field of duet_device_properties, always terminated.
template <std::size_t N> void copy_text(char (&field)[N], const std::string& text)
{
    const std::size_t n = text.size() < N - 1 ? text.size() : N - 1;
    text.copy(field, n);
    field[n] = '\0';
}

} // namespace duet::backend
