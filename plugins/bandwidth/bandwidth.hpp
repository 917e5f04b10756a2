// bandwidth: how fast bytes move between host and device for each kind of host memory, in each
// direction and both at once, against the raw API on the same queue and buffers; and the
// device-to-device copy as the device's own ceiling. The transfers of a run and their timed pass
// are here, the spec that declares their arrays in workload.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <duet/duet.hpp>
#include <duet/workload/kit.hpp>

namespace duet::bandwidth {

/// The host memory kinds as duet names them ("pinned", the default, "pageable", "write_combined",
/// "registered", "mapped"): the variants whose transfers go to and from host memory.
const std::vector<std::string>& host_memory_variants();
/// host_memory_variants(), and "device" for a device-to-device copy.
const std::vector<std::string>& variants();

/// A kernel that copies bytes from one buffer to another: how "mapped" memory is measured, the
/// kernel itself reading or writing host memory through HostBuffer::device_buffer().
class StreamCopy {
public:
    explicit StreamCopy(const Device& device);
    /// Enqueues the copy of the first `bytes` bytes; returns without waiting.
    void run(Queue& queue, const RawBuffer& src, const RawBuffer& dst, std::size_t bytes) const;

private:
    Kernel kernel_;
};

/// Whether a run moves bytes host to device, and device to host (the direction parameter; the
/// device variant does neither).
bool has_h2d(const Settings& settings, const std::string& variant);
bool has_d2h(const Settings& settings, const std::string& variant);

/// The extra phase holding the raw API's copy of a pass.
inline const std::string raw_phase = "raw_api_copy";

/// A run's transfers of `bytes` bytes, each on its own queue, between the arrays the spec
/// declares: "sent" (host) to "arrived" (device), "source" (device) to "received" (host), and the
/// device variant's "source" to "copied". A kernel moves the bytes of mapped memory, addressing
/// it in place.
class Transfers {
public:
    Transfers(const Device& device, const Settings& settings, const std::string& variant);
    /// One timed pass (Prepared::schedule): the raw API's copy first where it is measured, so that
    /// it and duet's see the same state of the machine pass after pass; the outputs poisoned
    /// again; duet's copy, whose bytes the check reads. Where copies move the bytes each leg is
    /// its phase and the rate is over the span; a kernel's span (mapped memory, or the device
    /// variant's copy) is the kernel phase. What arrived on the device is read back, untimed.
    Sample run(workload::Pass& pass);
    /// What must arrive: each destination gets what its source sent.
    void reference(const workload::HostArrays& arrays) const;
    std::size_t legs() const { return legs_.size(); }
    /// Whether copies move the bytes, rather than a kernel.
    bool by_copies() const { return by_copies_; }
    /// Whether the raw API's copy is timed beside duet's (raw_phase): a single copy, where the
    /// raw API can be reached.
    bool raw() const { return raw_; }

private:
    struct Leg {
        Phase phase;
        Queue queue;
        std::string from, to;
    };
    std::function<void()> copy(Leg& leg, workload::Pass& pass, bool raw_api) const;
    std::vector<Leg> legs_;
    std::array<std::vector<std::function<void()>>, 2> copies_; ///< each leg's copy: duet's, the raw API's
    std::optional<StreamCopy> kernel_;                         ///< for mapped memory
    std::size_t bytes_;
    bool by_copies_;
    bool raw_;
};

/// One copy through the raw API (clEnqueueWriteBuffer / cuMemcpyHtoDAsync and their reads) on
/// duet's own queue and buffer, through the native handles; an OpenCL write flushes the queue first,
/// as duet's staged write does, so that both are timed from the call. Empty where the raw API cannot be
/// reached: a backend other than OpenCL and CUDA, or a CUDA driver that cannot be opened.
std::function<void()> raw_write(const Device& device, Queue& queue, const RawBuffer& dst, const void* src,
                                std::size_t bytes);
std::function<void()> raw_read(const Device& device, Queue& queue, void* dst, const RawBuffer& src, std::size_t bytes);
/// Whether raw_write and raw_read reach the raw API on this device.
bool raw_api_reachable(const Device& device);

/// The CPU reference: what must arrive is what was sent, copied by the host (std::memcpy).
void reference(std::span<const std::uint8_t> sent, std::span<std::uint8_t> expected);

/// Largest |received - expected| over the bytes; a length mismatch counts as 255.
double max_difference(std::span<const std::uint8_t> received, std::span<const std::uint8_t> expected);

} // namespace duet::bandwidth
