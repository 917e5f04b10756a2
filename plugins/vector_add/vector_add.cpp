// The host side of vector_add, written once against duet's API: the same code launches the
// OpenCL kernel and the CUDA kernel.
#include "vector_add.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include <duet_kernels/vector_add.hpp>

namespace duet::vector_add {

Launcher::Launcher(const Device& device) : kernel_(device.build(kernels::vector_add()).kernel("vector_add")) {}

void Launcher::run(Queue& queue, const Buffer<float>& a, const Buffer<float>& b, const Buffer<float>& c, std::size_t n,
                   std::size_t block_size) const
{
    // The kernels index with 32-bit integers; refuse what they cannot address.
    if (n > std::numeric_limits<std::uint32_t>::max() || n > a.size() || n > b.size() || n > c.size()) {
        throw InvalidArgument(queue.device().backend(), "vector_add::Launcher::run",
                              "n = " + std::to_string(n) + " exceeds a buffer or the kernels' 32-bit index");
    }
    queue.launch(kernel_, Range::cover(n, block_size), a, b, c, static_cast<std::uint32_t>(n));
}

} // namespace duet::vector_add
