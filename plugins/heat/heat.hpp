// heat: 2D heat diffusion with a five-point stencil, over many steps, on one device or split by rows
// over the ranks of a distributed run (each step's halo rows exchanged with the neighbours); the
// kernel launcher and the CPU reference it is checked against.
#pragma once

#include <cstddef>
#include <span>

#include <duet/duet.hpp>

namespace duet::heat {

/// One rank's block of the grid in its buffer: `rows` rows of `cols` floats owned, after `halo`
/// rows of its lower neighbour; `first_row` of `total_rows` in the whole grid.
struct Block {
    std::size_t cols = 0;
    std::size_t rows = 0;
    std::size_t halo = 0;
    std::size_t first_row = 0;
    std::size_t total_rows = 0;
};

/// Builds the kernel once per device.
class Launcher {
public:
    explicit Launcher(const Device& device);
    /// Enqueues one step over the block's owned rows, `in` to `out` (each holding the block with its
    /// halos); InvalidArgument for a block past a buffer's end or past the kernel's 32-bit indices.
    void step(Queue& queue, const Buffer<float>& in, const Buffer<float>& out, const Block& block, float alpha) const;

private:
    Kernel step_;
};

/// `steps` steps of the whole `rows` × `cols` grid, in place in `grid` (`scratch` the same size),
/// in the kernels' order of operations.
void reference(std::span<float> grid, std::span<float> scratch, std::size_t rows, std::size_t cols, std::size_t steps,
               float alpha);

} // namespace duet::heat
