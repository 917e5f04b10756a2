// C = A × B in float, row-major, for any M, N, K: the same entry points as matmul.cl
// (extern "C" keeps the names unmangled for cuModuleGetFunction). One thread computes one
// element of C; x runs along the columns, so neighbouring threads touch neighbouring addresses.
// Indices are 32-bit: the launcher refuses matrices of 2^32 elements or more.

// A tile search builds the blocked kernels alone, once for each candidate (MATMUL_BLOCKED_ONLY).
#ifndef MATMUL_BLOCKED_ONLY
// Every product of row `row` of A with column `col` of B, read straight from global memory.
extern "C" __global__ void matmul_naive(const float* a, const float* b, float* c, unsigned int m, unsigned int n,
                                        unsigned int k)
{
    const unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (unsigned int i = 0; i < k; ++i) {
            sum += a[row * k + i] * b[i * n + col];
        }
        c[row * n + col] = sum;
    }
}

// A block of Tile × Tile threads computes a Tile × Tile tile of C. It walks along K one tile at a
// time: each thread loads one element of A's tile and one of B's into shared memory, so every
// element loaded from global memory is used Tile times. Elements past the edge of A or B load as
// zeros, which add nothing, so M, N and K need not be multiples of Tile.
template <unsigned int Tile>
__device__ void matmul_tiled(const float* a, const float* b, float* c, unsigned int m, unsigned int n, unsigned int k)
{
    __shared__ float a_tile[Tile][Tile];
    __shared__ float b_tile[Tile][Tile];
    const unsigned int tx = threadIdx.x;
    const unsigned int ty = threadIdx.y;
    const unsigned int col = blockIdx.x * Tile + tx;
    const unsigned int row = blockIdx.y * Tile + ty;
    float sum = 0.0f;
    for (unsigned int base = 0; base < k; base += Tile) {
        const unsigned int a_col = base + tx;
        const unsigned int b_row = base + ty;
        a_tile[ty][tx] = row < m && a_col < k ? a[row * k + a_col] : 0.0f;
        b_tile[ty][tx] = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
        __syncthreads(); // both tiles are complete before anyone reads them
#pragma unroll
        for (unsigned int i = 0; i < Tile; ++i) {
            sum += a_tile[ty][i] * b_tile[i][tx];
        }
        __syncthreads(); // nobody overwrites a tile another thread is still reading
    }
    if (row < m && col < n) {
        c[row * n + col] = sum;
    }
}

// One entry point per tile size, compiled offline into the fatbin: no NVRTC at run time. The
// launch bounds tell nvcc the exact block size, so it may use registers as freely as that allows.
extern "C" __global__ void __launch_bounds__(8 * 8)
    matmul_tiled8(const float* a, const float* b, float* c, unsigned int m, unsigned int n, unsigned int k)
{
    matmul_tiled<8>(a, b, c, m, n, k);
}

extern "C" __global__ void __launch_bounds__(16 * 16)
    matmul_tiled16(const float* a, const float* b, float* c, unsigned int m, unsigned int n, unsigned int k)
{
    matmul_tiled<16>(a, b, c, m, n, k);
}

extern "C" __global__ void __launch_bounds__(32 * 32)
    matmul_tiled32(const float* a, const float* b, float* c, unsigned int m, unsigned int n, unsigned int k)
{
    matmul_tiled<32>(a, b, c, m, n, k);
}

