// out = inᵀ through a TILE × (TILE + 1) local-memory tile, ported from transpose.cu: blockIdx is
// get_group_id, threadIdx get_local_id, __syncthreads() a local barrier.
__kernel void transpose(__global const float* in, __global float* out, int rows, int cols)
{
    __local float tile[TILE][TILE + 1];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x = get_group_id(0) * TILE + lx;
    const int y0 = get_group_id(1) * TILE + ly;
    for (int j = 0; j < TILE; j += ROWS) {
        if (x < cols && y0 + j < rows) {
            tile[ly + j][lx] = in[(size_t)(y0 + j) * cols + x];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int tx = get_group_id(1) * TILE + lx;
    const int ty0 = get_group_id(0) * TILE + ly;
    for (int j = 0; j < TILE; j += ROWS) {
        if (tx < rows && ty0 + j < cols) {
            out[(size_t)(ty0 + j) * rows + tx] = tile[lx][ly + j];
        }
    }
}

// The reference: one work-item per element, no tile.
__kernel void transpose_naive(__global const float* in, __global float* out, int rows, int cols)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x < cols && y < rows) {
        out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
    }
}
