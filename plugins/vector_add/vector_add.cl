// c = a + b, one work-item per element. The worked example: the same entry point as
// vector_add.cu, with the tail guarded so any n works with any work-group size.
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
