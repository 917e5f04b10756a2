// One step of 2D heat diffusion, five points: out = in + alpha (N + S + W + E - 4 C) inside the
// grid, its edge (first and last rows and columns) held fixed. The buffer holds one rank's block of
// rows with `halo` rows of its neighbour before them; `first_row` is the block's first row in the
// whole grid. The same entry point as heat.cl (extern "C" keeps it unmangled) and the same
// operations in the same order, the last an explicit fma, as the CPU reference.
extern "C" __global__ void heat_step(const float* __restrict__ in, float* __restrict__ out, unsigned int cols,
                                     unsigned int rows, unsigned int halo, unsigned int first_row,
                                     unsigned int total_rows, float alpha)
{
    const unsigned int column = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (column >= cols || row >= rows) {
        return;
    }
    const size_t i = static_cast<size_t>(halo + row) * cols + column;
    const float center = in[i];
    const unsigned int grid_row = first_row + row;
    if (grid_row == 0 || grid_row + 1 == total_rows || column == 0 || column + 1 == cols) {
        out[i] = center;
        return;
    }
    const float neighbours = (in[i - cols] + in[i + cols]) + (in[i - 1] + in[i + 1]);
    out[i] = fmaf(alpha, neighbours - 4.0f * center, center);
}
