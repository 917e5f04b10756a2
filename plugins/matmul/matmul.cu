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
