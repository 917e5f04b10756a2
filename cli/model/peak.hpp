// A device's peak rates, so that a measured rate reads as a fraction of what the device could do:
// memory bandwidth from its memory clock and bus width, the floating-point rate from its SMs, clock
// and compute capability. A device that reports neither (NVIDIA's OpenCL, PoCL) takes those of the
// CUDA view of the same GPU where a run had one.
#pragma once

#include "model/runs.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <duet/duet.hpp>
#include <duet/workload.hpp>

namespace duet::cli {

/// Two transfers per memory clock (DDR, HBM) across the whole bus, in GB/s (1e9 bytes/s); nullopt
/// where the memory clock or the bus width is unknown.
std::optional<double> peak_bandwidth_gbps(const DeviceProperties& device);

/// Every FMA lane of every SM completing a fused multiply-add each clock, in GFLOP/s: FP32, or FP64
/// where `fp64`. nullopt unless the device is a GPU whose compute capability the architecture table
/// holds and whose SM count and clock are known.
std::optional<double> peak_gflops(const DeviceProperties& device, bool fp64 = false);

/// The CUDA view among `devices` of the GPU that `device` shows (the same non-empty PCI bus id,
/// platform "CUDA"); nullptr where there is none.
const DeviceProperties* cuda_twin(const DeviceProperties& device, std::span<const DeviceProperties* const> devices);

/// Each run's device, for cuda_twin.
std::vector<const DeviceProperties*> device_properties_of(std::span<const Run> runs);

/// A peak rate in the unit a workload's rate is in (Roofline::peak).
struct Peak {
    double value = 0;
    Measurement::Unit unit = Measurement::Unit::bytes;
    /// What the peak is of: "memory bandwidth", "FP32 FMA rate", "FP64 FMA rate".
    std::string of;
};

} // namespace duet::cli
