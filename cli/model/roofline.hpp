// Where a run sits on its device's roofline: the arithmetic intensity of the work its workload
// declares (flops per byte of compulsory memory traffic), the rates it achieved, each over the
// device's peak (model/peak) and over the device-to-device copy measured in the same run, and
// which roof bounds a kernel of that intensity. The one place the table, the JSON and the HTML
// report take peaks and fractions from.
#pragma once

#include "model/peak.hpp"
#include "model/runs.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <duet/duet.hpp>
#include <duet/workload.hpp>

namespace duet::cli {

/// A device's two roofs: its peak memory bandwidth and its peak FMA rate in one precision.
struct DevicePeaks {
    std::optional<double> gbps;   ///< peak_bandwidth_gbps
    std::optional<double> gflops; ///< peak_gflops
    std::string flops_of;         ///< "FP32 FMA rate" or "FP64 FMA rate"
    /// Why a peak is unknown, a sentence each, naming the device and the figure it lacks.
    std::vector<std::string> unknown;

    /// The ridge point: the intensity (flop/byte) where the two roofs meet, gflops / gbps.
    std::optional<double> ridge() const;
};

/// `device`'s peaks (FP64's FMA rate where `fp64`), each from its own properties or else from its
/// CUDA twin's among `devices` (cuda_twin), with why each one missing is.
DevicePeaks device_peaks(const DeviceProperties& device, bool fp64,
                         std::span<const DeviceProperties* const> devices = {});

/// The roof a kernel's intensity puts it under: left of the ridge the bandwidth roof is lower.
enum class Bound { memory, compute };
const char* to_string(Bound bound);

struct Roofline {
    std::optional<double> bytes; ///< declared by the workload (Measurement::bytes)
    std::optional<double> flops;
    std::optional<double> intensity; ///< flops / bytes: where both are known and bytes > 0
    std::optional<double> gbps;      ///< bytes over the rate's time (Measurement::per_second)
    std::optional<double> gflops;
    DevicePeaks peaks;
    std::optional<double> of_peak_bandwidth; ///< gbps / peaks.gbps
    std::optional<double> of_peak_flops;     ///< gflops / peaks.gflops
    std::optional<double> d2d_copy_gbps;     ///< the run's own copy yardstick (extra "d2d_copy_gbps")
    std::optional<double> of_d2d_copy;       ///< gbps / d2d_copy_gbps
    std::optional<Bound> bound;              ///< intensity against peaks.ridge()

    /// The peak of the rate a workload reports in `unit`: bandwidth for bytes, the FMA rate for flops.
    std::optional<Peak> peak(Measurement::Unit unit) const;
    /// The rate in `unit` over that peak: the table's "of peak".
    std::optional<double> of_peak(Measurement::Unit unit) const;
};

/// `measurement`'s roofline against `peaks`: rates where it has a time to divide by, fractions
/// where the peak (or the yardstick) is known, the bound where intensity and ridge are.
Roofline roofline(const Measurement& measurement, DevicePeaks peaks);

/// A run's roofline against its device's peaks (or its CUDA twin's among `devices`), FP64's FMA
/// rate where its output is double; without rates where it was not measured.
Roofline roofline_of(const Run& run, std::span<const DeviceProperties* const> devices);

} // namespace duet::cli
