// A run's arithmetic intensity, its rates over its device's two roofs and its own copy, and the
// roof that bounds it.
#include "model/roofline.hpp"

#include "model/architecture.hpp"

namespace duet::cli {

namespace {

/// Why peak_bandwidth_gbps knows no peak for `device`.
std::string bandwidth_unknown(const DeviceProperties& device)
{
    return device.name + " reports no memory clock or bus width, so its peak bandwidth is unknown";
}

/// Why peak_gflops knows no peak for `device`: the first figure it lacks.
std::string fma_rate_unknown(const DeviceProperties& device)
{
    if (device.type != DeviceType::gpu) {
        return device.name + " is not a GPU: the FMA rate is modelled for GPUs' SMs only";
    }
    if (device.compute_units == 0 || device.clock_mhz == 0) {
        return device.name + " reports no SM count or clock, so its FMA rate is unknown";
    }
    return device.name + "'s compute capability " + capability_text(device) +
           " is not in the architecture table, so its FMA rate is unknown";
}

std::optional<double> over(std::optional<double> value, std::optional<double> base)
{
    if (!value || !base || *base <= 0) {
        return std::nullopt;
    }
    return *value / *base;
}

} // namespace

std::optional<double> DevicePeaks::ridge() const
{
    return over(gflops, gbps);
}

DevicePeaks device_peaks(const DeviceProperties& device, bool fp64, std::span<const DeviceProperties* const> devices)
{
    // NVIDIA's OpenCL reports neither memory figure nor the clock: the same GPU's CUDA view lends them.
    const DeviceProperties* twin = cuda_twin(device, devices);
    const DeviceProperties& source = twin != nullptr ? *twin : device;
    DevicePeaks peaks;
    peaks.flops_of = fp64 ? "FP64 FMA rate" : "FP32 FMA rate";
    peaks.gbps = peak_bandwidth_gbps(device);
    if (!peaks.gbps) {
        peaks.gbps = peak_bandwidth_gbps(source);
    }
    if (!peaks.gbps) {
        peaks.unknown.push_back(bandwidth_unknown(source));
    }
    peaks.gflops = peak_gflops(device, fp64);
    if (!peaks.gflops) {
        peaks.gflops = peak_gflops(source, fp64);
    }
    if (!peaks.gflops) {
        peaks.unknown.push_back(fma_rate_unknown(source));
    }
    return peaks;
}

const char* to_string(Bound bound)
{
    return bound == Bound::memory ? "memory" : "compute";
}

std::optional<Peak> Roofline::peak(Measurement::Unit unit) const
{
    const std::optional<double> value = unit == Measurement::Unit::bytes ? peaks.gbps : peaks.gflops;
    if (!value) {
        return std::nullopt;
    }
    return Peak{*value, unit, unit == Measurement::Unit::bytes ? "memory bandwidth" : peaks.flops_of};
}

std::optional<double> Roofline::of_peak(Measurement::Unit unit) const
{
    return unit == Measurement::Unit::bytes ? of_peak_bandwidth : of_peak_flops;
}

Roofline roofline(const Measurement& measurement, DevicePeaks peaks)
{
    Roofline line;
    line.bytes = measurement.bytes;
    line.flops = measurement.flops;
    line.peaks = std::move(peaks);
    line.intensity = over(line.flops, line.bytes);
    const bool timed = measurement.rate_ms > 0 || measurement.kernel_ms > 0;
    if (timed && line.bytes) {
        line.gbps = measurement.per_second(*line.bytes);
    }
    if (timed && line.flops) {
        line.gflops = measurement.per_second(*line.flops);
    }
    line.of_peak_bandwidth = over(line.gbps, line.peaks.gbps);
    line.of_peak_flops = over(line.gflops, line.peaks.gflops);
    line.d2d_copy_gbps = extra(measurement, "d2d_copy_gbps");
    line.of_d2d_copy = over(line.gbps, line.d2d_copy_gbps);
    if (const auto ridge = line.peaks.ridge(); ridge && line.intensity) {
        line.bound = *line.intensity < *ridge ? Bound::memory : Bound::compute;
    }
    return line;
}

Roofline roofline_of(const Run& run, std::span<const DeviceProperties* const> devices)
{
    const Measurement& m = run.measurement;
    DevicePeaks peaks =
        device_peaks(run.job.device.properties(), m.output.type() == workload::ElementType::f64, devices);
    if (!run.measured()) {
        // Not measured: no rates, and no work declared by a run that did not finish.
        Roofline line;
        line.peaks = std::move(peaks);
        return line;
    }
    return roofline(m, std::move(peaks));
}

} // namespace duet::cli
