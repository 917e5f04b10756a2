// C = A × B in float, row-major, for any M, N, K: the same entry points as matmul.cu. One
// work-item computes one element of C; dimension 0 runs along the columns, so neighbouring
// work-items touch neighbouring addresses. Indices are 32-bit: the launcher refuses matrices of
// 2^32 elements or more.

// A tile search builds the blocked kernels alone, once for each candidate (MATMUL_BLOCKED_ONLY).
#ifndef MATMUL_BLOCKED_ONLY
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

#endif // MATMUL_BLOCKED_ONLY
// A work-group computes a MATMUL_BM × MATMUL_BN tile of C, each of its (BM/TM) × (BN/TN)
// work-items a TM × TN register tile made of 4 × 4 pieces: rows 4·ty + r + g·4·(BM/TM) and
// columns 4·tx + s + h·4·(BN/TN), for r, s < 4, so that a work-item reads its column of A's tile
// and its row of B's as float4s from local memory (four words an instruction, which the
// multiplications would otherwise wait on) and neighbouring work-items touch neighbouring
// float4s: no bank conflicts. The group walks K in steps of MATMUL_BK through two local buffers:
// while it multiplies one step's tiles it holds the next step's loads in registers, then stores
// them into the other buffer, one barrier a step. Global loads are float4s along the rows of A
// and of B when K and N are multiples of 4 (every float4 then lies wholly inside or outside its
// matrix), and the same four elements one by one otherwise; the choice is the same for every
// work-item. A's tile is stored transposed, its rows padded by 4 floats, which keeps them
// 16-byte aligned and spreads the transposing stores of a sub-group over the banks. Loads past an
// edge read zeros and stores past an edge of C are skipped: any M, N, K. The sizes are build-time
// defines, the same as matmul.cu's, so that a tuner can rebuild the kernel with others.
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
#ifndef MATMUL_SPLIT_K
#define MATMUL_SPLIT_K 1
#endif
// MATMUL_MIN_BLOCKS, blocks an SM, is the CUDA kernel's __launch_bounds__; NVIDIA's OpenCL takes
// the same register ceiling as a build option (-cl-nv-maxrregcount, the launcher's).
#define MATMUL_A_PAD 4
#define MATMUL_THREADS_X (MATMUL_BN / MATMUL_TN)
#define MATMUL_THREADS_Y (MATMUL_BM / MATMUL_TM)
#define MATMUL_THREADS (MATMUL_THREADS_X * MATMUL_THREADS_Y)
#define MATMUL_A_LOADS (MATMUL_BM * MATMUL_BK / 4 / MATMUL_THREADS)
#define MATMUL_B_LOADS (MATMUL_BK * MATMUL_BN / 4 / MATMUL_THREADS)
#if MATMUL_BM % MATMUL_TM || MATMUL_BN % MATMUL_TN || MATMUL_TM % 4 || MATMUL_TN % 4 || MATMUL_BK % 4 ||               \
    (MATMUL_BM * MATMUL_BK) % (4 * MATMUL_THREADS) || (MATMUL_BK * MATMUL_BN) % (4 * MATMUL_THREADS)
#error "matmul_blocked: TM, TN and BK are multiples of 4, and each work-item loads a whole number of float4s a step"
#endif

// Four consecutive elements of a row of a matrix `stride` floats wide from `column` on, zeros from
// row `rows` and column `columns` on: one float4 where `vector` says every row starts 16-byte
// aligned and `columns` is a multiple of 4, else one by one.
float4 matmul_load4(__global const float* restrict matrix, const uint row, const uint column, const uint rows,
                    const uint columns, const uint stride, const bool vector)
{
    __global const float* at = matrix + row * stride + column;
    if (vector) {
        return row < rows && column < columns ? *(__global const float4*)at : (float4)(0.0f);
    }
    const bool inside = row < rows;
    return (float4)(inside && column < columns ? at[0] : 0.0f, inside && column + 1 < columns ? at[1] : 0.0f,
                    inside && column + 2 < columns ? at[2] : 0.0f, inside && column + 3 < columns ? at[3] : 0.0f);
}