#endif // MATMUL_BLOCKED_ONLY
// A block computes a MATMUL_BM × MATMUL_BN tile of C, each of its (BM/TM) × (BN/TN) threads a
// TM × TN register tile made of 4 × 4 pieces: rows 4·ty + r + g·4·(BM/TM) and columns
// 4·tx + s + h·4·(BN/TN), for r, s < 4, so that a thread reads its column of A's tile and its row
// of B's as float4s from shared memory (four words an instruction, which the multiplications
// would otherwise wait on) and a warp's neighbouring threads touch neighbouring float4s: no bank
// conflicts. The block walks K in steps of MATMUL_BK through two shared buffers: while it
// multiplies one step's tiles it holds the next step's loads in registers, then stores them into
// the other buffer, one barrier a step. Global loads are float4s along the rows of A and of B
// when K and N are multiples of 4 (every float4 then lies wholly inside or outside its matrix),
// and the same four elements one by one otherwise; the choice is the same for every thread. A's
// tile is stored transposed, its rows padded by 4 floats, which keeps them 16-byte aligned and
// spreads the transposing stores of a warp over the banks. Loads past an edge read zeros and
// stores past an edge of C are skipped: any M, N, K. The sizes are compile-time defines, so that
// a tuner can rebuild the kernel with others (NVRTC on CUDA).
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
#ifndef MATMUL_MIN_BLOCKS
#define MATMUL_MIN_BLOCKS 1
#endif
#ifndef MATMUL_SPLIT_K
#define MATMUL_SPLIT_K 1
#endif
#define MATMUL_A_PAD 4
#define MATMUL_THREADS_X (MATMUL_BN / MATMUL_TN)
#define MATMUL_THREADS_Y (MATMUL_BM / MATMUL_TM)
#define MATMUL_THREADS (MATMUL_THREADS_X * MATMUL_THREADS_Y)
#define MATMUL_A_LOADS (MATMUL_BM * MATMUL_BK / 4 / MATMUL_THREADS)
#define MATMUL_B_LOADS (MATMUL_BK * MATMUL_BN / 4 / MATMUL_THREADS)
#if MATMUL_BM % MATMUL_TM || MATMUL_BN % MATMUL_TN || MATMUL_TM % 4 || MATMUL_TN % 4 || MATMUL_BK % 4 ||               \
    (MATMUL_BM * MATMUL_BK) % (4 * MATMUL_THREADS) || (MATMUL_BK * MATMUL_BN) % (4 * MATMUL_THREADS)
#error "matmul_blocked: TM, TN and BK are multiples of 4, and each thread loads a whole number of float4s a step"
#endif

// Four consecutive elements of a row of a matrix `stride` floats wide from `column` on, zeros from
// row `rows` and column `columns` on: one float4 where `vector` says every row starts 16-byte
// aligned and `columns` is a multiple of 4, else one by one.
__device__ float4 matmul_load4(const float* __restrict__ matrix, unsigned int row, unsigned int column,
                               unsigned int rows, unsigned int columns, unsigned int stride, bool vector)
{
    const float* at = matrix + row * stride + column;
    if (vector) {
        return row < rows && column < columns ? *reinterpret_cast<const float4*>(at) : make_float4(0, 0, 0, 0);
    }
    const bool inside = row < rows;
    return make_float4(inside && column < columns ? at[0] : 0.0f, inside && column + 1 < columns ? at[1] : 0.0f,
                       inside && column + 2 < columns ? at[2] : 0.0f, inside && column + 3 < columns ? at[3] : 0.0f);
}

