// Per-launch overhead of duet against the raw API it wraps: an empty kernel (grid 1 × block 1)
// launched back to back through Queue::launch and through clEnqueueNDRangeKernel or
// cuLaunchKernel on the same queue, the same kernel, the same device. Rounds alternate between
// the two paths; the median round is reported, in host microseconds per launch.
#include <duet/duet.hpp>

#include <duet_kernels/empty.hpp>

#include "measure.hpp"

#include <CL/cl.h>
#ifdef DUET_BENCH_CUDA
#include <cuda.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

namespace {

using duet::bench::require;

/// Host microseconds per launch over `launches` launches, the queue drained at the end.
double per_launch_us(int launches, const std::function<void()>& launch, duet::Queue& queue)
{
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i) {
        launch();
    }
    queue.finish();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / launches;
}

std::string_view image(duet::ProgramFormat format)
{
    for (const auto& candidate : duet::kernels::empty().images) {
        if (candidate.format == format) {
            return candidate.data;
        }
    }
    std::fprintf(stderr, "this build did not embed the empty kernel as %s\n",
                 std::string(duet::to_string(format)).c_str());
    std::exit(1);
}

/// The raw launch: the same kernel built with the native API on duet's own queue.
std::function<void()> raw_launch(const duet::Device& device, duet::Queue& queue)
{
    const auto native = device.native();
    if (device.backend() == "opencl") {
        const auto context = static_cast<cl_context>(native.context);
        auto cl_device = static_cast<cl_device_id>(native.device);
        const auto cl_queue = static_cast<cl_command_queue>(queue.native());
        const auto source_text = image(duet::ProgramFormat::opencl_c);
        const char* source = source_text.data();
        const std::size_t length = source_text.size();
        cl_int status = CL_SUCCESS;
        cl_program program = clCreateProgramWithSource(context, 1, &source, &length, &status);
        require(status == CL_SUCCESS, "clCreateProgramWithSource", status);
        status = clBuildProgram(program, 1, &cl_device, "", nullptr, nullptr);
        require(status == CL_SUCCESS, "clBuildProgram", status);
        cl_kernel kernel = clCreateKernel(program, "empty", &status);
        require(status == CL_SUCCESS, "clCreateKernel", status);
        return [kernel, cl_queue] {
            static const std::size_t one = 1;
            const cl_int code = clEnqueueNDRangeKernel(cl_queue, kernel, 1, nullptr, &one, &one, 0, nullptr, nullptr);
            require(code == CL_SUCCESS, "clEnqueueNDRangeKernel", code);
        };
    }
#ifdef DUET_BENCH_CUDA
    if (device.backend() == "cuda") {
        require(cuCtxSetCurrent(static_cast<CUcontext>(native.context)) == CUDA_SUCCESS, "cuCtxSetCurrent", 0);
        CUmodule module = nullptr;
        CUfunction function = nullptr;
        const CUresult loaded = cuModuleLoadData(&module, image(duet::ProgramFormat::fatbin).data());
        require(loaded == CUDA_SUCCESS, "cuModuleLoadData", loaded);
        const CUresult found = cuModuleGetFunction(&function, module, "empty");
        require(found == CUDA_SUCCESS, "cuModuleGetFunction", found);
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
