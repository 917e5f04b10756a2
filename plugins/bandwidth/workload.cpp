// bandwidth as a workload: each timed pass moves `bytes` bytes once, host→device, device→host, or
// both at once on two queues, from and to host memory of the variant's kind (mapped memory moved
// by a kernel reading or writing it in place), or device to device. Each transfer is timed by
// events on its own queue (Transfers), after the raw API's copy on the same queue and buffers
// where that is measured. Each destination is an output: poisoned, with sentinels past its end,
// and what the last pass delivered checked byte for byte against what was sent.
#include "bandwidth.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <memory>

namespace duet::bandwidth {
namespace {

using namespace duet::workload;

std::size_t byte_count(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("bytes"));
}

/// An array of the bytes moved, in host memory of `kind`. Outputs lie a leg a row, so that a
/// disagreement names the leg (h2d first) and the byte.
BufferSpec bytes_array(BufferSpec array, const std::string& kind = "pageable")
{
    array.host_memory = [memory = host_memory_kind(kind)](const Settings&) { return memory; };
    array.shape = [](const Settings& settings) { return Shape{byte_count(settings)}; };
    return array;
}

/// The arrays of a run's variant and direction: the h2d leg's source in host memory of the
/// variant's kind ("sent") and its destination on the device ("arrived"); the source that stays on
/// the device ("source") of the d2h leg, whose destination is host memory of the variant's kind
/// ("received"), and of the device variant's copy ("copied"). Inputs are drawn in this order: a
/// direction sends the same bytes in every variant. An unknown variant has no host memory (its
/// prepare step refuses it).
std::vector<BufferSpec> arrays(const Settings& settings, const std::string& variant)
{
    constexpr auto u8 = ElementType::u8;
    const bool host_kind = std::ranges::find(host_memory_variants(), variant) != host_memory_variants().end();
    std::vector<BufferSpec> run;
    if (has_h2d(settings, variant)) {
        if (host_kind) {
            run.push_back(bytes_array(input("sent", byte_count, u8), variant));
        }
        run.push_back(bytes_array(output("arrived", byte_count, u8)));
    }
    if (variant == "device" || has_d2h(settings, variant)) {
        run.push_back(bytes_array(input("source", byte_count, u8)));
        run.back().resident = true;
    }
    if (host_kind && has_d2h(settings, variant)) {
        run.push_back(bytes_array(output("received", byte_count, u8), variant));
    }
    if (variant == "device") {
        run.push_back(bytes_array(output("copied", byte_count, u8)));
    }
    return run;
}

double gbps(std::size_t bytes, double ms)
{
    return bytes / (ms * 1e-3) / 1e9;
}

/// The work done, the error as the largest byte difference, and the figures beside the rate.
void finish(Finish& f, const Transfers& transfers)
{
    Measurement& result = f.result;
    const std::size_t bytes = byte_count(f.settings);
    // Each leg moves the bytes once; a device-to-device copy reads every byte and writes it again,
    // as CUDA's bandwidthTest counts it.
    result.bytes = *result.bytes * static_cast<double>(transfers.legs()) * (f.variant == "device" ? 2 : 1);
    if (f.expected != nullptr) {
        f.set_error(max_difference(result.output.as<std::uint8_t>(), f.expected->as<std::uint8_t>()));
    }
    if (transfers.raw()) {
        const double raw_gbps = gbps(bytes, result.summary(raw_phase).median);
        result.extras.emplace_back("raw_gbps", raw_gbps);
        result.extras.emplace_back("duet_over_raw", result.rate() / raw_gbps);
    }
    // Each direction's own rate where copies move the bytes; kernels on two queues have one kernel
    // phase, their span.
    if (transfers.legs() == 2 && transfers.by_copies()) {
        const double h2d = gbps(bytes, result.h2d_ms);
        const double d2h = gbps(bytes, result.d2h_ms);
        result.extras.emplace_back("h2d_gbps", h2d);
        result.extras.emplace_back("d2h_gbps", d2h);
        result.extras.emplace_back("sum_gbps", h2d + d2h);
    }
    const double peak = f.queue.device().properties().theoretical_bandwidth_gbps();
    if (f.variant == "device" && peak > 0) {
        result.extras.emplace_back("device_peak_gbps", peak);
    }
}

Spec spec()
{
    std::vector<std::map<std::string, std::string>> cases;
    for (const char* bytes : {"1", "4097", "1048576"}) {
        for (const char* direction : {"h2d", "d2h", "both"}) {
            cases.push_back({{"bytes", bytes}, {"direction", direction}});
        }
    }
    Spec spec;
    spec.info = {
        .name = "bandwidth",
        .description = "host<->device copy throughput per host memory kind (mapped: a kernel streaming host memory), "
                       "one direction or both at once on two queues, against the raw API on the same queue and "
                       "buffers; device: a device-to-device copy, the device's own ceiling",
        .variants = variants(),
        .parameters = {integer_parameter("bytes", 64 << 20, 1, std::int64_t{1} << 36, "bytes per transfer"),
                       choice_parameter("direction", {"h2d", "d2h", "both"},
                                        "host to device, device to host, or both at once on two queues (the device "
                                        "variant copies device to device whatever this says)")},
        .test_cases = cases,
        .rules = {},
    };
    spec.buffers_for = arrays;
    spec.prepare = [](const Device& device, const Settings& settings, const std::string& variant) {
        if (std::ranges::find(variants(), variant) == variants().end()) {
            throw NotFound(device.backend(), "bandwidth::run", "bandwidth has no variant '" + variant + "'");
        }
        const auto transfers = std::make_shared<Transfers>(device, settings, variant);
        Prepared prepared;
        prepared.schedule = [transfers](Pass& pass) { return transfers->run(pass); };
        prepared.reference = [transfers](const HostArrays& arrays) { transfers->reference(arrays); };
        prepared.finish = [transfers](Finish& f) { finish(f, *transfers); };
        return prepared;
    };
    spec.bytes = [](const Settings& settings) { return static_cast<double>(byte_count(settings)); };
    spec.flops = [](const Settings&) { return 0.0; }; // copies: no arithmetic
    spec.unit = Measurement::Unit::bytes;
    spec.tolerance = [](const Settings&) { return Tolerance{0, "a copy delivers every byte exactly as sent"}; };
    return spec;
}

} // namespace
} // namespace duet::bandwidth

DUET_EXPORT_WORKLOAD_SPEC(duet::bandwidth::spec)
