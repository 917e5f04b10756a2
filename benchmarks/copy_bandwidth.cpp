// Pinned host<->device copy bandwidth through duet against the raw calls on the same buffers,
// queue and device (cuMemcpyHtoDAsync / cuMemcpyDtoHAsync, clEnqueueWriteBuffer /
// clEnqueueReadBuffer), each copy timed by device events; the median of the rounds is reported.
#include <duet/duet.hpp>

#include "measure.hpp"

#include <CL/cl.h>
#ifdef DUET_BENCH_CUDA
#include <cuda.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

namespace {

using duet::bench::require;

struct Paths {
    std::function<void()> write, read;
};

Paths raw_paths(const duet::Device& device, duet::Queue& queue, const duet::RawBuffer& buffer, void* host,
                std::size_t bytes)
{
    if (device.backend() == "opencl") {
        const auto q = static_cast<cl_command_queue>(queue.native());
        const auto memory = static_cast<cl_mem>(buffer.native());
        return {[=] {
                    const cl_int code = clEnqueueWriteBuffer(q, memory, CL_FALSE, 0, bytes, host, 0, nullptr, nullptr);
                    require(code == CL_SUCCESS, "clEnqueueWriteBuffer", code);
                },
                [=] {
                    const cl_int code = clEnqueueReadBuffer(q, memory, CL_FALSE, 0, bytes, host, 0, nullptr, nullptr);
                    require(code == CL_SUCCESS, "clEnqueueReadBuffer", code);
                }};
    }
#ifdef DUET_BENCH_CUDA
    if (device.backend() == "cuda") {
        const auto stream = static_cast<CUstream>(queue.native());
        const auto pointer = reinterpret_cast<CUdeviceptr>(buffer.native());
        require(cuCtxSetCurrent(static_cast<CUcontext>(device.native().context)) == CUDA_SUCCESS, "cuCtxSetCurrent", 0);
        return {[=] {
                    const CUresult code = cuMemcpyHtoDAsync(pointer, host, bytes, stream);
                    require(code == CUDA_SUCCESS, "cuMemcpyHtoDAsync", code);
                },
                [=] {
                    const CUresult code = cuMemcpyDtoHAsync(host, pointer, bytes, stream);
                    require(code == CUDA_SUCCESS, "cuMemcpyDtoHAsync", code);
                }};
    }
#endif
    return {};
}

/// GB/s of one copy, as the median over `rounds`, timed between device events.
double gbps(duet::Queue& queue, const std::function<void()>& copy, std::size_t bytes, int rounds)
{
    std::vector<double> values;
    for (int round = 0; round < rounds; ++round) {
        const auto start = queue.record();
        copy();
        const auto end = queue.record();
        end.wait();
        values.push_back(bytes / (duet::elapsed_ms(start, end) * 1e-3) / 1e9);
    }
    return duet::bench::median(values);
}

} // namespace

int main(int argc, char** argv)
{
    const std::size_t bytes = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256) << 20;
    constexpr int rounds = 15;
    std::printf("pinned copy bandwidth: %zu MiB per copy, median of %d, GB/s (1e9 bytes/s)\n", bytes >> 20, rounds);
    std::printf("%-10s %-34s %9s %9s %7s %9s %9s %7s\n", "device", "name", "raw h2d", "duet h2d", "ratio", "raw d2h",
                "duet d2h", "ratio");
    for (const auto& device : duet::Registry::global().devices()) {
        auto queue = device.create_queue();
        auto host = device.alloc_host(bytes, duet::HostMemoryKind::pinned);
        std::memset(host.data(), 0x5a, bytes);
        const auto buffer = device.alloc_bytes(bytes);
        const auto raw = raw_paths(device, queue, buffer, host.data(), bytes);
        if (!raw.write) {
            continue;
        }
        const std::function<void()> write = [&] { queue.write_bytes(buffer, 0, host.data(), bytes); };
        const std::function<void()> read = [&] { queue.read_bytes(host.data(), buffer, 0, bytes); };
        gbps(queue, write, bytes, 2); // warm-up
        const double raw_write = gbps(queue, raw.write, bytes, rounds);
        const double duet_write = gbps(queue, write, bytes, rounds);
        const double raw_read = gbps(queue, raw.read, bytes, rounds);
        const double duet_read = gbps(queue, read, bytes, rounds);
        std::printf("%-10s %-34.34s %9.2f %9.2f %6.1f%% %9.2f %9.2f %6.1f%%\n", device.selector().c_str(),
                    device.properties().name.c_str(), raw_write, duet_write, 100 * duet_write / raw_write, raw_read,
                    duet_read, 100 * duet_read / raw_read);
    }
    return 0;
}