// One block's tile of C, the body of both blocked kernels below: float4 loads of A where
// `vector_a`, of B and stores of C where `vector_b`, else element by element.
__device__ __forceinline__ void matmul_blocked_tile(const float* __restrict__ a, const float* __restrict__ b,
                                                    float* __restrict__ c, unsigned int m, unsigned int n,
                                                    unsigned int k, bool vector_a, bool vector_b)
{
    __shared__ __align__(16) float a_tile[2][MATMUL_BK][MATMUL_BM + MATMUL_A_PAD];
    __shared__ __align__(16) float b_tile[2][MATMUL_BK][MATMUL_BN];
    const unsigned int tx = threadIdx.x;
    const unsigned int ty = threadIdx.y;
    const unsigned int thread = ty * MATMUL_THREADS_X + tx;
    const unsigned int row0 = blockIdx.y * MATMUL_BM;
    const unsigned int col0 = blockIdx.x * MATMUL_BN;
    // Split K: this block's slice of k, whole steps of BK (a multiple of 4, so that A's float4s stay
    // inside it), its partial product into slice blockIdx.z of c, which is then the launcher's
    // workspace of MATMUL_SPLIT_K products that matmul_sum_splits adds up.
    // Without a split the kernel is compiled as before it had one: the bounds' arithmetic cost
    // ptxas 10 registers at 128 × 128 × 8, which left room for one block an SM instead of two.
#if MATMUL_SPLIT_K > 1
    const unsigned int k_step =
        (k / MATMUL_SPLIT_K + (k % MATMUL_SPLIT_K != 0) + MATMUL_BK - 1) / MATMUL_BK * MATMUL_BK;
    const unsigned int k_begin = min(k, blockIdx.z * k_step);
    const unsigned int k_end = k_begin + min(k - k_begin, k_step);
    c += static_cast<size_t>(blockIdx.z) * m * n;
#else
    const unsigned int k_begin = 0;
    const unsigned int k_end = k;
#endif

    float4 a_next[MATMUL_A_LOADS];
    float4 b_next[MATMUL_B_LOADS];
    // This thread's share of the step at `base`: float4s of A's rows (BK / 4 to a row) and of B's
    // (BN / 4 to a row), consecutive threads reading consecutive float4s, zeros from k_end on.
    auto load = [&](unsigned int base) {
#pragma unroll
        for (unsigned int l = 0; l < MATMUL_A_LOADS; ++l) {
            const unsigned int at = thread + l * MATMUL_THREADS;
            a_next[l] =
                matmul_load4(a, row0 + at / (MATMUL_BK / 4), base + at % (MATMUL_BK / 4) * 4, m, k_end, k, vector_a);
        }
#pragma unroll
        for (unsigned int l = 0; l < MATMUL_B_LOADS; ++l) {
            const unsigned int at = thread + l * MATMUL_THREADS;
            b_next[l] =
                matmul_load4(b, base + at / (MATMUL_BN / 4), col0 + at % (MATMUL_BN / 4) * 4, k_end, n, n, vector_b);
        }
    };
    auto store = [&](unsigned int buffer) {
#pragma unroll
        for (unsigned int l = 0; l < MATMUL_A_LOADS; ++l) {
            const unsigned int at = thread + l * MATMUL_THREADS;
            const unsigned int row = at / (MATMUL_BK / 4);
            const unsigned int kk = at % (MATMUL_BK / 4) * 4;
            a_tile[buffer][kk][row] = a_next[l].x;
            a_tile[buffer][kk + 1][row] = a_next[l].y;
            a_tile[buffer][kk + 2][row] = a_next[l].z;
            a_tile[buffer][kk + 3][row] = a_next[l].w;
        }
#pragma unroll
        for (unsigned int l = 0; l < MATMUL_B_LOADS; ++l) {
            const unsigned int at = thread + l * MATMUL_THREADS;
            *reinterpret_cast<float4*>(&b_tile[buffer][at / (MATMUL_BN / 4)][at % (MATMUL_BN / 4) * 4]) = b_next[l];
        }
    };

    float sum[MATMUL_TM][MATMUL_TN] = {};
    load(k_begin);
    store(0);
    __syncthreads();
    unsigned int buffer = 0;
    for (unsigned int base = k_begin; base < k_end; base += MATMUL_BK) {
        const bool more = base + MATMUL_BK < k_end;
        if (more) {
            load(base + MATMUL_BK); // in flight while this step multiplies
        }
#pragma unroll
        for (unsigned int kk = 0; kk < MATMUL_BK; ++kk) {
            float a_column[MATMUL_TM];
            float b_row[MATMUL_TN];
#pragma unroll
            for (unsigned int g = 0; g < MATMUL_TM / 4; ++g) {
                const float4 piece =
                    *reinterpret_cast<const float4*>(&a_tile[buffer][kk][4 * (ty + g * MATMUL_THREADS_Y)]);
                a_column[4 * g] = piece.x;
                a_column[4 * g + 1] = piece.y;
                a_column[4 * g + 2] = piece.z;
                a_column[4 * g + 3] = piece.w;
            }
#pragma unroll
            for (unsigned int h = 0; h < MATMUL_TN / 4; ++h) {
                const float4 piece =
                    *reinterpret_cast<const float4*>(&b_tile[buffer][kk][4 * (tx + h * MATMUL_THREADS_X)]);
                b_row[4 * h] = piece.x;
                b_row[4 * h + 1] = piece.y;
                b_row[4 * h + 2] = piece.z;
                b_row[4 * h + 3] = piece.w;
            }
#pragma unroll
            for (unsigned int i = 0; i < MATMUL_TM; ++i) {
#pragma unroll
                for (unsigned int j = 0; j < MATMUL_TN; ++j) {
                    sum[i][j] += a_column[i] * b_row[j];
                }
            }
        }
        if (more) {
            // The other buffer was last read a step ago, before the barrier that ended that step.
            store(buffer ^ 1u);
            __syncthreads();
            buffer ^= 1u;
        }
    }
#pragma unroll
    for (unsigned int i = 0; i < MATMUL_TM; ++i) {
        const unsigned int row = row0 + 4 * (ty + i / 4 * MATMUL_THREADS_Y) + i % 4;
        if (row >= m) {
            continue;
        }
#pragma unroll
        for (unsigned int h = 0; h < MATMUL_TN / 4; ++h) {
            const unsigned int col = col0 + 4 * (tx + h * MATMUL_THREADS_X);
            if (vector_b && col < n) {
                *reinterpret_cast<float4*>(&c[row * n + col]) =
                    make_float4(sum[i][4 * h], sum[i][4 * h + 1], sum[i][4 * h + 2], sum[i][4 * h + 3]);
                continue;
            }
#pragma unroll
            for (unsigned int s = 0; s < 4; ++s) {
                if (col + s < n) {
                    c[row * n + col + s] = sum[i][4 * h + s];
                }
            }
        }
    }
}

