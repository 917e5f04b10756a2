// stencil1d: a moving average over radius R on any device, the first and last R elements copied
// through; a naive kernel and a shared-memory tiled one; and the CPU reference they are checked against.
#pragma once

#include <cfloat>
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include <duet/duet.hpp>

namespace duet::stencil1d {

enum class Variant {
    naive, ///< each thread reads its 2R+1 inputs from global memory
    shared ///< each block stages its inputs and halo in local (shared) memory once
};

/// How far a device's result may be from the reference: |got - want| / max(|want|, 1). Every
/// device and the reference add in[i-R] .. in[i+R] left to right, each add correctly rounded, so
/// the sums agree bit for bit; the division by 2R+1 is correctly rounded in CUDA and on the CPU,
/// but OpenCL C allows it 2.5 ulp.
inline constexpr double tolerance = 3 * FLT_EPSILON;
inline constexpr const char* tolerance_reason =
    "the sums agree bit for bit (the same order, each add correctly rounded); OpenCL C's division by 2R+1 "
    "may be 2.5 ulp off where CUDA's and the CPU's are correctly rounded: 3 ulp of the result";

/// Outputs each thread of the shared kernel produces: STENCIL1D_ITEMS in stencil1d.cl and .cu.
inline constexpr std::size_t items_per_thread = 8;

/// Builds the program once per device; launches are then cheap.
class Launcher {
public:
    explicit Launcher(const Device& device);

    /// The largest radius the shared kernel takes with `block` threads per block on this device:
    /// its tile of block × items_per_thread + 2R floats must fit one block's local memory.
    /// Zero when not even the tile without a halo fits.
    std::size_t max_shared_radius(std::size_t block) const;

    /// Why the shared kernel cannot take `radius` with `block` threads per block on this device
    /// (the limit and the local memory it comes from); nullopt where it can.
    std::optional<std::string> shared_radius_refusal(std::size_t radius, std::size_t block) const;

    /// Enqueues out[i] = mean of in[i-R .. i+R] over the first n elements (in[i] itself within R
    /// of either end); returns without waiting. `in` may be a device view of mapped host memory.
    /// A radius above max_shared_radius(block) for the shared variant throws InvalidArgument
    /// naming that limit, before anything is enqueued.
    void run(Queue& queue, Variant variant, const Buffer<float>& in, const Buffer<float>& out, std::size_t n,
             std::size_t radius, std::size_t block = 256) const;

private:
    Kernel naive_;
    Kernel shared_;
    std::size_t local_memory_limit_; ///< bytes of dynamic local memory one block of shared_ may use
};

/// The moving average in the kernels' order: in[i-R] + ... + in[i+R] left to right, then divided
/// by 2R+1. `out` has in.size() elements.
void reference(std::span<const float> in, std::span<float> out, std::size_t radius);

} // namespace duet::stencil1d
