// c = a + b + offset: vector_add made wrong on purpose, for the CLI tests of disagreement.
__kernel void wrong_add(__global const float* a, __global const float* b, __global float* c, const uint n,
                        const float offset)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        c[i] = a[i] + b[i] + offset;
    }
}
