// Sum and max of n elements (float, and double where the device has cl_khr_fp64), in passes: each
// work-group folds a span of REDUCE_BLOCK × REDUCE_ITEMS consecutive elements to one value,
// written to partial[group]; the launcher reduces the partials the same way until one value is
// left. The same entry points as reduce.cu, named reduce_<variant>_<op>_<type>:
//   tree:   the group's values folded pairwise in local memory, halving the active work-items each step
//   warp:   each sub-group folds its values (sub_group_reduce_*, cl_khr_subgroups), then the first
//           work-item folds the sub-groups' results; absent where the device has no sub-groups
//   atomic: the tree, then one atomic per group into the single result (float only): a compare-and-
//           swap loop for the sum, integer atomic_max / atomic_min on the bits for the max
// Each work-item first folds REDUCE_ITEMS elements, REDUCE_BLOCK apart so that the group's loads
// are coalesced, left to right. The tree variant folds in reduce.cu's order: the APIs agree bit for bit.
// OpenCL C 1.2 has no templates: each operation and type is instantiated by the macros below.

#define REDUCE_BLOCK 256 // work-items per group: the launcher's block_size
#define REDUCE_ITEMS 16  // elements each work-item folds before the group does: the launcher's items_per_thread

#define SUM_IDENTITY(T) ((T)0)
#define SUM_APPLY(a, b) ((a) + (b))
#define MAX_IDENTITY(T) (-(T)INFINITY)
#define MAX_APPLY(a, b) fmax((a), (b))

// reduce_tree_<op>_<type>, and the helpers the other variants share.
#define REDUCE_TREE(op, OP, type, T)                                                                                   \
    T thread_fold_##op##_##type(__global const T* restrict in, const uint n)                                           \
    {                                                                                                                  \
        const uint first = get_group_id(0) * (REDUCE_BLOCK * REDUCE_ITEMS) + get_local_id(0);                          \
        T acc = OP##_IDENTITY(T);                                                                                      \
        if (first + (REDUCE_ITEMS - 1) * REDUCE_BLOCK < n) {                                                           \
            for (uint k = 0; k < REDUCE_ITEMS; ++k) {                                                                  \
                acc = OP##_APPLY(acc, in[first + k * REDUCE_BLOCK]);                                                   \
            }                                                                                                          \
            return acc;                                                                                                \
        }                                                                                                              \
        for (uint k = 0; k < REDUCE_ITEMS; ++k) {                                                                      \
            const uint i = first + k * REDUCE_BLOCK;                                                                   \
            if (i < n) {                                                                                               \
                acc = OP##_APPLY(acc, in[i]);                                                                          \
            }                                                                                                          \
        }                                                                                                              \
        return acc;                                                                                                    \
    }                                                                                                                  \
                                                                                                                       \
    T tree_fold_##op##_##type(__local T* folded, const T value)                                                        \
    {                                                                                                                  \
        const uint t = get_local_id(0);                                                                                \
        folded[t] = value;                                                                                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                  \
        for (uint active = REDUCE_BLOCK / 2; active > 0; active /= 2) {                                                \
            if (t < active) {                                                                                          \
                folded[t] = OP##_APPLY(folded[t], folded[t + active]);                                                 \
            }                                                                                                          \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                              \
        }                                                                                                              \
        return folded[0];                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    __kernel __attribute__((reqd_work_group_size(REDUCE_BLOCK, 1, 1))) void reduce_tree_##op##_##type(                 \
        __global const T* restrict in, __global T* restrict partial, const uint n)                                     \
    {                                                                                                                  \
        __local T folded[REDUCE_BLOCK];                                                                                \
        const T result = tree_fold_##op##_##type(folded, thread_fold_##op##_##type(in, n));                            \
        if (get_local_id(0) == 0) {                                                                                    \
            partial[get_group_id(0)] = result;                                                                         \
        }                                                                                                              \
    }

// reduce_warp_<op>_<type>: `subgroup_fold` is sub_group_reduce_add or sub_group_reduce_max.
#define REDUCE_WARP(op, OP, type, T, subgroup_fold)                                                                    \
    __kernel __attribute__((reqd_work_group_size(REDUCE_BLOCK, 1, 1))) void reduce_warp_##op##_##type(                 \
        __global const T* restrict in, __global T* restrict partial, const uint n)                                     \
    {                                                                                                                  \
        __local T per_subgroup[REDUCE_BLOCK];                                                                          \
        const T value = subgroup_fold(thread_fold_##op##_##type(in, n));                                               \
        if (get_sub_group_local_id() == 0) {                                                                           \
            per_subgroup[get_sub_group_id()] = value;                                                                  \
        }                                                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                  \
        if (get_local_id(0) == 0) {                                                                                    \
            T result = per_subgroup[0];                                                                                \
            for (uint g = 1; g < get_num_sub_groups(); ++g) {                                                          \
                result = OP##_APPLY(result, per_subgroup[g]);                                                          \
            }                                                                                                          \
            partial[get_group_id(0)] = result;                                                                         \
        }                                                                                                              \
    }

// OpenCL 1.2 has no float atomic add: the sum is a compare-and-swap loop on the bits, which
// serialises every group that reaches the result at once (reduce.cu's atomicAdd does not).
void atomic_fold_sum(volatile __global float* target, const float value)
{
    volatile __global uint* word = (volatile __global uint*)target;
    uint seen = *word;
    uint assumed;
    do {
        assumed = seen;
        seen = atomic_cmpxchg(word, assumed, as_uint(as_float(assumed) + value));
    } while (seen != assumed);
}

// The max with the core integer atomics, as reduce.cu does: non-negative floats order as signed
// integers, negative ones in reverse as unsigned, and every non-negative float's bits are below
// every negative one's as unsigned. The identity -inf is negative.
void atomic_fold_max(volatile __global float* target, const float value)
{
    if (!signbit(value)) {
        atomic_max((volatile __global int*)target, as_int(value));
    } else {
        atomic_min((volatile __global uint*)target, as_uint(value));
    }
}

// reduce_atomic_<op>_f32: `result` holds the identity before the launch (the launcher fills it).
#define REDUCE_ATOMIC(op)                                                                                              \
    __kernel __attribute__((reqd_work_group_size(REDUCE_BLOCK, 1, 1))) void reduce_atomic_##op##_f32(                  \
        __global const float* restrict in, volatile __global float* result, const uint n)                              \
    {                                                                                                                  \
        __local float folded[REDUCE_BLOCK];                                                                            \
        const float block_result = tree_fold_##op##_f32(folded, thread_fold_##op##_f32(in, n));                        \
        if (get_local_id(0) == 0) {                                                                                    \
            atomic_fold_##op(result, block_result);                                                                    \
        }                                                                                                              \
    }

REDUCE_TREE(sum, SUM, f32, float)
REDUCE_TREE(max, MAX, f32, float)
REDUCE_ATOMIC(sum)
REDUCE_ATOMIC(max)

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
REDUCE_TREE(sum, SUM, f64, double)
REDUCE_TREE(max, MAX, f64, double)
#endif

#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
REDUCE_WARP(sum, SUM, f32, float, sub_group_reduce_add)
REDUCE_WARP(max, MAX, f32, float, sub_group_reduce_max)
#ifdef cl_khr_fp64
REDUCE_WARP(sum, SUM, f64, double, sub_group_reduce_add)
REDUCE_WARP(max, MAX, f64, double, sub_group_reduce_max)
#endif
#endif
