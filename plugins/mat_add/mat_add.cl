// C = A + B on pitched buffers: rows `pitch` floats apart (the row padded to the device's
// alignment), a 3D volume being depth × height such rows. The same entry points as mat_add.cu;
// the padding between rows is never read or written.

__kernel void mat_add_2d(__global const float* a, __global const float* b, __global float* c, const uint pitch,
                         const uint width, const uint height)
{
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    if (x < width && y < height) {
        const size_t at = y * pitch + x;
        c[at] = a[at] + b[at];
    }
}

__kernel void mat_add_3d(__global const float* a, __global const float* b, __global float* c, const uint pitch,
                         const uint width, const uint height, const uint depth)
{
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    const size_t z = get_global_id(2);
    if (x < width && y < height && z < depth) {
        const size_t at = (z * height + y) * pitch + x;
        c[at] = a[at] + b[at];
    }
}
