// Small kernels the conformance tests launch: the CUDA twins of test_kernels.cl, same entry names
// (extern "C"). Dynamic local memory is the launch's dynamic shared memory, not a parameter.

extern "C" __global__ void fill_value(float* out, float value, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = value;
    }
}

extern "C" __global__ void scale(const float* in, float* out, float factor, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __fmul_rn(in[i], factor);
    }
}

extern "C" __global__ void scalars(long long* out, signed char c, short s, int i, unsigned int u, long long l,
                                   unsigned long long ul, float f)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = c;
        out[1] = s;
        out[2] = i;
        out[3] = u;
        out[4] = l;
        out[5] = static_cast<long long>(ul);
        out[6] = __float_as_int(f);
    }
}

extern "C" __global__ void reduce_sum(const float* in, float* partial, unsigned int n)
{
    extern __shared__ float scratch[];
    const unsigned int lid = threadIdx.x;
    const unsigned int gid = blockIdx.x * blockDim.x + threadIdx.x;
    scratch[lid] = gid < n ? in[gid] : 0.0f;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (lid < stride) {
            scratch[lid] += scratch[lid + stride];
        }
        __syncthreads();
    }
    if (lid == 0) {
        partial[blockIdx.x] = scratch[0];
    }
}

extern "C" __global__ void static_local(float* out, unsigned int n)
{
    __shared__ float tile[64];
    const unsigned int lid = threadIdx.x;
    const unsigned int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (lid < 64) {
        tile[lid] = static_cast<float>(lid);
    }
    __syncthreads();
    if (gid < n) {
        out[gid] = tile[lid % 64];
    }
}

extern "C" __global__ void spin(float* data, float value, unsigned int iterations, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = data[i];
        for (unsigned int k = 0; k < iterations; ++k) {
            x = x * 0.999f + 0.001f;
        }
        data[i] = value + 0.0f * x;
    }
}

extern "C" __global__ void index_3d(unsigned int* coords, unsigned int* hits, unsigned int* mismatches, unsigned int nx,
                                    unsigned int ny, unsigned int nz)
{
    const unsigned long long x = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const unsigned long long y = static_cast<unsigned long long>(blockIdx.y) * blockDim.y + threadIdx.y;
    const unsigned long long z = static_cast<unsigned long long>(blockIdx.z) * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        const unsigned long long cell = (z * ny + y) * nx + x;
        coords[cell] = static_cast<unsigned int>(x | (y << 10) | (z << 20));
        atomicAdd(&hits[cell], 1u);
        // The CUDA side has no separate global id to disagree with; the count stays zero.
        (void)mismatches;
    }
}

extern "C" __global__ void pitched_scale(float* data, unsigned int pitch_bytes, unsigned int width, unsigned int rows,
                                         float factor)
{
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < rows) {
        float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(data) + static_cast<size_t>(y) * pitch_bytes);
        row[x] *= factor;
    }
}

// At most 64 threads per block (__launch_bounds__ is a maximum where OpenCL's twin asks for exactly 64).
extern "C" __global__ void __launch_bounds__(64) fixed_block(float* out)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

// Keeps 96 floats live across a chain of dependent updates, so that the compiler holds them in
// registers: too many for a block of 1024 in a register file of 65536.
extern "C" __global__ void register_heavy(const float* in, float* out, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float live[96];
#pragma unroll
    for (unsigned int j = 0; j < 96; ++j) {
        live[j] = in[(i + j * 977u) % n];
    }
    for (unsigned int round = 0; round < 8; ++round) {
#pragma unroll
        for (unsigned int j = 0; j < 96; ++j) {
            live[j] = live[j] * live[(j + 1) % 96] + live[(j + 7) % 96];
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (unsigned int j = 0; j < 96; ++j) {
        sum += live[j];
    }
    if (i < n) {
        out[i] = sum;
    }
}

extern "C" __global__ void add_value(unsigned int* data, unsigned int value, unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] += value;
    }
}
