// Strided and random reads through OpenCL's load paths: out[i] = in[row × stride], row i (strided)
// or index[i] (random). The input is n rows of `stride` floats and every row is read once, so the
// kernels differ only in how a warp's (sub-group's) reads fall into memory transactions, and in
// the load path. The same entry points as access.cu where both languages have the path; OpenCL C
// has no __ldg (its one read-only hint is const restrict), CUDA no __constant path. Indices are
// 32-bit: the launcher keeps n × stride within 2^32.

// plain: const alone does not let the compiler use a read-only path, since `out` may alias `in`.
__kernel void access_strided_plain(__global const float* in, __global float* out, const uint n, const uint stride)
{
    const uint i = get_global_id(0);
    if (i < n) {
        out[i] = in[i * stride];
    }
}

__kernel void access_random_plain(__global const float* in, __global const uint* index, __global float* out,
                                  const uint n, const uint stride)
{
    const uint i = get_global_id(0);
    if (i < n) {
        out[i] = in[index[i] * stride];
    }
}

// restrict: const restrict on every pointer promises that nothing the kernel writes is read
// through them, so the compiler may load through a read-only path (NVIDIA's ld.global.nc).
__kernel void access_strided_restrict(__global const float* restrict in, __global float* restrict out, const uint n,
                                      const uint stride)
{
    const uint i = get_global_id(0);
    if (i < n) {
        out[i] = in[i * stride];
    }
}

__kernel void access_random_restrict(__global const float* restrict in, __global const uint* restrict index,
                                     __global float* restrict out, const uint n, const uint stride)
{
    const uint i = get_global_id(0);
    if (i < n) {
        out[i] = in[index[i] * stride];
    }
}

// constant: the input in __constant memory, which must fit CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE (the
// launcher refuses a larger one). On NVIDIA the constant cache serves one address per warp at a
// time: made for all threads reading the same element, not for each reading its own. The index
// stays on the restrict path, so only the input's path differs from restrict's.
__kernel void access_strided_constant(__constant float* in, __global float* restrict out, const uint n,
                                      const uint stride)
{
    const uint i = get_global_id(0);
    if (i < n) {
        out[i] = in[i * stride];
    }
}

__kernel void access_random_constant(__constant float* in, __global const uint* restrict index,
                                     __global float* restrict out, const uint n, const uint stride)
{
    const uint i = get_global_id(0);
    if (i < n) {
        out[i] = in[index[i] * stride];
    }
}
