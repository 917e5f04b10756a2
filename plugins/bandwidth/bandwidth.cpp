// The host side of bandwidth, written once against duet's API: the stream copy that measures
// mapped host memory, and a run's transfers, each timed by events on its own queue.
#include "bandwidth.hpp"

#include <algorithm>
#include <cstdint>

#include <duet_kernels/bandwidth.hpp>

namespace duet::bandwidth {

using workload::Pass;

const std::vector<std::string>& host_memory_variants()
{
    static const std::vector<std::string> names{"pinned", "pageable", "write_combined", "registered", "mapped"};
    return names;
}

const std::vector<std::string>& variants()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> all = host_memory_variants();
        all.emplace_back("device");
        return all;
    }();
    return names;
}

StreamCopy::StreamCopy(const Device& device) : kernel_(device.build(kernels::bandwidth()).kernel("stream_copy")) {}

void StreamCopy::run(Queue& queue, const RawBuffer& src, const RawBuffer& dst, std::size_t bytes) const
{
    if (bytes > src.bytes() || bytes > dst.bytes()) {
        throw InvalidArgument(queue.device().backend(), "bandwidth::StreamCopy::run",
                              std::to_string(bytes) + " bytes exceed a buffer");
    }
    // One 16-byte vector per thread up to a grid of 65535 blocks, past which threads loop: enough
    // blocks in flight to saturate any bus, on every device's grid limit.
    constexpr std::size_t block = 256;
    const std::size_t vectors = bytes / 16;
    const std::size_t blocks = std::clamp<std::size_t>((vectors + block - 1) / block, 1, 65535);
    queue.launch(kernel_, Range::grid_block(blocks, block), src, dst, static_cast<std::uint64_t>(bytes));
}

bool has_h2d(const Settings& settings, const std::string& variant)
{
    return variant != "device" && settings.text("direction") != "d2h";
}

bool has_d2h(const Settings& settings, const std::string& variant)
{
    return variant != "device" && settings.text("direction") != "h2d";
}

Transfers::Transfers(const Device& device, const Settings& settings, const std::string& variant)
    : bytes_(static_cast<std::size_t>(settings.integer("bytes"))),
      by_copies_(variant != "mapped" && variant != "device")
{
    if (variant == "device") {
        legs_.push_back({Phase::kernel, device.create_queue(), "source", "copied"});
    }
    if (has_h2d(settings, variant)) {
        legs_.push_back({Phase::h2d, device.create_queue(), "sent", "arrived"});
    }
    if (has_d2h(settings, variant)) {
        legs_.push_back({Phase::d2h, device.create_queue(), "source", "received"});
    }
    if (variant == "mapped") {
        kernel_.emplace(device);
    }
    raw_ = legs_.size() == 1 && by_copies_ && raw_api_reachable(device);
}

std::function<void()> Transfers::copy(Leg& leg, Pass& pass, bool raw_api) const
{
    Queue queue = leg.queue;
    const RawBuffer from = pass.buffers().get<std::uint8_t>(leg.from).raw();
    const RawBuffer to = pass.buffers().get<std::uint8_t>(leg.to).raw();
    const std::size_t bytes = bytes_;
    if (kernel_) {
        return [=, kernel = &*kernel_]() mutable { kernel->run(queue, from, to, bytes); };
    }
    if (leg.phase == Phase::kernel) {
        return [=]() mutable { queue.copy_bytes(to, 0, from, 0, bytes); };
    }
    if (leg.phase == Phase::h2d) {
        const std::byte* sent = pass.host(leg.from).data();
        return raw_api ? raw_write(queue.device(), leg.queue, to, sent, bytes)
                       : [=]() mutable { queue.write_bytes(to, 0, sent, bytes); };
    }
    std::byte* received = pass.host(leg.to).data();
    return raw_api ? raw_read(queue.device(), leg.queue, received, from, bytes)
                   : [=]() mutable { queue.read_bytes(received, from, 0, bytes); };
}

Sample Transfers::run(Pass& pass)
{
    // Each leg's copy enqueued on its own queue back to back, so that "both" moves its two
    // directions at once; each timed from its own start, the round from the earliest start to
    // the latest end.
    std::vector<Event> starts, ends;
    const auto round = [&](bool raw_api) {
        // Made on the first pass: the run's buffers and host memory stay the same in every pass.
        auto& copies = copies_[raw_api ? 1 : 0];
        if (copies.empty()) {
            for (auto& leg : legs_) {
                copies.push_back(copy(leg, pass, raw_api));
            }
        }
        starts.clear();
        ends.clear();
        for (auto& leg : legs_) {
            starts.push_back(leg.queue.record());
        }
        for (std::size_t l = 0; l < legs_.size(); ++l) {
            copies[l]();
            ends.push_back(legs_[l].queue.record());
        }
        for (auto& leg : legs_) {
            leg.queue.finish();
        }
        return workload::span_ms(starts, ends);
    };
    Sample sample;
    if (raw_) {
        sample.extra_phases.emplace_back(raw_phase, round(true));
        pass.poison_outputs();
    }
    sample.total_ms = round(false);
    if (!by_copies_) {
        sample.kernel_ms = sample.total_ms;
    } else {
        sample.rate_ms = sample.total_ms;
        for (std::size_t l = 0; l < legs_.size(); ++l) {
            sample[legs_[l].phase] = elapsed_ms(starts[l], ends[l]);
        }
    }
    for (const auto& leg : legs_) {
        if (leg.phase != Phase::d2h) {
            pass.copy_out(pass.queue(), leg.to);
        }
    }
    pass.queue().finish();
    return sample;
}

void Transfers::reference(const workload::HostArrays& arrays) const
{
    for (const auto& leg : legs_) {
        bandwidth::reference(arrays.in<std::uint8_t>(leg.from), arrays.out<std::uint8_t>(leg.to));
    }
}

} // namespace duet::bandwidth
