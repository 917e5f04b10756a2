// Each work-group's sum of n floats, ported from reduce.cu: OpenCL has no extern __local array,
// so the scratch memory is a __local argument, sized by the host. Work-group size: a power of two.
__kernel void block_sum(__global const float* in, __global float* partial, __local float* scratch, int n)
{
    const unsigned t = get_local_id(0);
    float sum = 0;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        sum += in[i];
    }
    scratch[t] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (unsigned s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (t < s) {
            scratch[t] += scratch[t + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) {
        partial[get_group_id(0)] = scratch[0];
    }
}

// The reference: the first work-item of each group adds the same elements one by one, compensated.
__kernel void block_sum_serial(__global const float* in, __global float* partial, int n)
{
    if (get_local_id(0) != 0) {
        return;
    }
    float sum = 0, carry = 0;
    for (int start = get_group_id(0) * get_local_size(0); start < n; start += get_global_size(0)) {
        for (int i = start; i < start + (int)get_local_size(0) && i < n; ++i) {
            const float y = in[i] - carry;
            const float t = sum + y;
            carry = (t - sum) - y;
            sum = t;
        }
    }
    partial[get_group_id(0)] = sum;
}
