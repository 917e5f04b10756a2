// Double sin and cos alone (benchmarks/trig/trig.duet.toml): 8 of each per element.
extern "C" __global__ void trig(const double* __restrict__ x, double* __restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double sum = 0.0;
        for (int k = 0; k < 8; ++k) {
            sum += sin(x[i] + 0.125 * k) * cos(x[i] - 0.125 * k);
        }
        y[i] = sum;
    }
}
