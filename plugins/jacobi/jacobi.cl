// One step of dense Jacobi, A against Aᵀ, for a system A x = f:
//   x1[k] = x0[k] + (f[k] - sum_j a[k][j] x0[j]) / a[k][k],   delta[k] = |x1[k] - x0[k]|.
// The same entry points as jacobi.cu, named jacobi_<kernel>_<type>; the double kernels only where
// the device has cl_khr_fp64. The dot products are split into segments of JACOBI_SEGMENT columns,
// one work-item per row and segment (dimension 1 = segments), so that enough loads are in flight
// to stream A; jacobi_update adds each row's segment sums in order. How A is read is what the
// variants measure:
//   rows:       A row-major, work-item k walks row k: a sub-group's loads are n elements apart
//   transposed: A stored transposed, work-item k walks column k of Aᵀ: adjacent loads
//   tiled:      as transposed, with the segment of x0 staged once per group in local memory
// Each launch covers m rows of the n, from row r0 (a rank's block of a distributed run; all n from
// 0 on one rank): A's block is m rows of n, row-major (rows) or transposed, n × m (at[j·m + k]);
// partial is segments × m; f and delta are the block's, x0 and x1 whole. The diagonal of row k is
// at k·row_stride + (r0 + k)·column_stride. Indices into A are 64-bit: n² may pass 2^32.
// OpenCL C 1.2 has no templates: each type is instantiated by the macro below.

#define JACOBI_SEGMENT 512 // columns per segment: the launcher's segment_columns

#define JACOBI_KERNELS(type, T)                                                                                        \
    __kernel void jacobi_rows_##type(__global const T* restrict a, __global const T* restrict x0,                      \
                                     __global T* restrict partial, const uint n, const uint m)                         \
    {                                                                                                                  \
        const uint k = get_global_id(0);                                                                               \
        if (k >= m) {                                                                                                  \
            return;                                                                                                    \
        }                                                                                                              \
        const uint first = get_group_id(1) * JACOBI_SEGMENT;                                                           \
        const uint end = min(first + JACOBI_SEGMENT, n);                                                               \
        __global const T* row = a + (size_t)k * n;                                                                     \
        T sum = 0;                                                                                                     \
        for (uint j = first; j < end; ++j) {                                                                           \
            sum += row[j] * x0[j];                                                                                     \
        }                                                                                                              \
        partial[(size_t)get_group_id(1) * m + k] = sum;                                                                \
    }                                                                                                                  \
                                                                                                                       \
    __kernel void jacobi_transposed_##type(__global const T* restrict at, __global const T* restrict x0,               \
                                           __global T* restrict partial, const uint n, const uint m)                   \
    {                                                                                                                  \
        const uint k = get_global_id(0);                                                                               \
        if (k >= m) {                                                                                                  \
            return;                                                                                                    \
        }                                                                                                              \
        const uint first = get_group_id(1) * JACOBI_SEGMENT;                                                           \
        const uint end = min(first + JACOBI_SEGMENT, n);                                                               \
        T sum = 0;                                                                                                     \
        for (uint j = first; j < end; ++j) {                                                                           \
            sum += at[(size_t)j * m + k] * x0[j];                                                                      \
        }                                                                                                              \
        partial[(size_t)get_group_id(1) * m + k] = sum;                                                                \
    }                                                                                                                  \
                                                                                                                       \
    __kernel void jacobi_tiled_##type(__global const T* restrict at, __global const T* restrict x0,                    \
                                      __global T* restrict partial, const uint n, const uint m)                        \
    {                                                                                                                  \
        __local T staged[JACOBI_SEGMENT];                                                                              \
        const uint k = get_global_id(0);                                                                               \
        const uint first = get_group_id(1) * JACOBI_SEGMENT;                                                           \
        const uint count = min(first + JACOBI_SEGMENT, n) - first;                                                     \
        for (uint j = get_local_id(0); j < count; j += get_local_size(0)) {                                            \
            staged[j] = x0[first + j];                                                                                 \
        }                                                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE); /* every work-item reaches it: the row guard comes after */                      \
        if (k >= m) {                                                                                                  \
            return;                                                                                                    \
        }                                                                                                              \
        __global const T* column = at + (size_t)first * m + k;                                                         \
        T sum = 0;                                                                                                     \
        for (uint j = 0; j < count; ++j) {                                                                             \
            sum += column[(size_t)j * m] * staged[j];                                                                  \
        }                                                                                                              \
        partial[(size_t)get_group_id(1) * m + k] = sum;                                                                \
    }                                                                                                                  \
                                                                                                                       \
    __kernel void jacobi_update_##type(                                                                                \
        __global const T* restrict a, __global const T* restrict f, __global const T* restrict x0,                     \
        __global const T* restrict partial, __global T* restrict x1, __global T* restrict delta, const uint m,         \
        const uint r0, const uint segments, const uint row_stride, const uint column_stride)                           \
    {                                                                                                                  \
        const uint k = get_global_id(0);                                                                               \
        if (k >= m) {                                                                                                  \
            return;                                                                                                    \
        }                                                                                                              \
        T sum = partial[k];                                                                                            \
        for (uint s = 1; s < segments; ++s) {                                                                          \
            sum += partial[(size_t)s * m + k];                                                                         \
        }                                                                                                              \
        const uint row = r0 + k;                                                                                       \
        const T next = x0[row] + (f[k] - sum) / a[(size_t)k * row_stride + (size_t)row * column_stride];               \
        x1[row] = next;                                                                                                \
        delta[k] = fabs(next - x0[row]);                                                                               \
    }                                                                                                                  \
                                                                                                                       \
    /* On several ranks, once x1 is gathered whole: every rank's deltas over all n, the same values */                 \
    /* the update wrote for its own rows, so that each rank takes the max without another exchange. */                 \
    __kernel void jacobi_delta_##type(__global const T* restrict x0, __global const T* restrict x1,                    \
                                      __global T* restrict delta, const uint n)                                        \
    {                                                                                                                  \
        const uint k = get_global_id(0);                                                                               \
        if (k < n) {                                                                                                   \
            delta[k] = fabs(x1[k] - x0[k]);                                                                            \
        }                                                                                                              \
    }

JACOBI_KERNELS(f32, float)

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
JACOBI_KERNELS(f64, double)
#endif
