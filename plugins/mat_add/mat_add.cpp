// The host side of mat_add, written once against duet's API: the same code launches the OpenCL
// kernels and the CUDA kernels on buffers whose rows each backend pads in its own way.
#include "mat_add.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include <duet_kernels/mat_add.hpp>

namespace duet::mat_add {
namespace {

std::string shape(const PitchedBuffer<float>& buffer)
{
    return std::to_string(buffer.width()) + " x " + std::to_string(buffer.height()) + " x " +
           std::to_string(buffer.depth()) + " (pitch " + std::to_string(buffer.pitch()) + " bytes)";
}

/// The pitch in floats, which the kernels index rows by. Both backends pad rows to a multiple of
/// an alignment (cuMemAllocPitch's, CL_DEVICE_MEM_BASE_ADDR_ALIGN) that is itself a multiple of
/// 4 bytes, so the division is exact; the checks say so rather than assume it.
std::uint32_t checked_pitch(const std::string& backend, const PitchedBuffer<float>& a, const PitchedBuffer<float>& b,
                            const PitchedBuffer<float>& c)
{
    const char* call = "mat_add::Launcher::run";
    for (const PitchedBuffer<float>* other : {&b, &c}) {
        if (other->width() != a.width() || other->height() != a.height() || other->depth() != a.depth() ||
            other->pitch() != a.pitch()) {
            throw InvalidArgument(backend, call,
                                  "buffers differ in shape or pitch: " + shape(a) + " and " + shape(*other));
        }
    }
    if (a.pitch() % sizeof(float) != 0) {
        throw InvalidArgument(backend, call,
                              "pitch " + std::to_string(a.pitch()) + " bytes is not a whole number of floats");
    }
    constexpr std::size_t limit = std::numeric_limits<std::uint32_t>::max();
    if (a.pitch() / sizeof(float) > limit || a.height() > limit || a.depth() > limit) {
        throw InvalidArgument(backend, call, "buffer " + shape(a) + " exceeds the kernels' 32-bit sizes");
    }
    return static_cast<std::uint32_t>(a.pitch() / sizeof(float));
}

} // namespace

Launcher::Launcher(const Device& device)
{
    const Program program = device.build(kernels::mat_add());
    add_2d_ = program.kernel("mat_add_2d");
    add_3d_ = program.kernel("mat_add_3d");
}

void Launcher::run_2d(Queue& queue, const PitchedBuffer<float>& a, const PitchedBuffer<float>& b,
                      const PitchedBuffer<float>& c, Dim3 block) const
{
    const std::string& backend = queue.device().backend();
    const std::uint32_t pitch = checked_pitch(backend, a, b, c);
    if (a.depth() != 1 || block.z != 1) {
        throw InvalidArgument(backend, "mat_add::Launcher::run_2d",
                              "the 2D kernel takes depth 1 and block.z 1; got " + shape(a) + " and block.z " +
                                  std::to_string(block.z));
    }
    queue.launch(add_2d_, Range::cover(2, {a.width(), a.height(), 1}, block), a, b, c, pitch,
                 static_cast<std::uint32_t>(a.width()), static_cast<std::uint32_t>(a.height()));
}

void Launcher::run_3d(Queue& queue, const PitchedBuffer<float>& a, const PitchedBuffer<float>& b,
                      const PitchedBuffer<float>& c, Dim3 block) const
{
    const std::uint32_t pitch = checked_pitch(queue.device().backend(), a, b, c);
    queue.launch(add_3d_, Range::cover(3, {a.width(), a.height(), a.depth()}, block), a, b, c, pitch,
                 static_cast<std::uint32_t>(a.width()), static_cast<std::uint32_t>(a.height()),
                 static_cast<std::uint32_t>(a.depth()));
}

} // namespace duet::mat_add
