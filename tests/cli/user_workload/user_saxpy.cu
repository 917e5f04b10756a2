// y = a*x + y, one thread per element: the CUDA half of the CLI tests' user workload.
extern "C" __global__ void saxpy(unsigned int n, float a, const float* x, float* y)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