// This work-item's share of the step at `base`: float4s of A's rows (BK / 4 to a row) and of B's
// (BN / 4 to a row), consecutive work-items reading consecutive float4s, zeros from k_end on.
void matmul_blocked_load(__global const float* restrict a, __global const float* restrict b, float4* a_next,
                         float4* b_next, const uint thread, const uint row0, const uint col0, const uint base,
                         const uint m, const uint n, const uint k, const uint k_end, const bool vector_a,
                         const bool vector_b)
{
#pragma unroll
    for (uint l = 0; l < MATMUL_A_LOADS; ++l) {
        const uint at = thread + l * MATMUL_THREADS;
        a_next[l] =
            matmul_load4(a, row0 + at / (MATMUL_BK / 4), base + at % (MATMUL_BK / 4) * 4, m, k_end, k, vector_a);
    }
#pragma unroll
    for (uint l = 0; l < MATMUL_B_LOADS; ++l) {
        const uint at = thread + l * MATMUL_THREADS;
        b_next[l] =
            matmul_load4(b, base + at / (MATMUL_BN / 4), col0 + at % (MATMUL_BN / 4) * 4, k_end, n, n, vector_b);
    }
}

void matmul_blocked_store(__local float (*a_tile)[MATMUL_BM + MATMUL_A_PAD], __local float (*b_tile)[MATMUL_BN],
                          const float4* a_next, const float4* b_next, const uint thread)
{
#pragma unroll
    for (uint l = 0; l < MATMUL_A_LOADS; ++l) {
        const uint at = thread + l * MATMUL_THREADS;
        const uint row = at / (MATMUL_BK / 4);
        const uint kk = at % (MATMUL_BK / 4) * 4;
        a_tile[kk][row] = a_next[l].x;
        a_tile[kk + 1][row] = a_next[l].y;
        a_tile[kk + 2][row] = a_next[l].z;
        a_tile[kk + 3][row] = a_next[l].w;
    }
#pragma unroll
    for (uint l = 0; l < MATMUL_B_LOADS; ++l) {
        const uint at = thread + l * MATMUL_THREADS;
        *(__local float4*)&b_tile[at / (MATMUL_BN / 4)][at % (MATMUL_BN / 4) * 4] = b_next[l];
    }
}

// The local memory of one work-group's tiles, which a kernel declares (OpenCL allows __local
// variables at kernel scope only) and matmul_blocked_tile uses.
#define MATMUL_A_STORAGE (2 * MATMUL_BK * (MATMUL_BM + MATMUL_A_PAD) / 4)
#define MATMUL_B_STORAGE (2 * MATMUL_BK * MATMUL_BN / 4)

