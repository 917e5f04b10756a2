// Per-launch overhead of duet against the raw API it wraps: an empty kernel launched back to
// back, grid 1 × block 1, through duet's Queue::launch and through clEnqueueNDRangeKernel on the
// same queue. Rounds alternate between the two and the median round is reported.
#include <duet/duet.hpp>

#include <duet_kernels/empty.hpp>

#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

void check(cl_int status, const char* call)
{
    if (status != CL_SUCCESS) {
        std::fprintf(stderr, "%s failed: %d\n", call, status);
        std::exit(1);
    }
}

/// Microseconds per launch over `launches` launches, waiting for the queue at the end.
template <class Launch, class Finish>
double per_launch_us(int launches, Launch&& launch, Finish&& finish)
{
    const auto start = clock_type::now();
    for (int i = 0; i < launches; ++i) {
        launch();
    }
    finish();
    return std::chrono::duration<double, std::micro>(clock_type::now() - start).count() / launches;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

struct Figures {
    double raw_us;
    double duet_us;
};

Figures measure_opencl(const duet::Device& device, int launches, int rounds)
{
    auto queue = device.create_queue();
    const auto kernel = device.build(duet::kernels::empty()).kernel("empty");

    // The raw path: the same source, built and launched with plain OpenCL calls on duet's queue.
    const auto native = device.native();
    const auto context = static_cast<cl_context>(native.context);
    auto cl_device = static_cast<cl_device_id>(native.device);
    const auto cl_queue = static_cast<cl_command_queue>(queue.native());
    const auto& image = duet::kernels::empty().images.front();
    const char* source = image.data.data();
    const std::size_t length = image.data.size();
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context, 1, &source, &length, &status);
    check(status, "clCreateProgramWithSource");
    check(clBuildProgram(program, 1, &cl_device, "", nullptr, nullptr), "clBuildProgram");
    cl_kernel raw_kernel = clCreateKernel(program, "empty", &status);
    check(status, "clCreateKernel");

    const std::size_t one = 1;
    const auto raw = [&] {
        check(clEnqueueNDRangeKernel(cl_queue, raw_kernel, 1, nullptr, &one, &one, 0, nullptr, nullptr),
              "clEnqueueNDRangeKernel");
    };
    const auto wrapped = [&] { queue.launch(kernel, duet::Range::grid_block(1, 1)); };
    const auto finish = [&] { queue.finish(); };

    per_launch_us(launches / 10, raw, finish); // warm-up: first launches pay for lazy set-up
    per_launch_us(launches / 10, wrapped, finish);
    std::vector<double> raw_rounds, duet_rounds;
    for (int round = 0; round < rounds; ++round) {
        raw_rounds.push_back(per_launch_us(launches, raw, finish));
        duet_rounds.push_back(per_launch_us(launches, wrapped, finish));
    }
    clReleaseKernel(raw_kernel);
    clReleaseProgram(program);
    return {median(raw_rounds), median(duet_rounds)};
}

} // namespace

int main(int argc, char** argv)
{
    const int launches = argc > 1 ? std::atoi(argv[1]) : 100000;
    const int rounds = 7;
    const auto& registry = duet::Registry::global();
    std::printf("launch overhead: empty kernel, grid 1 x block 1, %d launches back to back, median of %d rounds\n",
                launches, rounds);
    std::printf("%-10s %-40s %12s %12s %12s\n", "device", "name", "raw us", "duet us", "added us");
    for (const auto& device : registry.devices()) {
        if (device.backend() != "opencl") {
            continue;
        }
        const auto figures = measure_opencl(device, launches, rounds);
        std::printf("%-10s %-40.40s %12.3f %12.3f %12.3f\n", device.selector().c_str(),
                    device.properties().name.c_str(), figures.raw_us, figures.duet_us,
                    figures.duet_us - figures.raw_us);
    }
    return 0;
}
