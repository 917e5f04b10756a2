// Each block's sum of n floats: a grid-stride loop into registers, then a tree in dynamic shared
// memory (extern __shared__, sized by the launch). Block size: a power of two.
extern "C" __global__ void block_sum(const float* in, float* partial, int n)
{
    extern __shared__ float scratch[];
    const unsigned t = threadIdx.x;
    float sum = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        sum += in[i];
    }
    scratch[t] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            scratch[t] += scratch[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = scratch[0];
    }
}

// The reference: the first thread of each block adds the same elements one by one, compensated
// (Kahan), so its own rounding error stays near one ulp.
extern "C" __global__ void block_sum_serial(const float* in, float* partial, int n)
{
    if (threadIdx.x != 0) {
        return;
    }
    float sum = 0, carry = 0;
    for (int start = blockIdx.x * blockDim.x; start < n; start += gridDim.x * blockDim.x) {
        for (int i = start; i < start + (int)blockDim.x && i < n; ++i) {
            const float y = in[i] - carry;
            const float t = sum + y;
            carry = (t - sum) - y;
            sum = t;
        }
    }
    partial[blockIdx.x] = sum;
}
