// The CUDA twin of naive/step.cl, embedded as step_naive: out[i] = i.
extern "C" __global__ void fill_index(float* out, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = static_cast<float>(i);
    }
}
