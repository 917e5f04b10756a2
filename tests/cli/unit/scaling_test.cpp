// duet scale's derived figures: speedup and efficiency against each API's own one-rank run, and
// OpenCL over CUDA only for the OpenCL run on the CUDA run's GPUs (compare's pairs), never a CPU's.
#include "model/scaling.hpp"

#include <gtest/gtest.h>

namespace duet::cli {
namespace {

ScalePoint point(std::string api, std::string devices, int ranks, double ms, std::string cuda_twin = "")
{
    ScalePoint p;
    p.api = std::move(api);
    p.variant = "global";
    p.devices = std::move(devices);
    p.cuda_twin = std::move(cuda_twin);
    p.ranks = ranks;
    p.status = "ok";
    p.time_ms = ms;
    return p;
}

TEST(Scaling, OpenClOverCudaOnlyOnTheSameGpus)
{
    Scaling strong{.workload = "heat", .weak = "", .ranks = {1, 2}, .points = {}, .problems = {}};
    strong.points = {point("CUDA", "cuda:0", 1, 10), point("CUDA", "cuda:0+1", 2, 5),
                     point("OpenCL (NVIDIA)", "opencl:1", 1, 11, "cuda:0"),
                     point("OpenCL (NVIDIA)", "opencl:1+2", 2, 6, "cuda:0+1"),
                     point("OpenCL (PoCL)", "opencl:0", 1, 400)};
    derive_scaling(strong);
    EXPECT_DOUBLE_EQ(*strong.points[1].speedup, 2.0);
    EXPECT_DOUBLE_EQ(*strong.points[1].efficiency, 1.0);
    EXPECT_DOUBLE_EQ(*strong.points[2].opencl_over_cuda, 1.1);
    EXPECT_DOUBLE_EQ(*strong.points[3].opencl_over_cuda, 1.2);
    EXPECT_DOUBLE_EQ(*strong.points[3].speedup, 11.0 / 6.0);
    EXPECT_FALSE(strong.points[4].opencl_over_cuda) << "PoCL's CPU is no twin of the CUDA GPU";
    EXPECT_FALSE(strong.points[0].opencl_over_cuda);
}

} // namespace
} // namespace duet::cli
