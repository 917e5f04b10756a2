// C = A + B on pitched buffers: rows `pitch` floats apart (the row padded to the device's
// alignment), a 3D volume being depth × height such rows. The same entry points as mat_add.cl
// (extern "C" keeps them unmangled); the padding between rows is never read or written.

extern "C" __global__ void mat_add_2d(const float* a, const float* b, float* c, unsigned int pitch, unsigned int width,
                                      unsigned int height)
{
    const size_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        const size_t at = y * pitch + x;
        c[at] = a[at] + b[at];
    }
}

extern "C" __global__ void mat_add_3d(const float* a, const float* b, float* c, unsigned int pitch, unsigned int width,
                                      unsigned int height, unsigned int depth)
{
    const size_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t y = blockIdx.y * blockDim.y + threadIdx.y;
    const size_t z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < width && y < height && z < depth) {
        const size_t at = (z * height + y) * pitch + x;
        c[at] = a[at] + b[at];
    }
}
