// One step of dense Jacobi, A against Aᵀ, for a system A x = f:
//   x1[k] = x0[k] + (f[k] - sum_j a[k][j] x0[j]) / a[k][k],   delta[k] = |x1[k] - x0[k]|.
// The same entry points as jacobi.cl, named jacobi_<kernel>_<type> (extern "C" keeps them unmangled).
// The dot products are split into segments of JACOBI_SEGMENT columns, one thread per row and
// segment (grid.y = segments): one thread per row alone leaves an H100 with 10240 threads,
// too few loads in flight to stream A at full bandwidth. jacobi_update then adds each row's
// segment sums in order. The three ways to read A, which is what the variants measure:
//   rows:       A row-major, thread k walks row k: a warp's loads are n elements apart (uncoalesced)
//   transposed: A stored transposed, thread k walks column k of Aᵀ: a warp's loads are adjacent
//   tiled:      as transposed, with the segment of x0 staged once per block in shared memory
// rather than loaded by every thread (all threads of a warp read the same x0[j]: a broadcast).
// Each launch covers m rows of the n, from row r0 (a rank's block of a distributed run; all n from
// 0 on one rank): A's block is m rows of n, row-major (rows) or transposed, n × m (at[j·m + k]);
// partial is segments × m; f and delta are the block's, x0 and x1 whole. The diagonal of row k is
// at k·row_stride + (r0 + k)·column_stride. Indices into A are 64-bit: n² may pass 2^32.

#define JACOBI_SEGMENT 512 // columns per segment: the launcher's segment_columns

template <class T>
__device__ __forceinline__ void store_partial(T* __restrict__ partial, unsigned int m, unsigned int k, T sum)
{
    partial[static_cast<size_t>(blockIdx.y) * m + k] = sum;
}

template <class T>
__device__ __forceinline__ void rows_partial(const T* __restrict__ a, const T* __restrict__ x0, T* __restrict__ partial,
                                             unsigned int n, unsigned int m)
{
    const unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m) {
        return;
    }
    const unsigned int first = blockIdx.y * JACOBI_SEGMENT;
    const unsigned int end = min(first + JACOBI_SEGMENT, n);
    const T* row = a + static_cast<size_t>(k) * n;
    T sum = 0;
    for (unsigned int j = first; j < end; ++j) {
        sum += row[j] * x0[j];
    }
    store_partial(partial, m, k, sum);
}

template <class T>
__device__ __forceinline__ void transposed_partial(const T* __restrict__ at, const T* __restrict__ x0,
                                                   T* __restrict__ partial, unsigned int n, unsigned int m)
{
    const unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m) {
        return;
    }
    const unsigned int first = blockIdx.y * JACOBI_SEGMENT;
    const unsigned int end = min(first + JACOBI_SEGMENT, n);
    T sum = 0;
    for (unsigned int j = first; j < end; ++j) {
        sum += at[static_cast<size_t>(j) * m + k] * x0[j];
    }
    store_partial(partial, m, k, sum);
}

template <class T>
__device__ __forceinline__ void tiled_partial(const T* __restrict__ at, const T* __restrict__ x0,
                                              T* __restrict__ partial, unsigned int n, unsigned int m)
{
    __shared__ T staged[JACOBI_SEGMENT];
    const unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int first = blockIdx.y * JACOBI_SEGMENT;
    const unsigned int count = min(first + JACOBI_SEGMENT, n) - first;
    for (unsigned int j = threadIdx.x; j < count; j += blockDim.x) {
        staged[j] = x0[first + j];
    }
    __syncthreads(); // every thread of the block reaches it: the row guard comes after
    if (k >= m) {
        return;
    }
    const T* column = at + static_cast<size_t>(first) * m + k;
    T sum = 0;
    for (unsigned int j = 0; j < count; ++j) {
        sum += column[static_cast<size_t>(j) * m] * staged[j];
    }
    store_partial(partial, m, k, sum);
}

template <class T>
__device__ __forceinline__ void update(const T* __restrict__ a, const T* __restrict__ f, const T* __restrict__ x0,
                                       const T* __restrict__ partial, T* __restrict__ x1, T* __restrict__ delta,
                                       unsigned int m, unsigned int r0, unsigned int segments, unsigned int row_stride,
                                       unsigned int column_stride)
{
    const unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m) {
        return;
    }
    T sum = partial[k];
    for (unsigned int s = 1; s < segments; ++s) {
        sum += partial[static_cast<size_t>(s) * m + k];
    }
    const unsigned int row = r0 + k;
    const T next =
        x0[row] + (f[k] - sum) / a[static_cast<size_t>(k) * row_stride + static_cast<size_t>(row) * column_stride];
    x1[row] = next;
    delta[k] = fabs(next - x0[row]);
}

#define JACOBI_KERNELS(type, T)                                                                                        \
    extern "C" __global__ void jacobi_rows_##type(const T* __restrict__ a, const T* __restrict__ x0,                   \
                                                  T* __restrict__ partial, unsigned int n, unsigned int m)             \
    {                                                                                                                  \
        rows_partial(a, x0, partial, n, m);                                                                            \
    }                                                                                                                  \
    extern "C" __global__ void jacobi_transposed_##type(const T* __restrict__ at, const T* __restrict__ x0,            \
                                                        T* __restrict__ partial, unsigned int n, unsigned int m)       \
    {                                                                                                                  \
        transposed_partial(at, x0, partial, n, m);                                                                     \
    }                                                                                                                  \
    extern "C" __global__ void jacobi_tiled_##type(const T* __restrict__ at, const T* __restrict__ x0,                 \
                                                   T* __restrict__ partial, unsigned int n, unsigned int m)            \
    {                                                                                                                  \
        tiled_partial(at, x0, partial, n, m);                                                                          \
    }                                                                                                                  \
    extern "C" __global__ void jacobi_update_##type(                                                                   \
        const T* __restrict__ a, const T* __restrict__ f, const T* __restrict__ x0, const T* __restrict__ partial,     \
        T* __restrict__ x1, T* __restrict__ delta, unsigned int m, unsigned int r0, unsigned int segments,             \
        unsigned int row_stride, unsigned int column_stride)                                                           \
    {                                                                                                                  \
        update(a, f, x0, partial, x1, delta, m, r0, segments, row_stride, column_stride);                              \
    }                                                                                                                  \
    /* On several ranks, once x1 is gathered whole: every rank's deltas over all n, the same values */                 \
    /* the update wrote for its own rows, so that each rank takes the max without another exchange. */                 \
    extern "C" __global__ void jacobi_delta_##type(const T* __restrict__ x0, const T* __restrict__ x1,                 \
                                                   T* __restrict__ delta, unsigned int n)                              \
    {                                                                                                                  \
        const unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;                                                  \
        if (k < n) {                                                                                                   \
            delta[k] = fabs(x1[k] - x0[k]);                                                                            \
        }                                                                                                              \
    }

JACOBI_KERNELS(f32, float)
JACOBI_KERNELS(f64, double)
