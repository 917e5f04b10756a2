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

// A work-group computes a MATMUL_BM × MATMUL_BN tile of C, each of its (BM/TM) × (BN/TN)
// work-items a TM × TN register tile: rows ty + i·(BM/TM), columns tx + j·(BN/TN), so that
// neighbouring work-items read neighbouring local-memory words (no bank conflicts) and write
// neighbouring columns of C. The group walks K in steps of MATMUL_BK through two local buffers:
// while it multiplies one step's tiles it holds the next step's loads in registers, then stores
// them into the other buffer, one barrier a step. A's tile is stored transposed, its rows padded
// by 32 / BK floats so that the transposing stores of a sub-group of 32 hit 32 different banks,
// for contiguous reads of its columns. Loads past an edge of A or B read zeros and stores past an edge of C are
// skipped: any M, N, K. The sizes are build-time defines, the same as matmul.cu's, so that a tuner can rebuild the
// kernel with others.
#ifndef MATMUL_BM
#define MATMUL_BM 128
#endif
#ifndef MATMUL_BN
#define MATMUL_BN 128
#endif
#ifndef MATMUL_BK
#define MATMUL_BK 8
#endif
#ifndef MATMUL_TM
#define MATMUL_TM 8
#endif
#ifndef MATMUL_TN
#define MATMUL_TN 8
#endif
#define MATMUL_A_PAD (32 / MATMUL_BK)
#define MATMUL_THREADS_X (MATMUL_BN / MATMUL_TN)
#define MATMUL_THREADS_Y (MATMUL_BM / MATMUL_TM)
#define MATMUL_THREADS (MATMUL_THREADS_X * MATMUL_THREADS_Y)
#define MATMUL_A_LOADS (MATMUL_BM * MATMUL_BK / MATMUL_THREADS)
#define MATMUL_B_LOADS (MATMUL_BK * MATMUL_BN / MATMUL_THREADS)
#if MATMUL_BM % MATMUL_TM || MATMUL_BN % MATMUL_TN || (MATMUL_BM * MATMUL_BK) % MATMUL_THREADS ||                      \
    (MATMUL_BK * MATMUL_BN) % MATMUL_THREADS || 32 % MATMUL_BK
#error "matmul_blocked: each work-item loads a whole number of A's and B's elements a step, and BK divides 32"
#endif

// This work-item's share of the step at `base`: A's elements row by row (BK consecutive floats of
// a row each), B's along its rows (BN consecutive floats): consecutive work-items, consecutive words.
void matmul_blocked_load(__global const float* restrict a, __global const float* restrict b, float* a_next,
                         float* b_next, const uint thread, const uint row0, const uint col0, const uint base,
                         const uint m, const uint n, const uint k)
{
#pragma unroll
    for (uint l = 0; l < MATMUL_A_LOADS; ++l) {
        const uint at = thread + l * MATMUL_THREADS;
        const uint row = row0 + at / MATMUL_BK;
        const uint col = base + at % MATMUL_BK;
        a_next[l] = row < m && col < k ? a[row * k + col] : 0.0f;
    }
#pragma unroll
    for (uint l = 0; l < MATMUL_B_LOADS; ++l) {
        const uint at = thread + l * MATMUL_THREADS;
        const uint row = base + at / MATMUL_BN;
        const uint col = col0 + at % MATMUL_BN;
        b_next[l] = row < k && col < n ? b[row * n + col] : 0.0f;
    }
}

void matmul_blocked_store(__local float (*a_tile)[MATMUL_BM + MATMUL_A_PAD], __local float (*b_tile)[MATMUL_BN],
                          const float* a_next, const float* b_next, const uint thread)
{
#pragma unroll
    for (uint l = 0; l < MATMUL_A_LOADS; ++l) {
        const uint at = thread + l * MATMUL_THREADS;
        a_tile[at % MATMUL_BK][at / MATMUL_BK] = a_next[l];
    }
#pragma unroll
    for (uint l = 0; l < MATMUL_B_LOADS; ++l) {
        const uint at = thread + l * MATMUL_THREADS;
        b_tile[at / MATMUL_BN][at % MATMUL_BN] = b_next[l];
    }
}

__kernel __attribute__((reqd_work_group_size(MATMUL_THREADS_X, MATMUL_THREADS_Y, 1))) void
matmul_blocked(__global const float* restrict a, __global const float* restrict b, __global float* restrict c,
               const uint m, const uint n, const uint k)
{
    __local float a_tile[2][MATMUL_BK][MATMUL_BM + MATMUL_A_PAD];
    __local float b_tile[2][MATMUL_BK][MATMUL_BN];
    const uint tx = get_local_id(0);
    const uint ty = get_local_id(1);
    const uint thread = ty * MATMUL_THREADS_X + tx;
    const uint row0 = get_group_id(1) * MATMUL_BM;
    const uint col0 = get_group_id(0) * MATMUL_BN;

    float a_next[MATMUL_A_LOADS];
    float b_next[MATMUL_B_LOADS];
    float sum[MATMUL_TM][MATMUL_TN];
#pragma unroll
    for (uint i = 0; i < MATMUL_TM; ++i) {
#pragma unroll
        for (uint j = 0; j < MATMUL_TN; ++j) {
            sum[i][j] = 0.0f;
        }
    }
    matmul_blocked_load(a, b, a_next, b_next, thread, row0, col0, 0, m, n, k);
    matmul_blocked_store(a_tile[0], b_tile[0], a_next, b_next, thread);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint buffer = 0;
    for (uint base = 0; base < k; base += MATMUL_BK) {
        const bool more = base + MATMUL_BK < k;
        if (more) {
            matmul_blocked_load(a, b, a_next, b_next, thread, row0, col0, base + MATMUL_BK, m, n, k);
        }
#pragma unroll
        for (uint kk = 0; kk < MATMUL_BK; ++kk) {
            float a_column[MATMUL_TM];
            float b_row[MATMUL_TN];
#pragma unroll
            for (uint i = 0; i < MATMUL_TM; ++i) {
                a_column[i] = a_tile[buffer][kk][ty + i * MATMUL_THREADS_Y];
            }
#pragma unroll
            for (uint j = 0; j < MATMUL_TN; ++j) {
                b_row[j] = b_tile[buffer][kk][tx + j * MATMUL_THREADS_X];
            }
#pragma unroll
            for (uint i = 0; i < MATMUL_TM; ++i) {
#pragma unroll
                for (uint j = 0; j < MATMUL_TN; ++j) {
                    sum[i][j] += a_column[i] * b_row[j];
                }
            }
        }
        if (more) {
            // The other buffer was last read a step ago, before the barrier that ended that step.
            matmul_blocked_store(a_tile[buffer ^ 1u], b_tile[buffer ^ 1u], a_next, b_next, thread);
            barrier(CLK_LOCAL_MEM_FENCE);
            buffer ^= 1u;
        }
    }
#pragma unroll
    for (uint i = 0; i < MATMUL_TM; ++i) {
        const uint row = row0 + ty + i * MATMUL_THREADS_Y;
#pragma unroll
        for (uint j = 0; j < MATMUL_TN; ++j) {
            const uint col = col0 + tx + j * MATMUL_THREADS_X;
            if (row < m && col < n) {
                c[row * n + col] = sum[i][j];
            }
        }
    }
}
