// The CUDA twin of pyramid/step.cl, embedded as step_pyramid: out[i] = 2i.
extern "C" __global__ void fill_index(float* out, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 2.0f * static_cast<float>(i);
    }
}
