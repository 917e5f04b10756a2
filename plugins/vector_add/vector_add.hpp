// vector_add, duet's worked example: c = a + b on any device, and the CPU reference it is
// checked against. Every later algorithm has this shape: kernels, launcher, reference.
#pragma once

#include <cstddef>
#include <span>

#include <duet/duet.hpp>

namespace duet::vector_add {

/// Builds the program once per device; launches are then cheap.
class Launcher {
public:
    explicit Launcher(const Device& device);

    /// Enqueues c = a + b over the first n elements; returns without waiting.
    void run(Queue& queue, const Buffer<float>& a, const Buffer<float>& b, const Buffer<float>& c, std::size_t n,
             std::size_t block_size = 256) const;

private:
    Kernel kernel_;
};

void reference(std::span<const float> a, std::span<const float> b, std::span<float> c);

} // namespace duet::vector_add
