// bandwidth: how fast bytes move between host and device for each kind of host memory, in each
// direction and both at once, against the raw API on the same queue and buffers; and the
// device-to-device copy as the device's own ceiling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <duet/duet.hpp>

namespace duet::bandwidth {

/// The host memory kinds as duet names them ("pinned", the default, "pageable", "write_combined",
/// "registered", "mapped"), and "device" for a device-to-device copy.
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

/// One copy through the raw API (clEnqueueWriteBuffer / cuMemcpyHtoDAsync and their reads) on
/// duet's own queue and buffer, through the native handles. Empty where the raw API cannot be
/// reached: a backend other than OpenCL and CUDA, or a CUDA driver that cannot be opened.
std::function<void()> raw_write(const Device& device, Queue& queue, const RawBuffer& dst, const void* src,
                                std::size_t bytes);
std::function<void()> raw_read(const Device& device, Queue& queue, void* dst, const RawBuffer& src, std::size_t bytes);

/// Bytes in 1..255 drawn from `seed`: never zero, the value destinations are poisoned with.
std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed);

/// The CPU reference: what must arrive is what was sent, copied by the host (std::memcpy).
void reference(std::span<const std::uint8_t> sent, std::span<std::uint8_t> expected);

/// Largest |received - expected| over the bytes; a length mismatch counts as 255.
double max_difference(std::span<const std::uint8_t> received, std::span<const std::uint8_t> expected);

/// The sum of each 4 KiB of `bytes` (exact in float): what devices compare with each other,
/// without a float per byte.
std::vector<float> chunk_sums(std::span<const std::uint8_t> bytes);

} // namespace duet::bandwidth
