// Streams `bytes` bytes from src to dst: how the "mapped" variant moves data, with one side host
// memory that the kernel reads or writes in place. The same entry point as bandwidth.cu.
// 16-byte accesses make the widest transactions; both buffers start 16-byte aligned (buffers are
// aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN). A grid-stride loop lets any NDRange cover any size.
__kernel void stream_copy(__global const uchar* src, __global uchar* dst, const ulong bytes)
{
    const ulong vectors = bytes / 16;
    const ulong stride = get_global_size(0);
    const ulong first = get_global_id(0);
    __global const uint4* src16 = (__global const uint4*)src;
    __global uint4* dst16 = (__global uint4*)dst;
    for (ulong i = first; i < vectors; i += stride) {
        dst16[i] = src16[i];
    }
    // The last bytes % 16 bytes, one work-item each (the launcher's blocks have at least 16).
    const ulong tail = vectors * 16 + first;
    if (tail < bytes) {
        dst[tail] = src[tail];
    }
}
