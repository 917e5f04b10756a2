// mat_add: C = A + B on pitched 2D matrices and 3D volumes, whose rows the device pads, moved
// with rectangular copies; and the CPU reference it is checked against.
#pragma once

#include <span>

#include <duet/duet.hpp>

namespace duet::mat_add {

/// Builds the program once per device; launches are then cheap.
class Launcher {
public:
    explicit Launcher(const Device& device);

    /// Enqueues c = a + b over every element of three width × height buffers (depth 1) with one
    /// thread per element in blocks of block.x × block.y; returns without waiting. The buffers must
    /// have the same shape and pitch, else InvalidArgument before anything is enqueued.
    void run_2d(Queue& queue, const PitchedBuffer<float>& a, const PitchedBuffer<float>& b,
                const PitchedBuffer<float>& c, Dim3 block) const;
    /// The same over width × height × depth volumes, in blocks of block.x × block.y × block.z.
    void run_3d(Queue& queue, const PitchedBuffer<float>& a, const PitchedBuffer<float>& b,
                const PitchedBuffer<float>& c, Dim3 block) const;

private:
    Kernel add_2d_;
    Kernel add_3d_;
};

/// c = a + b over densely packed arrays of the same size.
void reference(std::span<const float> a, std::span<const float> b, std::span<float> c);

} // namespace duet::mat_add
