// Small kernels the conformance tests launch. Every entry point has a twin of the same name in
// test_kernels.cu; a __local pointer parameter here is the launch's dynamic shared memory there.

// out[i] = value for i < n: the kernel the bad-launch tests try to run, so that a launch that
// slipped through shows in the output.
__kernel void fill_value(__global float* out, const float value, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        out[i] = value;
    }
}

// out[i] = in[i] * factor: one correctly rounded multiply, so every device agrees bitwise.
__kernel void scale(__global const float* in, __global float* out, const float factor, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        out[i] = in[i] * factor;
    }
}

// Writes back every scalar argument, widened to 64 bits, so the host can check each arrived.
__kernel void scalars(__global long* out, const char c, const short s, const int i, const uint u, const long l,
                      const ulong ul, const float f)
{
    if (get_global_id(0) == 0) {
        out[0] = c;
        out[1] = s;
        out[2] = i;
        out[3] = u;
        out[4] = l;
        out[5] = as_long(ul);
        out[6] = as_int(f);
    }
}

// partial[group] = sum of the group's elements; the block size must be a power of two and
// scratch must hold one float per work-item.
__kernel void reduce_sum(__global const float* in, __global float* partial, __local float* scratch, const uint n)
{
    const size_t lid = get_local_id(0);
    const size_t gid = get_global_id(0);
    scratch[lid] = gid < n ? in[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride) {
            scratch[lid] += scratch[lid + stride];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        partial[get_group_id(0)] = scratch[0];
    }
}

// Declares 64 floats of static local memory (256 bytes), reported by Kernel::static_local_memory().
// out[i] = local id % 64, read back through the tile.
__kernel void static_local(__global float* out, const uint n)
{
    __local float tile[64];
    const size_t lid = get_local_id(0);
    const size_t gid = get_global_id(0);
    if (lid < 64) {
        tile[lid] = (float)lid;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < n) {
        out[gid] = tile[lid % 64];
    }
}

// Busy work, then data[i] = value: long enough that a queue not waiting for it would see the old
// data, and that events around it are measurably apart.
__kernel void spin(__global float* data, const float value, const uint iterations, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        float x = data[i];
        for (uint k = 0; k < iterations; ++k) {
            x = x * 0.999f + 0.001f;
        }
        data[i] = value + 0.0f * x;
    }
}

// Every cell of an nx × ny × nz box records its coordinates and counts its visits; a cell whose
// global id disagrees with group × block + local counts a mismatch.
__kernel void index_3d(__global uint* coords, __global uint* hits, __global uint* mismatches, const uint nx,
                       const uint ny, const uint nz)
{
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    const size_t z = get_global_id(2);
    if (x < nx && y < ny && z < nz) {
        const size_t cell = (z * ny + y) * nx + x;
        coords[cell] = (uint)(x | (y << 10) | (z << 20));
        atomic_inc(&hits[cell]);
        if (x != get_group_id(0) * get_local_size(0) + get_local_id(0) ||
            y != get_group_id(1) * get_local_size(1) + get_local_id(1) ||
            z != get_group_id(2) * get_local_size(2) + get_local_id(2)) {
            atomic_inc(&mismatches[0]);
        }
    }
}

// Scales a width × rows array whose rows are pitch_bytes apart, as PitchedBuffer lays them out.
__kernel void pitched_scale(__global float* data, const uint pitch_bytes, const uint width, const uint rows,
                            const float factor)
{
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    if (x < width && y < rows) {
        __global float* row = (__global float*)((__global char*)data + y * pitch_bytes);
        row[x] *= factor;
    }
}

// Declares the one block size it runs with, 64 (read back as CL_KERNEL_COMPILE_WORK_GROUP_SIZE):
// a launch with another block is the caller's error.
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void fixed_block(__global float* out)
{
    out[get_global_id(0)] = 1.0f;
}

// Keeps 96 floats live across a chain of dependent updates, so that a GPU compiler holds them in
// registers (127 a work-item on an H100): too many for a block of 1024 in a register file of 65536.
__kernel void register_heavy(__global const float* in, __global float* out, const uint n)
{
    const uint i = get_global_id(0);
    float live[96];
#pragma unroll
    for (uint j = 0; j < 96; ++j) {
        live[j] = in[(i + j * 977u) % n];
    }
    for (uint round = 0; round < 8; ++round) {
#pragma unroll
        for (uint j = 0; j < 96; ++j) {
            live[j] = live[j] * live[(j + 1) % 96] + live[(j + 7) % 96];
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (uint j = 0; j < 96; ++j) {
        sum += live[j];
    }
    if (i < n) {
        out[i] = sum;
    }
}

// data[i] += value for i < n: each launch leaves a mark, so a replayed sequence's count shows.
__kernel void add_value(__global uint* data, const uint value, const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        data[i] += value;
    }
}
