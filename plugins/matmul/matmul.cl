// C = A × B in float, row-major, for any M, N, K: the same entry points as matmul.cu. One
// work-item computes one element of C; dimension 0 runs along the columns, so neighbouring
// work-items touch neighbouring addresses. Indices are 32-bit: the launcher refuses matrices of
// 2^32 elements or more.

// Every product of row `row` of A with column `col` of B, read straight from global memory.
__kernel void matmul_naive(__global const float* a, __global const float* b, __global float* c, const uint m,
                           const uint n, const uint k)
{
    const uint col = get_global_id(0);
    const uint row = get_global_id(1);
    if (row < m && col < n) {
        float sum = 0.0f;
        for (uint i = 0; i < k; ++i) {
            sum += a[row * k + i] * b[i * n + col];
        }
        c[row * n + col] = sum;
    }
}

// A work-group of tile × tile work-items computes a tile × tile tile of C. It walks along K one
// tile at a time: each work-item loads one element of A's tile and one of B's into local memory,
// so every element loaded from global memory is used `tile` times. Elements past the edge of A or
// B load as zeros, which add nothing, so M, N and K need not be multiples of the tile.
// OpenCL C declares __local arrays only at kernel scope, so each kernel below owns its tiles and
// passes them in; `tile` is a constant there, which lets the compiler unroll the inner loop.
void matmul_tiled(const uint tile, __local float* a_tile, __local float* b_tile, __global const float* a,
                  __global const float* b, __global float* c, const uint m, const uint n, const uint k)
{
    const uint tx = get_local_id(0);
    const uint ty = get_local_id(1);
    const uint col = get_group_id(0) * tile + tx;
    const uint row = get_group_id(1) * tile + ty;
    float sum = 0.0f;
    for (uint base = 0; base < k; base += tile) {
        const uint a_col = base + tx;
        const uint b_row = base + ty;
        a_tile[ty * tile + tx] = row < m && a_col < k ? a[row * k + a_col] : 0.0f;
        b_tile[ty * tile + tx] = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE); // both tiles are complete before anyone reads them
        for (uint i = 0; i < tile; ++i) {
            sum += a_tile[ty * tile + i] * b_tile[i * tile + tx];
        }
        barrier(CLK_LOCAL_MEM_FENCE); // nobody overwrites a tile another work-item is still reading
    }
    if (row < m && col < n) {
        c[row * n + col] = sum;
    }
}

// One entry point per tile size. reqd_work_group_size tells the compiler the exact work-group.
__kernel __attribute__((reqd_work_group_size(8, 8, 1))) void matmul_tiled8(__global const float* a,
                                                                           __global const float* b, __global float* c,
                                                                           const uint m, const uint n, const uint k)
{
    __local float a_tile[8 * 8];
    __local float b_tile[8 * 8];
    matmul_tiled(8, a_tile, b_tile, a, b, c, m, n, k);
}

__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void matmul_tiled16(__global const float* a,
                                                                              __global const float* b,
                                                                              __global float* c, const uint m,
                                                                              const uint n, const uint k)
{
    __local float a_tile[16 * 16];
    __local float b_tile[16 * 16];
    matmul_tiled(16, a_tile, b_tile, a, b, c, m, n, k);
}

__kernel __attribute__((reqd_work_group_size(32, 32, 1))) void matmul_tiled32(__global const float* a,
                                                                              __global const float* b,
                                                                              __global float* c, const uint m,
                                                                              const uint n, const uint k)
{
    __local float a_tile[32 * 32];
    __local float b_tile[32 * 32];
    matmul_tiled(32, a_tile, b_tile, a, b, c, m, n, k);
}
