// Launch geometry with one exact meaning on both APIs: a grid of blocks. CUDA launches grid and
// block as given; OpenCL's global size is grid × block and its local size is the block.
#pragma once

#include <cstddef>
#include <cstdint>

namespace duet {

struct Dim3 {
    std::size_t x = 1;
    std::size_t y = 1;
    std::size_t z = 1;

    bool operator==(const Dim3&) const = default;
};

struct Range {
    std::uint32_t dims = 1;
    Dim3 grid;
    Dim3 block;

    /// A 1D range of `grid` blocks of `block` threads (work-items).
    static Range grid_block(std::size_t grid, std::size_t block) { return {1, {grid, 1, 1}, {block, 1, 1}}; }
    static Range grid_block(std::uint32_t dims, Dim3 grid, Dim3 block) { return {dims, grid, block}; }

    /// The fewest blocks of `block` that cover `items`; kernels guard the tail themselves.
    static Range cover(std::size_t items, std::size_t block) { return grid_block(blocks_for(items, block), block); }
    static Range cover(std::uint32_t dims, Dim3 items, Dim3 block)
    {
        return {
            dims, {blocks_for(items.x, block.x), blocks_for(items.y, block.y), blocks_for(items.z, block.z)}, block};
    }

    /// OpenCL's global size; the caller has validated that it does not overflow.
    Dim3 global() const { return {grid.x * block.x, grid.y * block.y, grid.z * block.z}; }

    bool operator==(const Range&) const = default;

private:
    static std::size_t blocks_for(std::size_t items, std::size_t block)
    {
        return block == 0 ? 0 : (items + block - 1) / block;
    }
};

} // namespace duet
