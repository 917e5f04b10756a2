// Per-kernel cost of a replayed sequence against the raw API's own: a chain of empty kernels
// (grid 1 × block 1) on one queue, timed on the host from the first call to the queue drained,
// divided by the chain's length. Four paths: duet launching them one by one, duet replaying them
// as a sequence the backend's own way (Recording::native), duet's plain replay (the core issuing
// them again), and the raw API: on CUDA a graph captured from cuLaunchKernel and launched with
// cuGraphLaunch, on OpenCL a cl_khr_command_buffer command buffer of clCommandNDRangeKernelKHR
// launches enqueued with clEnqueueCommandBufferKHR where duet's sequence is a command buffer, else
// clEnqueueNDRangeKernel one by one (the "raw is" column says which). Rounds alternate between the
// paths; the median round is reported with half its interquartile range, in host microseconds per
// kernel. Then the device's replay choice: which of its own way and the plain one
// Recording::fastest, the default, takes, and the two figures it was chosen by.
#include "empty_kernel.hpp"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

using duet::bench::require;

// cl_khr_command_buffer's entry points, declared here as duet's OpenCL backend declares them (newer
// headers hide the provisional extension behind CL_ENABLE_BETA_EXTENSIONS). These four take the
// same parameters in every version from 0.9.0 to 1.0 (clCommandNDRangeKernelKHR has always taken a
// properties list; 0.9.5 gave one to the copies and fills), so the device's version is not needed.
using CommandBuffer = struct CommandBufferObject*;
using CreateCommandBuffer = CommandBuffer(CL_API_CALL*)(cl_uint, const cl_command_queue*, const cl_ulong*, cl_int*);
using CommandNDRangeKernel = cl_int(CL_API_CALL*)(CommandBuffer, cl_command_queue, const cl_ulong*, cl_kernel, cl_uint,
                                                  const std::size_t*, const std::size_t*, const std::size_t*, cl_uint,
                                                  const cl_uint*, cl_uint*, void**);
using FinalizeCommandBuffer = cl_int(CL_API_CALL*)(CommandBuffer);
using EnqueueCommandBuffer = cl_int(CL_API_CALL*)(cl_uint, cl_command_queue*, CommandBuffer, cl_uint, const cl_event*,
                                                  cl_event*);

template <class Function> Function entry_point(cl_platform_id platform, const char* name)
{
    const auto function = reinterpret_cast<Function>(clGetExtensionFunctionAddressForPlatform(platform, name));
    require(function != nullptr, name, 0);
    return function;
}

/// The chain recorded into a command buffer for `queue`, each launch waiting on the one before as
/// duet records an in-order queue's, and finalised; the replay enqueues it. Every round drains the
/// queue, so no replay is enqueued while the last is pending: the buffer needs no simultaneous use.
std::function<void()> opencl_command_buffer(cl_device_id device, cl_command_queue queue, cl_kernel kernel, int kernels)
{
    cl_platform_id platform = nullptr;
    cl_int code = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
    require(code == CL_SUCCESS, "clGetDeviceInfo", code);
    const auto create = entry_point<CreateCommandBuffer>(platform, "clCreateCommandBufferKHR");
    const auto launch = entry_point<CommandNDRangeKernel>(platform, "clCommandNDRangeKernelKHR");
    const auto finalize = entry_point<FinalizeCommandBuffer>(platform, "clFinalizeCommandBufferKHR");
    const auto enqueue = entry_point<EnqueueCommandBuffer>(platform, "clEnqueueCommandBufferKHR");
    const CommandBuffer buffer = create(1, &queue, nullptr, &code);
    require(code == CL_SUCCESS, "clCreateCommandBufferKHR", code);
    static const std::size_t one = 1;
    cl_uint last = 0;
    for (int i = 0; i < kernels; ++i) {
        cl_uint sync_point = 0;
        code = launch(buffer, nullptr, nullptr, kernel, 1, nullptr, &one, &one, i > 0 ? 1 : 0, i > 0 ? &last : nullptr,
                      &sync_point, nullptr);
        require(code == CL_SUCCESS, "clCommandNDRangeKernelKHR", code);
        last = sync_point;
    }
    code = finalize(buffer);
    require(code == CL_SUCCESS, "clFinalizeCommandBufferKHR", code);
    return [enqueue, buffer] {
        const cl_int replayed = enqueue(0, nullptr, buffer, 0, nullptr, nullptr);
        require(replayed == CL_SUCCESS, "clEnqueueCommandBufferKHR", replayed);
    };
}

struct RawChain {
    const char* what = "";
    std::function<void()> run;
};

