// c = a + b + offset: vector_add made wrong on purpose, for the CLI tests of disagreement.
extern "C" __global__ void wrong_add(const float* a, const float* b, float* c, unsigned int n, float offset)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i] + offset;
    }
}
