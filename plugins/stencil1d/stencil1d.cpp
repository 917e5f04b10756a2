// The host side of stencil1d, written once against duet's API: the same code launches the OpenCL
// kernels and the CUDA kernels, and sizes the shared kernel's tile from the device's limits.
#include "stencil1d.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include <duet_kernels/stencil1d.hpp>

namespace duet::stencil1d {
namespace {

/// The kernels index with 32-bit integers and need first + span + 2R to stay below 2^32; 2R+1
/// must also be an exact float. These bounds keep both true with room to spare.
constexpr std::size_t max_n = std::size_t{1} << 31;
constexpr std::size_t max_radius = std::size_t{1} << 22;

std::size_t local_memory_limit(const Device& device, const Kernel& kernel)
{
    const DeviceProperties& p = device.properties();
    // CUDA lets a kernel opt in to more shared memory than the default; duet's launch does so.
    const std::uint64_t limit = std::max(p.local_memory_per_block, p.local_memory_per_block_optin);
    const std::uint64_t used = kernel.properties().static_local_memory;
    return limit > used ? static_cast<std::size_t>(limit - used) : 0;
}

} // namespace

Launcher::Launcher(const Device& device)
{
    const Program program = device.build(kernels::stencil1d());
    naive_ = program.kernel("stencil1d_naive");
    shared_ = program.kernel("stencil1d_shared");
    local_memory_limit_ = local_memory_limit(device, shared_);
}

std::size_t Launcher::max_shared_radius(std::size_t block) const
{
    const std::size_t tile_floats = block * items_per_thread;
    const std::size_t limit_floats = local_memory_limit_ / sizeof(float);
    return limit_floats > tile_floats ? (limit_floats - tile_floats) / 2 : 0;
}

std::optional<std::string> Launcher::shared_radius_refusal(std::size_t radius, std::size_t block) const
{
    const std::size_t limit = max_shared_radius(block);
    if (radius <= limit) {
        return std::nullopt;
    }
    return "radius " + std::to_string(radius) + " is above this device's limit of " + std::to_string(limit) +
           " for the shared kernel with block " + std::to_string(block) + ": its tile of " + std::to_string(block) +
           " x " + std::to_string(items_per_thread) + " + 2R floats must fit the " +
           std::to_string(local_memory_limit_) + " bytes of local memory per block";
}

void Launcher::run(Queue& queue, Variant variant, const Buffer<float>& in, const Buffer<float>& out, std::size_t n,
                   std::size_t radius, std::size_t block) const
{
    const std::string& backend = queue.device().backend();
    if (n > max_n || n > in.size() || n > out.size()) {
        throw InvalidArgument(backend, "stencil1d::Launcher::run",
                              "n = " + std::to_string(n) + " exceeds a buffer or the kernels' limit of " +
                                  std::to_string(max_n) + " elements");
    }
    if (block == 0) {
        throw InvalidArgument(backend, "stencil1d::Launcher::run", "block size 0: a block needs a thread");
    }
    if (radius > max_radius) {
        throw InvalidArgument(backend, "stencil1d::Launcher::run",
                              "radius " + std::to_string(radius) + " exceeds the kernels' limit of " +
                                  std::to_string(max_radius));
    }
    const auto n32 = static_cast<std::uint32_t>(n);
    const auto radius32 = static_cast<std::uint32_t>(radius);
    if (variant == Variant::naive) {
        queue.launch(naive_, Range::cover(n, block), in, out, n32, radius32);
        return;
    }
    if (const auto refusal = shared_radius_refusal(radius, block)) {
        throw InvalidArgument(backend, "stencil1d::Launcher::run", *refusal);
    }
    // One block per span of block × items_per_thread outputs; the last span may be partial.
    const std::size_t span = block * items_per_thread;
    const std::size_t blocks = (n + span - 1) / span;
    const LocalMemory tile{(span + 2 * radius) * sizeof(float)};
    queue.launch(shared_, Range::grid_block(blocks, block), in, out, tile, n32, radius32);
}

} // namespace duet::stencil1d
