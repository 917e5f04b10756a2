// The host side of access, written once against duet's API: the same code launches the OpenCL
// kernels and the CUDA kernels, and refuses a load path a backend lacks or an input its constant
// memory cannot hold.
#include "access.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include <duet_kernels/access.hpp>

namespace duet::access {
namespace {

/// Threads are numbered with 32-bit integers: a grid covering n must stay below 2^32.
constexpr std::size_t max_n = std::size_t{1} << 31;

/// OpenCL guarantees a full-profile device this much __constant memory.
constexpr std::uint64_t opencl_minimum_constant_bytes = 64 * 1024;

constexpr Path paths[] = {Path::plain, Path::restricted, Path::ldg, Path::constant};
constexpr Pattern patterns[] = {Pattern::strided, Pattern::random};

const char* name(Path path)
{
    switch (path) {
    case Path::plain:
        return "plain";
    case Path::restricted:
        return "restrict";
    case Path::ldg:
        return "ldg";
    case Path::constant:
        return "constant";
    }
    return "?";
}

const char* name(Pattern pattern)
{
    return pattern == Pattern::strided ? "strided" : "random";
}

std::string kernel_name(Path path, Pattern pattern)
{
    return std::string("access_") + name(pattern) + "_" + name(path);
}

/// CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE from the backend's own property list; nullopt where absent.
std::optional<std::uint64_t> reported_constant_bytes(const Device& device)
{
    for (const auto& [key, value] : device.properties().raw) {
        if (key == "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE") {
            return std::stoull(value);
        }
    }
    return std::nullopt;
}

/// Why the backend's kernels have no such path: the language lacks it, or duet's API does.
std::string missing_path_reason(Path path, const std::string& backend)
{
    if (path == Path::ldg) {
        return "OpenCL C has no __ldg (an explicit read-only-cache load); its one read-only hint is const restrict, "
               "measured as the restrict variant";
    }
    if (path == Path::constant) {
        return "CUDA's __constant__ memory is a fixed-size module symbol, and duet's API has no copy into one "
               "(cuModuleGetGlobal, cuMemcpyHtoD): a __constant__ input cannot be filled from a buffer";
    }
    return "the " + backend + " kernels have no " + name(path) + " path";
}

} // namespace

std::vector<std::uint32_t> random_rows(std::size_t n, std::uint64_t seed)
{
    std::vector<std::uint32_t> rows(n);
    std::iota(rows.begin(), rows.end(), 0U);
    std::shuffle(rows.begin(), rows.end(), std::mt19937_64(seed));
    return rows;
}

Launcher::Launcher(const Device& device) : backend_(device.backend())
{
    const Program program = device.build(kernels::access());
    for (const Path path : paths) {
        for (const Pattern pattern : patterns) {
            const std::string kernel = kernel_name(path, pattern);
            if (program.has_kernel(kernel)) {
                kernels_[static_cast<int>(path)][static_cast<int>(pattern)] = program.kernel(kernel);
            }
        }
    }
    if (kernels_[static_cast<int>(Path::constant)][0]) {
        constant_limit_ = reported_constant_bytes(device).value_or(opencl_minimum_constant_bytes);
    }
}

std::optional<std::string> Launcher::refusal(Path path, std::size_t input_floats) const
{
    if (!kernels_[static_cast<int>(path)][0]) {
        return missing_path_reason(path, backend_);
    }
    const std::uint64_t bytes = std::uint64_t{input_floats} * sizeof(float);
    if (path == Path::constant && bytes > constant_limit_) {
        return "the input's " + std::to_string(bytes) + " bytes (" + std::to_string(input_floats) +
               " floats) exceed this device's " + std::to_string(constant_limit_) +
               " bytes of constant memory (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)";
    }
    return std::nullopt;
}

void Launcher::set_cache_preference(Path path, Pattern pattern, CachePreference preference) const
{
    try {
        kernel(path, pattern).set_cache_preference(preference);
    } catch (const Unsupported&) {
        // A backend without the control has one split, which `none` asks for.
        if (preference != CachePreference::none) {
            throw;
        }
    }
}

const Kernel& Launcher::kernel(Path path, Pattern pattern) const
{
    const auto& kernel = kernels_[static_cast<int>(path)][static_cast<int>(pattern)];
    if (!kernel) {
        throw Unsupported(backend_, "access::Launcher", missing_path_reason(path, backend_));
    }
    return *kernel;
}

void Launcher::run(Queue& queue, Path path, Pattern pattern, const Buffer<float>& in,
                   const Buffer<std::uint32_t>& index, const Buffer<float>& out, std::size_t n, std::size_t stride,
                   std::size_t block) const
{
    constexpr const char* call = "access::Launcher::run";
    const auto invalid = [&](const std::string& message) { throw InvalidArgument(backend_, call, message); };
    if (n == 0 || n > max_n || n > out.size()) {
        invalid("n = " + std::to_string(n) + ": must be 1 to the output's " + std::to_string(out.size()) +
                " elements and the kernels' limit of " + std::to_string(max_n));
    }
    if (stride == 0 || block == 0) {
        invalid("stride " + std::to_string(stride) + ", block " + std::to_string(block) + ": neither may be 0");
    }
    const std::uint64_t input_floats = std::uint64_t{n} * stride;
    if (input_floats > max_input_floats || input_floats > in.size()) {
        invalid("n × stride = " + std::to_string(input_floats) + " floats exceeds the input's " +
                std::to_string(in.size()) + " or the kernels' 32-bit limit of " + std::to_string(max_input_floats));
    }
    if (pattern == Pattern::random && n > index.size()) {
        invalid("n = " + std::to_string(n) + " exceeds the index's " + std::to_string(index.size()) + " rows");
    }
    // The constant kernels take the whole buffer as their __constant argument, not only the part
    // they read (at least n × stride floats, checked above).
    if (const auto refused = refusal(path, path == Path::constant ? in.size() : input_floats)) {
        throw Unsupported(backend_, call, *refused);
    }
    const auto n32 = static_cast<std::uint32_t>(n);
    const auto stride32 = static_cast<std::uint32_t>(stride);
    if (pattern == Pattern::strided) {
        queue.launch(kernel(path, pattern), Range::cover(n, block), in, out, n32, stride32);
    } else {
        queue.launch(kernel(path, pattern), Range::cover(n, block), in, index, out, n32, stride32);
    }
}

} // namespace duet::access
