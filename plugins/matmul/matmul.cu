// C = A × B in float, row-major, for any M, N, K: the same entry points as matmul.cl
// (extern "C" keeps the names unmangled for cuModuleGetFunction). One thread computes one
// element of C; x runs along the columns, so neighbouring threads touch neighbouring addresses.
// Indices are 32-bit: the launcher refuses matrices of 2^32 elements or more.

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

// A block computes a MATMUL_BM × MATMUL_BN tile of C, each of its (BM/TM) × (BN/TN) threads a
// TM × TN register tile: rows ty + i·(BM/TM), columns tx + j·(BN/TN), so that the threads of a
// warp read neighbouring shared-memory words (no bank conflicts) and write neighbouring columns
// of C. The block walks K in steps of MATMUL_BK through two shared buffers: while it multiplies
// one step's tiles it holds the next step's loads in registers, then stores them into the other
// buffer, one barrier a step. A's tile is stored transposed, its rows padded by 32 / BK floats so
// that a warp's transposing stores hit 32 different banks, for contiguous reads of its columns.
// Loads past an edge of A or B read zeros and stores past an edge of C are skipped: any M, N, K.
// The sizes are compile-time defines, so that a tuner can rebuild the kernel with others (NVRTC
// on CUDA).
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
#error "matmul_blocked: each thread loads a whole number of A's and B's elements a step, and BK divides 32"
#endif

extern "C" __global__ void __launch_bounds__(MATMUL_THREADS)
    matmul_blocked(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, unsigned int m,
                   unsigned int n, unsigned int k)
{
    __shared__ float a_tile[2][MATMUL_BK][MATMUL_BM + MATMUL_A_PAD];
    __shared__ float b_tile[2][MATMUL_BK][MATMUL_BN];
    const unsigned int tx = threadIdx.x;
    const unsigned int ty = threadIdx.y;
    const unsigned int thread = ty * MATMUL_THREADS_X + tx;
    const unsigned int row0 = blockIdx.y * MATMUL_BM;
    const unsigned int col0 = blockIdx.x * MATMUL_BN;

    float a_next[MATMUL_A_LOADS];
    float b_next[MATMUL_B_LOADS];
    // This thread's share of the step at `base`: A's elements row by row (BK consecutive floats of
    // a row each), B's along its rows (BN consecutive floats): consecutive threads, consecutive words.
    auto load = [&](unsigned int base) {
#pragma unroll
        for (unsigned int l = 0; l < MATMUL_A_LOADS; ++l) {
            const unsigned int at = thread + l * MATMUL_THREADS;
            const unsigned int row = row0 + at / MATMUL_BK;
            const unsigned int col = base + at % MATMUL_BK;
            a_next[l] = row < m && col < k ? a[row * k + col] : 0.0f;
        }
#pragma unroll
        for (unsigned int l = 0; l < MATMUL_B_LOADS; ++l) {
            const unsigned int at = thread + l * MATMUL_THREADS;
            const unsigned int row = base + at / MATMUL_BN;
            const unsigned int col = col0 + at % MATMUL_BN;
            b_next[l] = row < k && col < n ? b[row * n + col] : 0.0f;
        }
    };
    auto store = [&](unsigned int buffer) {
#pragma unroll
        for (unsigned int l = 0; l < MATMUL_A_LOADS; ++l) {
            const unsigned int at = thread + l * MATMUL_THREADS;
            a_tile[buffer][at % MATMUL_BK][at / MATMUL_BK] = a_next[l];
        }
#pragma unroll
        for (unsigned int l = 0; l < MATMUL_B_LOADS; ++l) {
            const unsigned int at = thread + l * MATMUL_THREADS;
            b_tile[buffer][at / MATMUL_BN][at % MATMUL_BN] = b_next[l];
        }
    };

    float sum[MATMUL_TM][MATMUL_TN] = {};
    load(0);
    store(0);
    __syncthreads();
    unsigned int buffer = 0;
    for (unsigned int base = 0; base < k; base += MATMUL_BK) {
        const bool more = base + MATMUL_BK < k;
        if (more) {
            load(base + MATMUL_BK); // in flight while this step multiplies
        }
#pragma unroll
        for (unsigned int kk = 0; kk < MATMUL_BK; ++kk) {
            float a_column[MATMUL_TM];
            float b_row[MATMUL_TN];
#pragma unroll
            for (unsigned int i = 0; i < MATMUL_TM; ++i) {
                a_column[i] = a_tile[buffer][kk][ty + i * MATMUL_THREADS_Y];
            }
#pragma unroll
            for (unsigned int j = 0; j < MATMUL_TN; ++j) {
                b_row[j] = b_tile[buffer][kk][tx + j * MATMUL_THREADS_X];
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
        const unsigned int row = row0 + ty + i * MATMUL_THREADS_Y;
#pragma unroll
        for (unsigned int j = 0; j < MATMUL_TN; ++j) {
            const unsigned int col = col0 + tx + j * MATMUL_THREADS_X;
            if (row < m && col < n) {
                c[row * n + col] = sum[i][j];
            }
        }
    }
}
