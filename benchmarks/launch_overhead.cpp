// Per-launch overhead of duet against the raw API it wraps: an empty kernel (grid 1 × block 1)
// launched back to back through Queue::launch and through clEnqueueNDRangeKernel or
// cuLaunchKernel on the same queue, the same kernel, the same device. Rounds alternate between
// the two paths; the median round is reported, in host microseconds per launch.
#include "empty_kernel.hpp"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

namespace {

using duet::bench::require;

/// Host microseconds per launch over `launches` launches, the queue drained at the end.
double per_launch_us(int launches, const std::function<void()>& launch, duet::Queue& queue)
{
    return duet::bench::host_us_per_item(
        launches,
        [&] {
            for (int i = 0; i < launches; ++i) {
                launch();
            }
        },
        queue);
}

/// The raw launch: the same kernel built with the native API on duet's own queue.
std::function<void()> raw_launch(const duet::Device& device, duet::Queue& queue)
{
    if (device.backend() == "opencl") {
        const cl_kernel kernel = duet::bench::opencl_empty_kernel(device);
        const auto cl_queue = static_cast<cl_command_queue>(queue.native());
        return [kernel, cl_queue] {
            static const std::size_t one = 1;
            const cl_int code = clEnqueueNDRangeKernel(cl_queue, kernel, 1, nullptr, &one, &one, 0, nullptr, nullptr);
            require(code == CL_SUCCESS, "clEnqueueNDRangeKernel", code);
        };
    }
#ifdef DUET_BENCH_CUDA
    if (device.backend() == "cuda") {
        const CUfunction function = duet::bench::cuda_empty_kernel(device);
        const auto stream = static_cast<CUstream>(queue.native());
        return [function, stream] {
            const CUresult code = cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr);
            require(code == CUDA_SUCCESS, "cuLaunchKernel", code);
        };
    }
#endif
    return {};
}

} // namespace

int main(int argc, char** argv)
{
    const int launches = argc > 1 ? std::atoi(argv[1]) : 100000;
    constexpr int rounds = 7;
    std::printf("launch overhead: empty kernel, grid 1 x block 1, %d launches back to back, median of %d rounds\n",
                launches, rounds);
    std::printf("%-10s %-34s %10s %10s %10s\n", "device", "name", "raw us", "duet us", "added us");
    for (const auto& device : duet::Registry::global().devices()) {
        auto queue = device.create_queue();
        const auto raw = raw_launch(device, queue);
        if (!raw) {
            continue;
        }
        const auto kernel = device.build(duet::kernels::empty()).kernel("empty");
        const std::function<void()> wrapped = [&] { queue.launch(kernel, duet::Range::grid_block(1, 1)); };
        // Warm-up: first launches pay for lazy module loading and queue set-up.
        per_launch_us(launches / 10, raw, queue);
        per_launch_us(launches / 10, wrapped, queue);
        // Alternate the paths so that clock and thermal drift hit both alike.
        std::vector<double> raw_rounds, duet_rounds;
        for (int round = 0; round < rounds; ++round) {
            raw_rounds.push_back(per_launch_us(launches, raw, queue));
            duet_rounds.push_back(per_launch_us(launches, wrapped, queue));
        }
        const double raw_us = duet::bench::median(raw_rounds);
        const double duet_us = duet::bench::median(duet_rounds);
        std::printf("%-10s %-34.34s %10.3f %10.3f %10.3f\n", device.selector().c_str(),
                    device.properties().name.c_str(), raw_us, duet_us, duet_us - raw_us);
    }
    return 0;
}
