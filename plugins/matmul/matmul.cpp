// The host side of matmul, written once against duet's API: one kernel per variant, launched on a
// 2D grid whose x runs along the columns of C; the "blas" variant hands the product to the
// vendor BLAS instead.
#include "matmul.hpp"

#include "vendor_blas.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <duet_kernels/matmul.hpp>

namespace duet::matmul {
namespace {

struct KernelVariant {
    const char* variant;
    const char* entry;
    std::size_t block_edge; ///< a block is block_edge × block_edge threads
    std::size_t tile_edge;  ///< and computes a tile_edge × tile_edge tile of C
};

// The naive kernel runs in 16 × 16 blocks, the tiled kernels' middle size, so that the tiles'
// gain over it is measured at the same geometry. blocked: 16 × 16 threads of 8 × 8 elements each
// (MATMUL_BM, MATMUL_BN, MATMUL_TM and MATMUL_TN in matmul.cu and matmul.cl).
constexpr KernelVariant kernel_variants[] = {{"tiled16", "matmul_tiled16", 16, 16},
                                             {"tiled8", "matmul_tiled8", 8, 8},
                                             {"tiled32", "matmul_tiled32", 32, 32},
                                             {"blocked", "matmul_blocked", 16, 128},
                                             {"naive", "matmul_naive", 16, 16}};

std::string variant_list()
{
    std::string list;
    for (const auto& name : variants()) {
        list += (list.empty() ? "" : ", ") + name;
    }
    return list;
}

} // namespace

const std::vector<std::string>& variants()
{
    static const std::vector<std::string> names{"tiled16", "tiled8", "tiled32", "blocked", "naive", "blas"};
    return names;
}

Launcher::Launcher(const Device& device, const std::string& variant)
{
    if (variant == "blas") {
        blas_ = std::make_unique<VendorBlas>(device);
        return;
    }
    const auto* found = std::find_if(std::begin(kernel_variants), std::end(kernel_variants),
                                     [&](const KernelVariant& candidate) { return variant == candidate.variant; });
    if (found == std::end(kernel_variants)) {
        throw NotFound(device.backend(), "matmul::Launcher", 0, "",
                       "matmul has no variant '" + variant + "'; it has " + variant_list());
    }
    kernel_ = device.build(kernels::matmul()).kernel(found->entry);
    block_edge_ = found->block_edge;
    tile_edge_ = found->tile_edge;
    const std::size_t threads = block_edge_ * block_edge_;
    if (kernel_.max_block_size() < threads) {
        throw Unsupported(device.backend(), "matmul::Launcher", 0, "",
                          variant + " runs in blocks of " + std::to_string(threads) + " threads; " + device.selector() +
                              " launches " + found->entry + " with at most " +
                              std::to_string(kernel_.max_block_size()));
    }
}

Launcher::~Launcher() = default;

void Launcher::run(Queue& queue, const Buffer<float>& a, const Buffer<float>& b, const Buffer<float>& c,
                   const Shape& shape) const
{
    const auto [m, n, k] = shape;
    constexpr std::size_t index_limit = std::numeric_limits<std::uint32_t>::max();
    if (m == 0 || n == 0 || k == 0 || m * k > index_limit || k * n > index_limit || m * n > index_limit) {
        throw InvalidArgument(queue.device().backend(), "matmul::Launcher::run", 0, "",
                              std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k) +
                                  ": every size must be at least 1 and every matrix below 2^32 elements, which the "
                                  "kernels' 32-bit indices address");
    }
    if (a.size() < m * k || b.size() < k * n || c.size() < m * n) {
        throw InvalidArgument(queue.device().backend(), "matmul::Launcher::run", 0, "",
                              "a buffer is smaller than its matrix");
    }
    if (blas_) {
        blas_->multiply(queue, a.raw(), b.raw(), c.raw(), shape);
        return;
    }
    const auto tiles = [&](std::size_t size) { return (size + tile_edge_ - 1) / tile_edge_; };
    queue.launch(kernel_, Range::grid_block(2, {tiles(n), tiles(m), 1}, {block_edge_, block_edge_, 1}), a, b, c,
                 static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(k));
}

} // namespace duet::matmul
