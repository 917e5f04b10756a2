// Streams `bytes` bytes from src to dst: how the "mapped" variant moves data, with one side host
// memory that the kernel reads or writes in place over the bus. The same entry point as
// bandwidth.cl (extern "C" keeps the name unmangled for cuModuleGetFunction).
// 16-byte accesses make the widest bus transactions; both buffers start 16-byte aligned (device
// allocations and page-aligned host memory). A grid-stride loop lets any grid cover any size.
extern "C" __global__ void stream_copy(const unsigned char* src, unsigned char* dst, unsigned long long bytes)
{
    const unsigned long long vectors = bytes / 16;
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    const unsigned long long first = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const uint4* src16 = reinterpret_cast<const uint4*>(src);
    uint4* dst16 = reinterpret_cast<uint4*>(dst);
    for (unsigned long long i = first; i < vectors; i += stride) {
        dst16[i] = src16[i];
    }
    // The last bytes % 16 bytes, one thread each (the launcher's blocks have at least 16 threads).
    const unsigned long long tail = vectors * 16 + first;
    if (tail < bytes) {
        dst[tail] = src[tail];
    }
}
