// bandwidth as a workload plugin: each timed pass moves `bytes` bytes once, host→device,
// device→host, or both at once on two queues, from and to host memory of the variant's kind
// (mapped memory moved by a kernel reading or writing it in place), or device to device; the kit
// repeats the pass (workload::repeat) until its median settles. Each transfer is timed by events on
// its own queue, and single copies by the raw API on the same queue and buffers in the same pass.
// Destinations are poisoned before each pass, with sentinel bytes past their end; what the last
// pass delivered is compared byte for byte with what was sent.
#include "bandwidth.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <memory>

namespace duet::bandwidth {
namespace {

/// Host memory of one kind. "registered" is pageable memory page-locked afterwards: the
/// registration, declared last, is released before the memory under it.
struct HostSide {
    HostBuffer memory;
    HostBuffer registration;

    HostSide(const Device& device, HostMemoryKind kind, std::size_t bytes)
        : memory(device.alloc_host(bytes, kind == HostMemoryKind::registered ? HostMemoryKind::pageable : kind))
    {
        if (kind == HostMemoryKind::registered) {
            registration = device.register_host(memory.data(), bytes);
        }
    }
    std::span<std::uint8_t> bytes() const { return memory.as<std::uint8_t>(); }
    /// What kernels address for mapped memory.
    RawBuffer device_view() const { return memory.device_buffer(); }
};

/// Bytes past the end of every destination: zero, the poison no byte sent ever is, and still zero
/// after the last pass unless something wrote past the transfer.
constexpr std::size_t sentinel_bytes = workload::sentinel_elements;

/// One transfer on its own queue: the phase it is timed as, how duet enqueues it, how the raw API
/// does (empty where not measured), how its destination is poisoned, and what arrived there,
/// sentinel bytes included. The functions hold copies of the queue handle, which all name the one
/// queue.
struct Leg {
    Phase phase;
    Queue queue;
    std::function<void()> copy;
    std::function<void()> raw_copy;
    std::function<void()> poison;
    std::function<std::vector<std::uint8_t>()> received;
};

std::vector<std::uint8_t> read_back(Queue& queue, const RawBuffer& buffer)
{
    std::vector<std::uint8_t> bytes(buffer.bytes());
    queue.read_bytes(bytes.data(), buffer, 0, bytes.size());
    queue.finish();
    return bytes;
}

void zero_fill(Queue& queue, const RawBuffer& buffer)
{
    const std::uint8_t zero = 0;
    queue.fill_bytes(buffer, 0, buffer.bytes(), &zero, 1);
}

// A device buffer holding `sent`, the source of a transfer out of the device.
RawBuffer device_source(const Device& device, Queue& queue, const std::vector<std::uint8_t>& sent)
{
    RawBuffer buffer = device.alloc_bytes(sent.size());
    queue.write_bytes(buffer, 0, sent.data(), sent.size());
    queue.finish();
    return buffer;
}

Leg host_to_device(const Device& device, const std::string& variant, const std::vector<std::uint8_t>& sent,
                   const std::shared_ptr<const StreamCopy>& kernel)
{
    const std::size_t bytes = sent.size();
    Queue queue = device.create_queue();
    Leg leg{Phase::h2d, queue, {}, {}, {}, {}};
    auto host = std::make_shared<HostSide>(device, workload::host_memory_kind(variant), bytes);
    std::ranges::copy(sent, host->bytes().begin());
    const RawBuffer dst = device.alloc_bytes(bytes + sentinel_bytes);
    if (variant == "mapped") {
        leg.copy = [=]() mutable { kernel->run(queue, host->device_view(), dst, bytes); };
    } else {
        leg.copy = [=]() mutable { queue.write_bytes(dst, 0, host->bytes().data(), bytes); };
        leg.raw_copy = raw_write(device, queue, dst, host->bytes().data(), bytes);
    }
    leg.poison = [=]() mutable { zero_fill(queue, dst); };
    leg.received = [=]() mutable { return read_back(queue, dst); };
    return leg;
}

Leg device_to_host(const Device& device, const std::string& variant, const std::vector<std::uint8_t>& sent,
                   const std::shared_ptr<const StreamCopy>& kernel)
{
    const std::size_t bytes = sent.size();
    Queue queue = device.create_queue();
    Leg leg{Phase::d2h, queue, {}, {}, {}, {}};
    auto host = std::make_shared<HostSide>(device, workload::host_memory_kind(variant), bytes + sentinel_bytes);
    const RawBuffer src = device_source(device, queue, sent);
    if (variant == "mapped") {
        leg.copy = [=]() mutable { kernel->run(queue, src, host->device_view(), bytes); };
    } else {
        leg.copy = [=]() mutable { queue.read_bytes(host->bytes().data(), src, 0, bytes); };
        leg.raw_copy = raw_read(device, queue, host->bytes().data(), src, bytes);
    }
    leg.poison = [=] { std::ranges::fill(host->bytes(), std::uint8_t{0}); };
    leg.received = [=] { return std::vector<std::uint8_t>(host->bytes().begin(), host->bytes().end()); };
    return leg;
}

Leg device_to_device(const Device& device, const std::vector<std::uint8_t>& sent)
{
    const std::size_t bytes = sent.size();
    Queue queue = device.create_queue();
    Leg leg{Phase::kernel, queue, {}, {}, {}, {}};
    const RawBuffer src = device_source(device, queue, sent);
    const RawBuffer dst = device.alloc_bytes(bytes + sentinel_bytes);
    leg.copy = [=]() mutable { queue.copy_bytes(dst, 0, src, 0, bytes); };
    leg.poison = [=]() mutable { zero_fill(queue, dst); };
    leg.received = [=]() mutable { return read_back(queue, dst); };
    return leg;
}

/// One round's device times: each leg from its own start, and all of them from the earliest start
/// to the latest end.
struct Round {
    std::vector<double> leg_ms;
    double wall_ms = 0;
};

// "both" enqueues its two directions on their own queues back to back, so they run at once; the
// time runs from the earlier start to the later end.
Round run_round(std::vector<Leg>& legs, std::function<void()> Leg::*copy)
{
    std::vector<Event> starts;
    for (auto& leg : legs) {
        starts.push_back(leg.queue.record());
    }
    std::vector<Event> ends;
    for (auto& leg : legs) {
        (leg.*copy)();
        ends.push_back(leg.queue.record());
    }
    Round round;
    for (std::size_t l = 0; l < legs.size(); ++l) {
        legs[l].queue.finish();
        round.leg_ms.push_back(elapsed_ms(starts[l], ends[l]));
    }
    round.wall_ms = workload::span_ms(starts, ends);
    return round;
}

/// The extra phase holding the raw API's copy of a pass.
const std::string raw_phase = "raw_api_copy";

// One timed pass. The raw API's copy comes first, where it is measured, so that it and duet's see
// the same state of the machine pass after pass; then the destinations are poisoned (untimed) and
// duet's copy delivers the bytes the check reads. A kernel moves the bytes of mapped memory and a
// device-side copy those of `device`: that is their kernel phase. Host-device copies are their own
// phases, and the rate is over them.
Sample run_pass(std::vector<Leg>& legs, bool raw, bool moved_by_kernel)
{
    Sample sample;
    if (raw) {
        sample.extra_phases.emplace_back(raw_phase, run_round(legs, &Leg::raw_copy).wall_ms);
    }
    for (auto& leg : legs) {
        leg.poison();
    }
    for (auto& leg : legs) {
        leg.queue.finish();
    }
    const Round round = run_round(legs, &Leg::copy);
    sample.total_ms = round.wall_ms;
    if (moved_by_kernel) {
        sample.kernel_ms = round.wall_ms;
    } else {
        sample.rate_ms = round.wall_ms;
        for (std::size_t l = 0; l < legs.size(); ++l) {
            sample[legs[l].phase] = round.leg_ms[l];
        }
    }
    return sample;
}

// Throws naming the leg when a sentinel byte past the transfer is no longer zero.
void check_sentinel_bytes(std::span<const std::uint8_t> tail, Phase phase)
{
    const auto written = std::ranges::find_if(tail, [](std::uint8_t byte) { return byte != 0; });
    if (written != tail.end()) {
        const char* transfer = phase == Phase::h2d   ? "host-to-device"
                               : phase == Phase::d2h ? "device-to-host"
                                                     : "device-to-device";
        throw Error("duet", "bandwidth::run",
                    std::string("the ") + transfer + " transfer wrote past its end: the sentinel byte " +
                        std::to_string(written - tail.begin()) + " past it holds " + std::to_string(*written));
    }
}

double gbps(std::size_t bytes, double ms)
{
    return bytes / (ms * 1e-3) / 1e9;
}

class Bandwidth final : public Workload {
public:
    WorkloadInfo info() const override
    {
        std::vector<std::map<std::string, std::string>> cases;
        for (const char* bytes : {"1", "4097", "1048576"}) {
            for (const char* direction : {"h2d", "d2h", "both"}) {
                cases.push_back({{"bytes", bytes}, {"direction", direction}});
            }
        }
        return {"bandwidth",
                "host<->device copy throughput per host memory kind (mapped: a kernel streaming host memory), one "
                "direction or both at once on two queues, against the raw API on the same queue and buffers; "
                "device: a device-to-device copy, the device's own ceiling",
                variants(),
                {workload::integer_parameter("bytes", 64 << 20, 1, std::int64_t{1} << 36, "bytes per transfer"),
                 workload::choice_parameter("direction", {"h2d", "d2h", "both"},
                                            "host to device, device to host, or both at once on two queues (the "
                                            "device variant copies device to device whatever this says)")},
                cases,
                {}};
    }

