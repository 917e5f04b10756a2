// Small kernels, each showing one way two builds of the same code can differ in their PTX: built
// with nvcc's defaults and again with --fmad=false, -prec-div=false -prec-sqrt=false, -use_fast_math.
extern "C" __global__ void axpb(float* y, const float* x, float a, float b, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + b;
    }
}

extern "C" __global__ void quotient(float* q, const float* a, const float* b, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        q[i] = sqrtf(a[i]) / b[i];
    }
}

extern "C" __global__ void wave(float* y, const float* x, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = sinf(x[i]);
    }
}

extern "C" __global__ void copy_plain(float* y, const float* x, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i];
    }
}

extern "C" __global__ void copy_restrict(float* __restrict__ y, const float* __restrict__ x, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i];
    }
}

extern "C" __global__ void copy_float4(float4* y, const float4* x, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i];
    }
}

extern "C" __global__ void scale_float(float* y, const float* x, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * 1.1f;
    }
}

extern "C" __global__ void scale_double(float* y, const float* x, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * 1.1;
    }
}

// A stack array indexed at run time: nvcc keeps it in local memory.
extern "C" __global__ void pick_local(float* y, const float* x, const int* k, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t[16];
        for (int j = 0; j < 16; ++j) {
            t[j] = x[i * 16 + j];
        }
        y[i] = t[k[i] & 15];
    }
}

extern "C" __global__ void pick_register(float* y, const float* x, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i * 16 + 3];
    }
}

// Reverses each block's 256 elements through shared memory; the second kernel waits twice.
extern "C" __global__ void reverse_once(float* y, const float* x)
{
    __shared__ float tile[256];
    const unsigned int i = blockIdx.x * 256 + threadIdx.x;
    tile[threadIdx.x] = x[i];
    __syncthreads();
    y[i] = tile[255 - threadIdx.x];
}

extern "C" __global__ void reverse_twice(float* y, const float* x)
{
    __shared__ float tile[256];
    const unsigned int i = blockIdx.x * 256 + threadIdx.x;
    tile[threadIdx.x] = x[i];
    __syncthreads();
    const float v = tile[255 - threadIdx.x];
    __syncthreads();
    tile[threadIdx.x] = v * 2.0f;
    __syncthreads();
    y[i] = tile[threadIdx.x ^ 1];
}
