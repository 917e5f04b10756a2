// The host side of bandwidth's kernel, written once against duet's API: the stream copy that
// measures mapped host memory.
#include "bandwidth.hpp"

#include <algorithm>
#include <cstdint>

#include <duet_kernels/bandwidth.hpp>

namespace duet::bandwidth {

const std::vector<std::string>& variants()
{
    static const std::vector<std::string> names{"pinned",     "pageable", "write_combined",
                                                "registered", "mapped",   "device"};
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

} // namespace duet::bandwidth
