// y = a*x + y, one work-item per element: the OpenCL half of the CLI tests' user workload.
__kernel void saxpy(const uint n, const float a, __global const float* x, __global float* y)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
