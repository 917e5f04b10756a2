// duet's exceptions: every failure names the backend, the call that failed, the native code and
// its name, and a readable message. Thrown by the core only; backends report through the C ABI.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace duet {

/// Base of every duet exception. native_code and native_name are the backend's own
/// (e.g. -54 / "CL_INVALID_WORK_GROUP_SIZE", or 2 / "CUDA_ERROR_OUT_OF_MEMORY").
class Error : public std::runtime_error {
public:
    Error(std::string backend, std::string call, std::int64_t native_code, std::string native_name,
          std::string message);
    /// A failure duet finds itself, with no native code: `call` names where it was found
    /// ("workload::Spec", "jacobi"), `backend` whose device it concerns ("duet" for none).
    Error(std::string backend, std::string call, std::string message);

    const std::string& backend() const noexcept { return backend_; }
    const std::string& call() const noexcept { return call_; }
    std::int64_t native_code() const noexcept { return native_code_; }
    const std::string& native_name() const noexcept { return native_name_; }
    const std::string& message() const noexcept { return message_; }

private:
    std::string backend_;
    std::string call_;
    std::int64_t native_code_;
    std::string native_name_;
    std::string message_;
};

/// Bad sizes, ranges, copies or selectors; raised before anything reaches the device.
class InvalidArgument : public Error {
    using Error::Error;
};

/// A name that does not exist (kernel, device, backend); the message lists the ones that do.
class NotFound : public Error {
    using Error::Error;
};

/// A program failed to build; message() and log() hold the compiler's full log.
class BuildError : public Error {
public:
    using Error::Error;
    const std::string& log() const noexcept { return message(); }
};

/// The backend cannot do this at all (e.g. write-combined host memory on OpenCL).
class Unsupported : public Error {
    using Error::Error;
};

class OutOfMemory : public Error {
    using Error::Error;
};

/// The backend cannot run on this machine (no driver, no devices, ABI mismatch).
class Unavailable : public Error {
    using Error::Error;
};

} // namespace duet