/// The raw API's chain of `kernels` launches on duet's own queue, the kernel built natively: on
/// OpenCL a command buffer where duet's sequence is one (the device lists the extension and takes
/// the queue), so that the two compare like for like.
RawChain raw_chain(const duet::Device& device, duet::Queue& queue, int kernels, duet::ReplayMethod method)
{
    if (device.backend() == "opencl") {
        const cl_kernel kernel = duet::bench::opencl_empty_kernel(device);
        const auto cl_queue = static_cast<cl_command_queue>(queue.native());
        const auto cl_device = static_cast<cl_device_id>(device.native().device);
        if (method == duet::ReplayMethod::command_buffer) {
            return {"OpenCL command buffer", opencl_command_buffer(cl_device, cl_queue, kernel, kernels)};
        }
        return {"clEnqueueNDRangeKernel", [kernel, cl_queue, kernels] {
                    static const std::size_t one = 1;
                    for (int i = 0; i < kernels; ++i) {
                        const cl_int code =
                            clEnqueueNDRangeKernel(cl_queue, kernel, 1, nullptr, &one, &one, 0, nullptr, nullptr);
                        require(code == CL_SUCCESS, "clEnqueueNDRangeKernel", code);
                    }
                }};
    }
#ifdef DUET_BENCH_CUDA
    if (device.backend() == "cuda") {
        const CUfunction function = duet::bench::cuda_empty_kernel(device);
        const auto stream = static_cast<CUstream>(queue.native());
        CUresult code = cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
        require(code == CUDA_SUCCESS, "cuStreamBeginCapture", code);
        for (int i = 0; i < kernels; ++i) {
            code = cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr);
            require(code == CUDA_SUCCESS, "cuLaunchKernel", code);
        }
        CUgraph graph = nullptr;
        code = cuStreamEndCapture(stream, &graph);
        require(code == CUDA_SUCCESS, "cuStreamEndCapture", code);
        CUgraphExec exec = nullptr;
        code = cuGraphInstantiateWithFlags(&exec, graph, 0);
        require(code == CUDA_SUCCESS, "cuGraphInstantiateWithFlags", code);
        return {"CUDA graph", [exec, stream] {
                    const CUresult launched = cuGraphLaunch(exec, stream);
                    require(launched == CUDA_SUCCESS, "cuGraphLaunch", launched);
                }};
    }
#endif
    return {};
}

std::string figure(const std::vector<double>& rounds)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ±%.3f", duet::bench::median(rounds), duet::bench::half_iqr(rounds));
    return text;
}

} // namespace

int main(int argc, char** argv)
{
    const int kernels = argc > 1 ? std::atoi(argv[1]) : 1000;
    if (kernels <= 0) {
        std::fprintf(stderr, "usage: %s [kernels in the chain, at least 1; 1000 by default]\n", argv[0]);
        return 2;
    }
    constexpr int rounds = 21;
    std::printf("replay overhead: a chain of %d empty kernels, grid 1 x block 1, host us per kernel, median of %d "
                "rounds ± half the IQR\n",
                kernels, rounds);
    std::printf("%-10s %-30s %-15s %-16s %-16s %-16s %-16s %-22s %s\n", "device", "name", "replay", "one by one",
                "duet replay", "plain replay", "raw", "raw is", "replay/raw");
    for (const auto& device : duet::Registry::global().devices()) {
        auto queue = device.create_queue();
        const auto kernel = device.build(duet::kernels::empty()).kernel("empty");
        const auto issue = [&](duet::Queue& target) {
            for (int i = 0; i < kernels; ++i) {
                target.launch(kernel, duet::Range::grid_block(1, 1));
            }
        };
        const duet::Sequence sequence = queue.record_sequence(issue, duet::Recording::native);
        const duet::Sequence plain = queue.record_sequence(issue, duet::Recording::plain);
        const RawChain raw = raw_chain(device, queue, kernels, sequence.method());
        if (!raw.run) {
            continue;
        }
        const std::vector<std::function<void()>> paths = {
            [&] { issue(queue); },
            [&] { queue.replay(sequence); },
            [&] { queue.replay(plain); },
            raw.run,
        };
        // Warm-up: first launches pay for lazy module loading, graph upload and queue set-up.
        for (const auto& path : paths) {
            duet::bench::host_us_per_item(kernels, path, queue);
        }
        // Alternate the paths so that clock and thermal drift hit all alike.
        std::vector<std::vector<double>> timed(paths.size());
        for (int round = 0; round < rounds; ++round) {
            for (std::size_t path = 0; path < paths.size(); ++path) {
                timed[path].push_back(duet::bench::host_us_per_item(kernels, paths[path], queue));
            }
        }
        std::printf("%-10s %-30.30s %-15s %-16s %-16s %-16s %-16s %-22s %.2f\n", device.selector().c_str(),
                    device.properties().name.c_str(), std::string(duet::to_string(sequence.method())).c_str(),
                    figure(timed[0]).c_str(), figure(timed[1]).c_str(), figure(timed[2]).c_str(),
                    figure(timed[3]).c_str(), raw.what, duet::bench::median(timed[1]) / duet::bench::median(timed[3]));
        if (!sequence.reason().empty()) {
            std::printf("%-10s plain because: %s\n", device.selector().c_str(), sequence.reason().c_str());
        }
        // What Recording::fastest, the default, takes on this device, and the two figures it went by.
        if (const auto choice = duet::replay_choice(device)) {
            std::printf("%-10s replay choice: %s\n", device.selector().c_str(), choice->text().c_str());
        }
    }
    return 0;
}
