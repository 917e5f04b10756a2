// The host side of heat, written once against duet's API, and its CPU reference.
#include "heat.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <duet_kernels/heat.hpp>

namespace duet::heat {

Launcher::Launcher(const Device& device) : step_(device.build(kernels::heat()).kernel("heat_step")) {}

void Launcher::step(Queue& queue, const Buffer<float>& in, const Buffer<float>& out, const Block& block,
                    float alpha) const
{
    const std::size_t elements = (block.halo + block.rows) * block.cols;
    constexpr auto limit = std::numeric_limits<std::uint32_t>::max();
    if (elements > in.size() || elements > out.size()) {
        throw InvalidArgument(queue.device().backend(), "heat::Launcher::step",
                              "the block's " + std::to_string(elements) + " elements exceed a buffer of " +
                                  std::to_string(std::min(in.size(), out.size())));
    }
    if (block.total_rows > limit || block.cols > limit) {
        throw InvalidArgument(queue.device().backend(), "heat::Launcher::step",
                              "a grid of " + std::to_string(block.total_rows) + " x " + std::to_string(block.cols) +
                                  " exceeds the kernel's 32-bit row and column indices");
    }
    if (block.rows == 0 || block.cols == 0) {
        return;
    }
    const auto u32 = [](std::size_t value) { return static_cast<std::uint32_t>(value); };
    // 32 columns a block: a warp reads one row segment, coalesced.
    queue.launch(step_, Range::cover(2, {block.cols, block.rows, 1}, {32, 8, 1}), in, out, u32(block.cols),
                 u32(block.rows), u32(block.halo), u32(block.first_row), u32(block.total_rows), alpha);
}

void reference(std::span<float> grid, std::span<float> scratch, std::size_t rows, std::size_t cols, std::size_t steps,
               float alpha)
{
    for (std::size_t step = 0; step < steps; ++step) {
        for (std::size_t row = 0; row < rows; ++row) {
            for (std::size_t column = 0; column < cols; ++column) {
                const std::size_t i = row * cols + column;
                const float center = grid[i];
                if (row == 0 || row + 1 == rows || column == 0 || column + 1 == cols) {
                    scratch[i] = center;
                    continue;
                }
                const float neighbours = (grid[i - cols] + grid[i + cols]) + (grid[i - 1] + grid[i + 1]);
                scratch[i] = std::fma(alpha, neighbours - 4.0f * center, center);
            }
        }
        std::swap_ranges(grid.begin(), grid.end(), scratch.begin());
    }
}

} // namespace duet::heat
