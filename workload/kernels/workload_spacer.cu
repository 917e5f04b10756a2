// The kit's spacer: reads a buffer larger than the device's last-level cache and writes nothing, so
// that the timed kernel after it finds the cache full of clean lines whatever ran before (a copy, a
// fill), and the launch is already queued when the device reaches the kernel phase. The same entry
// point as workload_spacer.cl. `sink` is written only if the buffer's zeros summed to 1.
extern "C" __global__ void workload_spacer(const float* data, unsigned int n, float* sink)
{
    float sum = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        sum += data[i];
    }
    if (sum == 1.0f) {
        sink[0] = sum;
    }
}