    Footprint footprint(const RunRequest& request) const override
    {
        const std::uint64_t bytes = request.settings.integer("bytes");
        const std::uint64_t destination = bytes + sentinel_bytes;
        if (request.variant == "device") {
            // Source and destination on the device; what was sent, what is expected and what arrived.
            return {bytes + destination, destination, 2 * bytes + destination};
        }
        const std::uint64_t legs = request.settings.text("direction") == "both" ? 2 : 1;
        // Each leg: one device buffer, one host side and what arrived there (each counted with the
        // sentinel bytes, which only the destination has); plus what was sent and what is expected.
        return {legs * destination, destination, 2 * bytes + 2 * legs * destination};
    }

    Measurement run(const RunRequest& request) const override
    {
        const Device& device = request.device;
        const std::string& variant = request.variant;
        if (std::ranges::find(variants(), variant) == variants().end()) {
            throw NotFound(device.backend(), "bandwidth::run", "bandwidth has no variant '" + variant + "'");
        }
        const auto bytes = static_cast<std::size_t>(request.settings.integer("bytes"));
        const std::string& direction = request.settings.text("direction");
        const std::vector<std::uint8_t> sent = random_bytes(bytes, request.seed);

        std::vector<Leg> legs;
        if (variant == "device") {
            legs.push_back(device_to_device(device, sent));
        } else {
            const auto kernel = variant == "mapped" ? std::make_shared<const StreamCopy>(device) : nullptr;
            if (direction != "d2h") {
                legs.push_back(host_to_device(device, variant, sent, kernel));
            }
            if (direction != "h2d") {
                legs.push_back(device_to_host(device, variant, sent, kernel));
            }
        }

        const bool raw = legs.size() == 1 && legs[0].raw_copy;
        const bool moved_by_kernel = variant == "mapped" || variant == "device";
        Measurement result;
        result.samples = workload::repeat(request.timing, [&] { return run_pass(legs, raw, moved_by_kernel); });
        result.set_medians();
        result.unit = Measurement::Unit::bytes;
        // A device-to-device copy reads every byte and writes it again, as CUDA's bandwidthTest counts it.
        result.work = static_cast<double>(bytes) * legs.size() * (variant == "device" ? 2 : 1);

        // What the last pass delivered: its sentinels, then its bytes, compared whole against the
        // reference and, as sums of 4 KiB chunks, across devices and with the reference's sums (the
        // agreement, which names the chunk that differs).
        result.tolerance = 0;
        result.tolerance_reason = "a copy delivers every byte exactly as sent";
        std::vector<std::uint8_t> expected(bytes);
        if (request.verify) {
            result.reference_ms = workload::host_ms([&] { reference(sent, expected); });
        }
        std::vector<float> expected_sums;
        for (auto& leg : legs) {
            const auto arrived = leg.received();
            const auto received = std::span<const std::uint8_t>(arrived).first(bytes);
            check_sentinel_bytes(std::span<const std::uint8_t>(arrived).subspan(bytes), leg.phase);
            const auto sums = chunk_sums(received);
            result.output.as<float>().insert(result.output.as<float>().end(), sums.begin(), sums.end());
            if (request.verify) {
                result.max_error = std::max(result.max_error, max_difference(received, expected));
                const auto want = chunk_sums(expected);
                expected_sums.insert(expected_sums.end(), want.begin(), want.end());
            }
        }
        if (request.verify) {
            result.agreement =
                workload::compare(result.output, workload::Values(std::move(expected_sums)), result.tolerance);
            result.verified = true;
        }

        if (raw) {
            const double raw_gbps = gbps(bytes, result.summary(raw_phase).median);
            result.extras.emplace_back("raw_gbps", raw_gbps);
            result.extras.emplace_back("duet_over_raw", result.rate() / raw_gbps);
        }
        // Each direction's own rate where copies move the bytes; kernels on two queues have one
        // kernel phase, their span.
        if (legs.size() == 2 && !moved_by_kernel) {
            const double h2d = gbps(bytes, result.h2d_ms);
            const double d2h = gbps(bytes, result.d2h_ms);
            result.extras.emplace_back("h2d_gbps", h2d);
            result.extras.emplace_back("d2h_gbps", d2h);
            result.extras.emplace_back("sum_gbps", h2d + d2h);
        }
        if (variant == "device" && device.properties().theoretical_bandwidth_gbps() > 0) {
            result.extras.emplace_back("device_peak_gbps", device.properties().theoretical_bandwidth_gbps());
        }
        return result;
    }
};

} // namespace
} // namespace duet::bandwidth

DUET_EXPORT_WORKLOAD(duet::bandwidth::Bandwidth)
