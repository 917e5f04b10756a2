// Peak rates from a device's properties against NVIDIA's H100 SXM datasheet, figures the device does
// not report leaving the peak unknown, and the CUDA twin that lends its peaks to the same GPU's
// OpenCL view.
#include "model/peak.hpp"

#include <gtest/gtest.h>

namespace duet::cli {
namespace {

/// An H100 SXM5 through NVIDIA's OpenCL, which reports neither memory figure nor the clock.
DeviceProperties h100_through_opencl()
{
    DeviceProperties device;
    device.name = "NVIDIA H100 80GB HBM3";
    device.platform = "NVIDIA CUDA";
    device.type = DeviceType::gpu;
    device.compute_units = 132;
    device.pci_bus_id = "0000:1b:00.0";
    return device;
}

/// The same GPU as CUDA reports it: 132 SMs at 1980 MHz, compute capability 9.0, HBM3 at 2619 MHz
/// over 5120 bits.
DeviceProperties h100_through_cuda()
{
    DeviceProperties device = h100_through_opencl();
    device.platform = "CUDA";
    device.clock_mhz = 1980;
    device.compute_capability_major = 9;
    device.compute_capability_minor = 0;
    device.memory_clock_mhz = 2619;
    device.memory_bus_width_bits = 5120;
    return device;
}

TEST(Peak, H100BandwidthFromMemoryClockAndBus)
{
    // 2 × 2619 MHz × 5120 bits / 8 = 3352.3 GB/s; the datasheet rounds to 3.35 TB/s.
    const auto bandwidth = peak_bandwidth_gbps(h100_through_cuda());
    ASSERT_TRUE(bandwidth);
    EXPECT_NEAR(*bandwidth, 3352.32, 0.01);
}

TEST(Peak, H100Fp32AndFp64FmaRates)
{
    // 132 SMs × 128 FP32 lanes × 2 flops × 1980 MHz = 66.9 TFLOP/s, the datasheet's 67; FP64 half that.
    const auto fp32 = peak_gflops(h100_through_cuda());
    const auto fp64 = peak_gflops(h100_through_cuda(), true);
    ASSERT_TRUE(fp32);
    ASSERT_TRUE(fp64);
    EXPECT_NEAR(*fp32, 66908.16, 0.01);
    EXPECT_NEAR(*fp64, 33454.08, 0.01);
}

TEST(Peak, UnknownFiguresLeaveThePeakUnknown)
{
    EXPECT_FALSE(peak_bandwidth_gbps(h100_through_opencl()));
    EXPECT_FALSE(peak_gflops(h100_through_opencl())); // no clock, no compute capability

    DeviceProperties no_bus = h100_through_cuda();
    no_bus.memory_bus_width_bits = 0;
    EXPECT_FALSE(peak_bandwidth_gbps(no_bus));

    DeviceProperties unknown_generation = h100_through_cuda();
    unknown_generation.compute_capability_major = 6;
    EXPECT_FALSE(peak_gflops(unknown_generation));

    DeviceProperties cpu = h100_through_cuda();
    cpu.type = DeviceType::cpu;
    EXPECT_FALSE(peak_gflops(cpu));

    EXPECT_FALSE(peak_bandwidth_gbps(DeviceProperties{}));
    EXPECT_FALSE(peak_gflops(DeviceProperties{}));
}

TEST(Peak, OpenClViewFindsItsCudaTwinByPciBusId)
{
    const DeviceProperties cuda = h100_through_cuda();
    const DeviceProperties opencl = h100_through_opencl();
    DeviceProperties other_gpu = h100_through_cuda();
    other_gpu.pci_bus_id = "0000:2a:00.0";
    DeviceProperties pocl;
    pocl.platform = "Portable Computing Language";
    pocl.type = DeviceType::cpu;

    const std::vector<const DeviceProperties*> devices{&pocl, &other_gpu, &opencl, &cuda};
    EXPECT_EQ(cuda_twin(opencl, devices), &cuda);
    EXPECT_EQ(cuda_twin(cuda, devices), &cuda);
    // No bus id, or no CUDA view of that bus: no twin.
    EXPECT_EQ(cuda_twin(pocl, devices), nullptr);
    const std::vector<const DeviceProperties*> without_cuda{&pocl, &other_gpu, &opencl};
    EXPECT_EQ(cuda_twin(opencl, without_cuda), nullptr);
}

} // namespace
} // namespace duet::cli
