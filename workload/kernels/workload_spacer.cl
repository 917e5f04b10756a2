// The kit's spacer: reads a buffer larger than the device's last-level cache and writes nothing, so
// that the timed kernel after it finds the cache full of clean lines whatever ran before (a copy, a
// fill), and the launch is already queued when the device reaches the kernel phase. The same entry
// point as workload_spacer.cu. `sink` is written only if the buffer's zeros summed to 1.
__kernel void workload_spacer(__global const float* data, const uint n, __global float* sink)
{
    float sum = 0.0f;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {
        sum += data[i];
    }
    if (sum == 1.0f) {
        sink[0] = sum;
    }
}
