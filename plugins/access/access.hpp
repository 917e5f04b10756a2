// access: n floats read with a stride or as a random gather, through each load path a backend
// has (plain, const restrict, __ldg, __constant), so that their rates make the coalescing table;
// and the CPU reference the kernels are checked against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <duet/duet.hpp>

namespace duet::access {

/// How the kernels load their input. Not every backend has every path: Launcher::refusal says why.
enum class Path {
    plain,      ///< const pointers the compiler must assume may alias the output: ordinary global loads
    restricted, ///< the variant `restrict`: const restrict, so the compiler may use the read-only path
    ldg,        ///< CUDA's __ldg: the read-only (non-coherent) data cache, asked for explicitly
    constant    ///< OpenCL's __constant: on NVIDIA the constant cache, which serves one address per warp at a time
};

/// Which input element thread i reads. The input is n rows of `stride` floats; each thread reads
/// the first float of one row, so every row is read once either way.
enum class Pattern {
    strided, ///< row i: a warp's reads are `stride` floats apart
    random   ///< row index[i], index a random permutation of the rows: a gather
};

/// The kernels index with 32-bit unsigned integers: n × stride, the input's floats, must not
/// exceed this.
inline constexpr std::uint64_t max_input_floats = std::uint64_t{1} << 32;

/// The random pattern's rows: a permutation of 0 .. n-1 drawn from `seed`.
std::vector<std::uint32_t> random_rows(std::size_t n, std::uint64_t seed);

/// Builds the program once per device; launches are then cheap.
class Launcher {
public:
    explicit Launcher(const Device& device);

    /// Why `path` cannot read an input of `input_floats` floats on this device (the missing
    /// feature, or the limit and the property it comes from); nullopt where it can.
    std::optional<std::string> refusal(Path path, std::size_t input_floats) const;

    /// Bytes a __constant input may take on this device: CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, or
    /// OpenCL's guaranteed 64 KiB where the driver does not say; 0 where the backend has no
    /// constant path.
    std::uint64_t constant_limit() const { return constant_limit_; }

    /// Sets the kernel's L1/shared-memory split for later launches (cuFuncSetCacheConfig).
    /// Unsupported on OpenCL for anything but `none`, which there is already the only split.
    void set_cache_preference(Path path, Pattern pattern, CachePreference preference) const;

    /// Enqueues out[i] = in[row × stride] for i < n, where row is i (strided) or index[i] (random:
    /// `index` holds n rows, each below n: a precondition, not checked, since that would read the
    /// index back; the strided kernels never read it). Returns without waiting. Sizes that break
    /// the buffers or the kernels' limits, and a path this device refuses (the constant path binds
    /// the whole input buffer), throw before anything is enqueued.
    void run(Queue& queue, Path path, Pattern pattern, const Buffer<float>& in, const Buffer<std::uint32_t>& index,
             const Buffer<float>& out, std::size_t n, std::size_t stride, std::size_t block = 256) const;

private:
    const Kernel& kernel(Path path, Pattern pattern) const;

    /// Indexed by Path, then Pattern; empty where the backend's source has no such kernel.
    std::optional<Kernel> kernels_[4][2];
    std::uint64_t constant_limit_ = 0;
    std::string backend_;
};

/// The kernels' result on the CPU: out[i] = in[row × stride], row i or index[i]. `out` has n
/// elements; `index` is read only for the random pattern.
void reference(Pattern pattern, std::span<const float> in, std::span<const std::uint32_t> index, std::span<float> out,
               std::size_t stride);

} // namespace duet::access