// MATMUL_MIN_BLOCKS blocks an SM: left to itself ptxas gave the 128×128 tiles at BK 16 149
// registers (sm_90), which leaves room for one block of 256 threads; held to 128 (8 bytes spilled)
// two fit. The tuner tries both; the launcher asks NVIDIA's OpenCL for the same ceiling.
// Any K and N: the float4 paths chosen at run time.
extern "C" __global__ void __launch_bounds__(MATMUL_THREADS, MATMUL_MIN_BLOCKS)
    matmul_blocked(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, unsigned int m,
                   unsigned int n, unsigned int k)
{
    matmul_blocked_tile(a, b, c, m, n, k, k % 4 == 0, n % 4 == 0);
}

// K and N multiples of 4, which the launcher checks: the float4 paths alone. Without the element
// by element ones, ptxas (sm_90) fits the 128×128 tiles at BK 16 in 128 registers with no spill,
// and gives every candidate fewer registers (128×64: 95 against 107).
extern "C" __global__ void __launch_bounds__(MATMUL_THREADS, MATMUL_MIN_BLOCKS)
    matmul_blocked_aligned(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                           unsigned int m, unsigned int n, unsigned int k)
{
    matmul_blocked_tile(a, b, c, m, n, k, true, true);
}

// Split K's second step: each of the `count` elements of C the sum of its MATMUL_SPLIT_K partial
// products, slice after slice, so that the product's bits do not depend on the order the blocks
// ran in.
extern "C" __global__ void matmul_sum_splits(const float* __restrict__ partial, float* __restrict__ c,
                                             unsigned int count)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) {
        return;
    }
    float sum = partial[i];
#pragma unroll
    for (unsigned int s = 1; s < MATMUL_SPLIT_K; ++s) {
        sum += partial[static_cast<size_t>(s) * count + i];
    }
    c[i] = sum;
}
