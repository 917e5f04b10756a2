// Strided and random reads through CUDA's load paths: out[i] = in[row × stride], row i (strided)
// or index[i] (random). The input is n rows of `stride` floats and every row is read once, so the
// kernels differ only in how a warp's 32 reads fall into 32-byte sectors, and in the load path.
// The same entry points as access.cl where both languages have the path (extern "C" keeps them
// unmangled); CUDA has no __constant path (access.cpp says why), OpenCL no __ldg. Indices are
// 32-bit: the launcher keeps n × stride within 2^32.

// plain: const alone does not let the compiler use the read-only path, since `out` may alias
// `in`: ordinary global loads (PTX ld.global).
extern "C" __global__ void access_strided_plain(const float* in, float* out, unsigned int n, unsigned int stride)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i * stride];
    }
}

extern "C" __global__ void access_random_plain(const float* in, const unsigned int* index, float* out, unsigned int n,
                                               unsigned int stride)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[index[i] * stride];
    }
}

// restrict: const __restrict__ on every pointer promises that nothing the kernel writes is
// read through them, so the compiler may load through the read-only path (PTX ld.global.nc).
extern "C" __global__ void access_strided_restrict(const float* __restrict__ in, float* __restrict__ out,
                                                   unsigned int n, unsigned int stride)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i * stride];
    }
}

extern "C" __global__ void access_random_restrict(const float* __restrict__ in, const unsigned int* __restrict__ index,
                                                  float* __restrict__ out, unsigned int n, unsigned int stride)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[index[i] * stride];
    }
}

// ldg: __ldg asks for the read-only path explicitly, whatever the compiler can prove; the
// pointers are as plain's.
extern "C" __global__ void access_strided_ldg(const float* in, float* out, unsigned int n, unsigned int stride)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __ldg(&in[i * stride]);
    }
}

extern "C" __global__ void access_random_ldg(const float* in, const unsigned int* index, float* out, unsigned int n,
                                             unsigned int stride)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __ldg(&in[__ldg(&index[i]) * stride]);
    }
}
