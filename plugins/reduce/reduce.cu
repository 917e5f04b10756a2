// Sum and max of n elements (float or double), in passes: each block folds a span of
// REDUCE_BLOCK × REDUCE_ITEMS consecutive elements to one value, written to partial[block]; the
// launcher reduces the partials the same way until one value is left. The same entry points as
// reduce.cl, named reduce_<variant>_<op>_<type> (extern "C" keeps them unmangled).
//   tree:   the block's values folded pairwise in shared memory, halving the active threads each step
//   warp:   each warp folds its values with shuffles, then the first thread folds the warps' results
//   atomic: the tree, then one atomic per block into the single result (one pass; float only): a
//           native atomicAdd for the sum, integer atomicMax / atomicMin on the bits for the max
// Each thread first folds REDUCE_ITEMS elements, REDUCE_BLOCK apart so that every load of a warp
// is one coalesced line, left to right. The tree variant folds in the same order as reduce.cl's,
// so the two APIs agree bit for bit.

#define REDUCE_BLOCK 256 // threads per block: the launcher's block_size
#define REDUCE_ITEMS 16  // elements each thread folds before the block does: the launcher's items_per_thread

struct Sum {
    template <class T> static __device__ __forceinline__ T identity() { return T(0); }
    template <class T> static __device__ __forceinline__ T apply(T a, T b) { return a + b; }
    static __device__ __forceinline__ void atomic(float* target, float value) { atomicAdd(target, value); }
};

struct Max {
    // -inf from its bits: NVRTC has no <math.h>, and so no INFINITY (nvcc's headers give one), and
    // a float's infinity converts to a double's.
    template <class T> static __device__ __forceinline__ T identity()
    {
        return -static_cast<T>(__int_as_float(0x7f800000));
    }
    template <class T> static __device__ __forceinline__ T apply(T a, T b) { return fmax(a, b); }
    // Native integer atomics order floats: non-negative ones as signed integers (the larger the
    // float, the larger its bits), negative ones in reverse as unsigned, and every non-negative
    // float's bits are below every negative one's as unsigned. The identity -inf is negative.
    static __device__ __forceinline__ void atomic(float* target, float value)
    {
        if (!signbit(value)) {
            atomicMax(reinterpret_cast<int*>(target), __float_as_int(value));
        } else {
            atomicMin(reinterpret_cast<unsigned int*>(target), __float_as_uint(value));
        }
    }
};

// This thread's REDUCE_ITEMS elements of the block's span, folded left to right; the identity
// where the span runs past n.
template <class Op, class T> __device__ __forceinline__ T thread_fold(const T* __restrict__ in, unsigned int n)
{
    const unsigned int first = blockIdx.x * (REDUCE_BLOCK * REDUCE_ITEMS) + threadIdx.x;
    T acc = Op::template identity<T>();
    if (first + (REDUCE_ITEMS - 1) * REDUCE_BLOCK < n) { // the whole span: no bounds checks, loads in flight together
#pragma unroll
        for (unsigned int k = 0; k < REDUCE_ITEMS; ++k) {
            acc = Op::apply(acc, in[first + k * REDUCE_BLOCK]);
        }
        return acc;
    }
    for (unsigned int k = 0; k < REDUCE_ITEMS; ++k) {
        const unsigned int i = first + k * REDUCE_BLOCK;
        if (i < n) {
            acc = Op::apply(acc, in[i]);
        }
    }
    return acc;
}

// The block's values folded pairwise in shared memory; the block's result in thread 0.
template <class Op, class T> __device__ __forceinline__ T tree_fold(T value)
{
    __shared__ T folded[REDUCE_BLOCK];
    const unsigned int t = threadIdx.x;
    folded[t] = value;
    __syncthreads();
    for (unsigned int active = REDUCE_BLOCK / 2; active > 0; active /= 2) {
        if (t < active) {
            folded[t] = Op::apply(folded[t], folded[t + active]);
        }
        __syncthreads();
    }
    return folded[0];
}

// Each warp's values folded with shuffles, then the warps' results by thread 0, in warp order.
template <class Op, class T> __device__ __forceinline__ T warp_fold(T value)
{
    __shared__ T per_warp[REDUCE_BLOCK / 32];
    for (unsigned int offset = 16; offset > 0; offset /= 2) {
        value = Op::apply(value, __shfl_down_sync(0xffffffffu, value, offset));
    }
    if (threadIdx.x % 32 == 0) {
        per_warp[threadIdx.x / 32] = value;
    }
    __syncthreads();
    T result = per_warp[0];
    for (unsigned int w = 1; w < REDUCE_BLOCK / 32; ++w) {
        result = Op::apply(result, per_warp[w]);
    }
    return result;
}

template <class Op, class T>
__device__ __forceinline__ void tree_pass(const T* __restrict__ in, T* __restrict__ partial, unsigned int n)
{
    const T result = tree_fold<Op>(thread_fold<Op>(in, n));
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = result;
    }
}

template <class Op, class T>
__device__ __forceinline__ void warp_pass(const T* __restrict__ in, T* __restrict__ partial, unsigned int n)
{
    const T result = warp_fold<Op>(thread_fold<Op>(in, n));
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = result;
    }
}

// `result` holds the identity before the launch (the launcher fills it).
template <class Op>
__device__ __forceinline__ void atomic_pass(const float* __restrict__ in, float* result, unsigned int n)
{
    const float block_result = tree_fold<Op>(thread_fold<Op>(in, n));
    if (threadIdx.x == 0) {
        Op::atomic(result, block_result);
    }
}

#define REDUCE_PASS(variant, op, Op, type, T)                                                                          \
    extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK)                                                         \
        reduce_##variant##_##op##_##type(const T* __restrict__ in, T* __restrict__ partial, unsigned int n)            \
    {                                                                                                                  \
        variant##_pass<Op>(in, partial, n);                                                                            \
    }

REDUCE_PASS(tree, sum, Sum, f32, float)
REDUCE_PASS(tree, max, Max, f32, float)
REDUCE_PASS(tree, sum, Sum, f64, double)
REDUCE_PASS(tree, max, Max, f64, double)
REDUCE_PASS(warp, sum, Sum, f32, float)
REDUCE_PASS(warp, max, Max, f32, float)
REDUCE_PASS(warp, sum, Sum, f64, double)
REDUCE_PASS(warp, max, Max, f64, double)

extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK)
    reduce_atomic_sum_f32(const float* __restrict__ in, float* result, unsigned int n)
{
    atomic_pass<Sum>(in, result, n);
}

extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK)
    reduce_atomic_max_f32(const float* __restrict__ in, float* result, unsigned int n)
{
    atomic_pass<Max>(in, result, n);
}
