// SAXPY ported to OpenCL, with the buffers first: the manifest gives each API its own argument order.
__kernel void saxpy(__global const float* restrict x, __global float* restrict y, float a, int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