// One work-group's tile of C, the body of both blocked kernels below: float4 loads of A where
// `vector_a`, of B and stores of C where `vector_b`, else element by element.
void matmul_blocked_tile(__global const float* restrict a, __global const float* restrict b, __global float* restrict c,
                         const uint m, const uint n, const uint k, __local float4* a_storage, __local float4* b_storage,
                         const bool vector_a, const bool vector_b)
{
    // float4 storage seen as floats: the tiles' rows are then 16-byte aligned for the float4 reads.
    __local float(*a_tile)[MATMUL_BK][MATMUL_BM + MATMUL_A_PAD] =
        (__local float(*)[MATMUL_BK][MATMUL_BM + MATMUL_A_PAD]) a_storage;
    __local float(*b_tile)[MATMUL_BK][MATMUL_BN] = (__local float(*)[MATMUL_BK][MATMUL_BN])b_storage;
    const uint tx = get_local_id(0);
    const uint ty = get_local_id(1);
    const uint thread = ty * MATMUL_THREADS_X + tx;
    const uint row0 = get_group_id(1) * MATMUL_BM;
    const uint col0 = get_group_id(0) * MATMUL_BN;
    // Split K: this work-group's slice of k, whole steps of BK (a multiple of 4, so that A's float4s
    // stay inside it), its partial product into slice get_group_id(2) of c, which is then the
    // launcher's workspace of MATMUL_SPLIT_K products that matmul_sum_splits adds up.
    // Without a split the kernel is compiled as before it had one (the CUDA kernel's registers).
#if MATMUL_SPLIT_K > 1
    const uint k_step = (k / MATMUL_SPLIT_K + (k % MATMUL_SPLIT_K != 0) + MATMUL_BK - 1) / MATMUL_BK * MATMUL_BK;
    const uint k_begin = min(k, (uint)get_group_id(2) * k_step);
    const uint k_end = k_begin + min(k - k_begin, k_step);
    c += (ulong)get_group_id(2) * m * n;
#else
    const uint k_begin = 0;
    const uint k_end = k;
#endif

    float4 a_next[MATMUL_A_LOADS];
    float4 b_next[MATMUL_B_LOADS];
    float sum[MATMUL_TM][MATMUL_TN];
#pragma unroll
    for (uint i = 0; i < MATMUL_TM; ++i) {
#pragma unroll
        for (uint j = 0; j < MATMUL_TN; ++j) {
            sum[i][j] = 0.0f;
        }
    }
    matmul_blocked_load(a, b, a_next, b_next, thread, row0, col0, k_begin, m, n, k, k_end, vector_a, vector_b);
    matmul_blocked_store(a_tile[0], b_tile[0], a_next, b_next, thread);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint buffer = 0;
    for (uint base = k_begin; base < k_end; base += MATMUL_BK) {
        const bool more = base + MATMUL_BK < k_end;
        if (more) {
            matmul_blocked_load(a, b, a_next, b_next, thread, row0, col0, base + MATMUL_BK, m, n, k, k_end, vector_a,
                                vector_b);
        }
#pragma unroll
        for (uint kk = 0; kk < MATMUL_BK; ++kk) {
            float a_column[MATMUL_TM];
            float b_row[MATMUL_TN];
#pragma unroll
            for (uint g = 0; g < MATMUL_TM / 4; ++g) {
                const float4 piece = *(__local const float4*)&a_tile[buffer][kk][4 * (ty + g * MATMUL_THREADS_Y)];
                a_column[4 * g] = piece.x;
                a_column[4 * g + 1] = piece.y;
                a_column[4 * g + 2] = piece.z;
                a_column[4 * g + 3] = piece.w;
            }
#pragma unroll
            for (uint h = 0; h < MATMUL_TN / 4; ++h) {
                const float4 piece = *(__local const float4*)&b_tile[buffer][kk][4 * (tx + h * MATMUL_THREADS_X)];
                b_row[4 * h] = piece.x;
                b_row[4 * h + 1] = piece.y;
                b_row[4 * h + 2] = piece.z;
                b_row[4 * h + 3] = piece.w;
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
        const uint row = row0 + 4 * (ty + i / 4 * MATMUL_THREADS_Y) + i % 4;
        if (row >= m) {
            continue;
        }
#pragma unroll
        for (uint h = 0; h < MATMUL_TN / 4; ++h) {
            const uint col = col0 + 4 * (tx + h * MATMUL_THREADS_X);
            if (vector_b && col < n) {
                *(__global float4*)&c[row * n + col] =
                    (float4)(sum[i][4 * h], sum[i][4 * h + 1], sum[i][4 * h + 2], sum[i][4 * h + 3]);
                continue;
            }
#pragma unroll
            for (uint s = 0; s < 4; ++s) {
                if (col + s < n) {
                    c[row * n + col + s] = sum[i][4 * h + s];
                }
            }
        }
    }
}

// Any K and N: the float4 paths chosen at run time.
__kernel __attribute__((reqd_work_group_size(MATMUL_THREADS_X, MATMUL_THREADS_Y, 1))) void
matmul_blocked(__global const float* restrict a, __global const float* restrict b, __global float* restrict c,
               const uint m, const uint n, const uint k)
{
    __local float4 a_storage[MATMUL_A_STORAGE];
    __local float4 b_storage[MATMUL_B_STORAGE];
    matmul_blocked_tile(a, b, c, m, n, k, a_storage, b_storage, k % 4 == 0, n % 4 == 0);
}

// K and N multiples of 4, which the launcher checks: the float4 paths alone (the CUDA kernel's
// registers).
__kernel __attribute__((reqd_work_group_size(MATMUL_THREADS_X, MATMUL_THREADS_Y, 1))) void
matmul_blocked_aligned(__global const float* restrict a, __global const float* restrict b, __global float* restrict c,
                       const uint m, const uint n, const uint k)
{
    __local float4 a_storage[MATMUL_A_STORAGE];
    __local float4 b_storage[MATMUL_B_STORAGE];
    matmul_blocked_tile(a, b, c, m, n, k, a_storage, b_storage, true, true);
}

// Split K's second step: each of the `count` elements of C the sum of its MATMUL_SPLIT_K partial
// products, slice after slice, so that the product's bits do not depend on the order the
// work-groups ran in.
__kernel void matmul_sum_splits(__global const float* restrict partial, __global float* restrict c, const uint count)
{
    const uint i = get_global_id(0);
    if (i >= count) {
        return;
    }
    float sum = partial[i];
#pragma unroll
    for (uint s = 1; s < MATMUL_SPLIT_K; ++s) {
        sum += partial[(ulong)s * count + i];
    }
    c[i] = sum;
}
