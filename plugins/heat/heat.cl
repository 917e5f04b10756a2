// One step of 2D heat diffusion, five points: out = in + alpha (N + S + W + E - 4 C) inside the
// grid, its edge (first and last rows and columns) held fixed. The buffer holds one rank's block of
// rows with `halo` rows of its neighbour before them; `first_row` is the block's first row in the
// whole grid. The same entry point as heat.cu and the same operations in the same order, the last
// an explicit fma, as the CPU reference: the results agree bit for bit.
__kernel void heat_step(__global const float* restrict in, __global float* restrict out, const uint cols,
                        const uint rows, const uint halo, const uint first_row, const uint total_rows,
                        const float alpha)
{
    const uint column = get_global_id(0);
    const uint row = get_global_id(1);
    if (column >= cols || row >= rows) {
        return;
    }
    const size_t i = (size_t)(halo + row) * cols + column;
    const float center = in[i];
    const uint grid_row = first_row + row;
    if (grid_row == 0 || grid_row + 1 == total_rows || column == 0 || column + 1 == cols) {
        out[i] = center;
        return;
    }
    const float neighbours = (in[i - cols] + in[i + cols]) + (in[i - 1] + in[i + 1]);
    out[i] = fma(alpha, neighbours - 4.0f * center, center);
}
