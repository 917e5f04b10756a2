// The host side of matmul, written once against duet's API: one kernel per variant, launched on a
// 2D grid whose x runs along the columns of C (the blocked kernel with K split: a 3D grid, then a
// second kernel that adds the split products); the "blas" variant hands the product to the vendor
// BLAS instead.
#include "matmul.hpp"

#include "vendor_blas.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>

#include <duet/workload/kit.hpp>
#include <duet_kernels/matmul.hpp>

namespace duet::matmul {
namespace {

struct KernelVariant {
    const char* variant;
    const char* entry;
    std::size_t block_edge; ///< a block is block_edge × block_edge threads, one element of C each
};

// The naive kernel runs in 16 × 16 blocks, the tiled kernels' middle size, so that the tiles'
// gain over it is measured at the same geometry. The blocked kernel's geometry is its tiles'.
constexpr KernelVariant kernel_variants[] = {{"tiled16", "matmul_tiled16", 16},
                                             {"tiled8", "matmul_tiled8", 8},
                                             {"tiled32", "matmul_tiled32", 32},
                                             {"blocked", "matmul_blocked", 0},
                                             {"naive", "matmul_naive", 16}};

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

std::string BlockedTiles::name() const
{
    return std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) + "/" + std::to_string(tm) + "x" +
           std::to_string(tn) + (blocks_per_sm > 1 ? "@" + std::to_string(blocks_per_sm) : "") +
           (split_k > 1 ? "/k" + std::to_string(split_k) : "");
}

std::optional<std::string> BlockedTiles::invalid_reason() const
{
    if (blocks_per_sm == 0 || blocks_per_sm > 4) {
        return "tiles " + name() + ": from 1 to 4 blocks an SM";
    }
    if (split_k == 0 || split_k > 16) {
        return "tiles " + name() + ": K split in from 1 to 16";
    }
    if (bm == 0 || bn == 0 || bk == 0 || tm == 0 || tn == 0 || bm % tm != 0 || bn % tn != 0) {
        return "tiles " + name() + ": every size above 0, and tm dividing bm, tn dividing bn";
    }
    if (tm % 4 != 0 || tn % 4 != 0 || bk % 4 != 0) {
        return "tiles " + name() + ": tm, tn and bk must be multiples of 4 (the kernel moves float4s)";
    }
    if ((bm * bk) % (4 * threads()) != 0 || (bk * bn) % (4 * threads()) != 0) {
        return "tiles " + name() + ": a step's " + std::to_string(bm * bk / 4) + " float4s of A and " +
               std::to_string(bk * bn / 4) + " of B must share out evenly over the " + std::to_string(threads()) +
               " threads";
    }
    return std::nullopt;
}

const std::vector<BlockedTiles>& blocked_candidates()
{
    static const std::vector<BlockedTiles> candidates{
        {128, 128, 8, 8, 8},     {128, 128, 16, 8, 8},      {128, 64, 16, 8, 4},       {64, 128, 16, 4, 8},
        {128, 64, 16, 8, 8},     {64, 128, 16, 8, 8},       {64, 64, 16, 4, 4},        {64, 64, 16, 8, 8},
        {64, 32, 16, 4, 4},      {32, 64, 16, 4, 4},        {32, 32, 16, 4, 4},        {128, 128, 8, 8, 8, 2},
        {128, 128, 16, 8, 8, 2}, {128, 128, 8, 8, 8, 2, 2}, {128, 128, 8, 8, 8, 2, 4}, {64, 64, 16, 8, 8, 1, 2},
        {128, 128, 16, 8, 16},   {128, 128, 16, 16, 8}};
    return candidates;
}

std::vector<std::string> tile_choices()
{
    std::vector<std::string> choices{"auto"};
    for (const auto& tiles : blocked_candidates()) {
        choices.push_back(tiles.name());
    }
    return choices;
}

std::optional<BlockedTiles> parse_tiles(std::string_view name)
{
    BlockedTiles tiles;
    // A count after a marker, the text before it left in `name`: false where the count is not a
    // whole number of at least 2 (1 is written without its marker).
    const auto take_count = [&name](std::string_view marker, std::size_t& count) {
        const auto at = name.rfind(marker);
        if (at == std::string_view::npos) {
            return true;
        }
        const std::string_view digits = name.substr(at + marker.size());
        const auto [next, error] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
        name = name.substr(0, at);
        return !digits.empty() && error == std::errc() && next == digits.data() + digits.size() && count >= 2;
    };
    if (!take_count("/k", tiles.split_k) || !take_count("@", tiles.blocks_per_sm)) {
        return std::nullopt;
    }
    std::size_t* fields[] = {&tiles.bm, &tiles.bn, &tiles.bk, &tiles.tm, &tiles.tn};
    const char separators[] = {'x', 'x', '/', 'x', '\0'};
    const char* at = name.data();
    const char* end = name.data() + name.size();
    for (std::size_t f = 0; f < 5; ++f) {
        const auto [next, error] = std::from_chars(at, end, *fields[f]);
        if (error != std::errc() || (separators[f] != '\0' ? next == end || *next != separators[f] : next != end)) {
            return std::nullopt;
        }
        at = separators[f] != '\0' ? next + 1 : next;
    }
    return tiles;
}

std::size_t tuning_size(DeviceType type, const Shape& shape)
{
    if (type != DeviceType::gpu) {
        return 256;
    }
    const std::size_t side = std::max(shape.m, shape.n);
    return side <= 1024 ? 1024 : side <= 2048 ? 2048 : 4096;
}

namespace {

/// Whether a search for products of `size`³ on a device of `type` tries the split candidates.
bool splits_tried(DeviceType type, std::size_t size)
{
    return type == DeviceType::gpu && size <= 2048;
}

/// Whether a search on a device of `type` tries `tiles`' thread tile: 128 results a thread only on
/// a GPU, whose register file holds them (on a CPU device they are one more build to wait for).
bool thread_tile_tried(DeviceType type, const BlockedTiles& tiles)
{
    return type == DeviceType::gpu || tiles.tm * tiles.tn <= 64;
}

/// Whether blocks an SM (`@2`) is a register ceiling on `device`: on CUDA and NVIDIA's OpenCL.
bool register_ceiling_applies(const Device& device)
{
    return device.backend() == "cuda" || device.properties().platform == "NVIDIA CUDA";
}

} // namespace

std::uint64_t split_workspace_bytes(const Shape& shape, std::string_view tiles)
{
    std::size_t most = 1;
    if (tiles != "auto") {
        most = parse_tiles(tiles).value_or(BlockedTiles{}).split_k;
    } else if (splits_tried(DeviceType::gpu, tuning_size(DeviceType::gpu, shape))) {
        for (const auto& candidate : blocked_candidates()) {
            most = std::max(most, candidate.split_k);
        }
    }
    return most > 1 ? static_cast<std::uint64_t>(most) * shape.m * shape.n * sizeof(float) : 0;
}

std::vector<BlockedTiles> search_candidates(const Device& device, std::size_t size)
{
    const DeviceType type = device.properties().type;
    const bool splits = splits_tried(type, size);
    const bool ceiling = register_ceiling_applies(device);
    std::vector<BlockedTiles> tried;
    for (const auto& candidate : blocked_candidates()) {
        if ((candidate.split_k == 1 || splits) && (candidate.blocks_per_sm == 1 || ceiling) &&
            thread_tile_tried(type, candidate)) {
            tried.push_back(candidate);
        }
    }
    return tried;
}

namespace {

/// The search tuned_tiles() describes for products of `size`³, or the choice a cache holds for
/// this device, size and source.
BlockedTiles search_tiles(const Device& device, std::size_t size)
{
    const std::string tuned = "matmul_blocked tiles at " + std::to_string(size);
    // Keyed by the candidates too: a choice made among fewer is searched again.
    const std::vector<BlockedTiles> candidates = search_candidates(device, size);
    std::string sources = tuning_source(kernels::matmul()) + "\ncandidates";
    for (const auto& candidate : candidates) {
        sources += " " + candidate.name();
    }
    if (const auto kept = load_tuning(device, tuned, sources)) {
        if (const auto tiles = parse_tiles(*kept); tiles && !tiles->invalid_reason()) {
            return *tiles;
        }
    }
    const Shape shape{size, size, size};
    Queue queue = device.create_queue();
    const Buffer<float> a = device.alloc<float>(size * size);
    const Buffer<float> b = device.alloc<float>(size * size);
    const Buffer<float> c = device.alloc<float>(size * size);
    queue.fill(a, 1.0f);
    queue.fill(b, 1.0f);
    std::optional<BlockedTiles> best;
    double best_ms = 0;
    for (const auto& candidate : candidates) {
        try {
            const Launcher launcher(device, "blocked", candidate);
            launcher.run(queue, a, b, c, shape); // the first launch loads the module
            const double ms = workload::best_device_ms(queue, 3, [&] { launcher.run(queue, a, b, c, shape); });
            if (!best || ms < best_ms) {
                best = candidate;
                best_ms = ms;
            }
        } catch (const Unsupported&) {
            // This device cannot launch these tiles: the next candidate.
        } catch (const BuildError&) {
            // Nor build them (a local-memory or register limit): the next candidate.
        }
    }
    if (!best) {
        return BlockedTiles{};
    }
    store_tuning(device, tuned, sources, best->name());
    return *best;
}

} // namespace

BlockedTiles tuned_tiles(const Device& device, const Shape& shape)
{
    // Once per device and process as well: with the cache off, every launcher would search again.
    static std::mutex mutex;
    static std::map<std::string, BlockedTiles> chosen;
    const std::lock_guard lock(mutex);
    const std::size_t size = tuning_size(device.properties().type, shape);
    const std::string key = device.selector() + " " + device.properties().name + " at " + std::to_string(size);
    if (const auto found = chosen.find(key); found != chosen.end()) {
        return found->second;
    }
    return chosen[key] = search_tiles(device, size);
}

Launcher::Launcher(const Device& device, const std::string& variant, const BlockedTiles& tiles)
{
    if (variant == "blas") {
        blas_ = std::make_unique<VendorBlas>(device);
        return;
    }
    const auto* found = std::find_if(std::begin(kernel_variants), std::end(kernel_variants),
                                     [&](const KernelVariant& candidate) { return variant == candidate.variant; });
    if (found == std::end(kernel_variants)) {
        throw NotFound(device.backend(), "matmul::Launcher",
                       "matmul has no variant '" + variant + "'; it has " + variant_list());
    }
    if (found->block_edge > 0) {
        kernel_ = device.build(kernels::matmul()).kernel(found->entry);
        block_ = {found->block_edge, found->block_edge, 1};
        tile_ = block_;
    } else {
        if (const auto reason = tiles.invalid_reason()) {
            throw InvalidArgument(device.backend(), "matmul::Launcher", *reason);
        }
        BuildOptions options;
        if (!(tiles == BlockedTiles{})) {
            // Other tiles than the defaults, a program of the blocked kernels alone: the tile
            // search builds one for each candidate (eleven on a CPU device), and PoCL compiled each
            // with matmul's other kernels in 2.4 s (from empty caches, a 2-core host), in all 27 s
            // of compare all's 103.
            options.defines = {{"MATMUL_BLOCKED_ONLY", "1"},
                               {"MATMUL_BM", std::to_string(tiles.bm)},
                               {"MATMUL_BN", std::to_string(tiles.bn)},
                               {"MATMUL_BK", std::to_string(tiles.bk)},
                               {"MATMUL_TM", std::to_string(tiles.tm)},
                               {"MATMUL_TN", std::to_string(tiles.tn)},
                               {"MATMUL_MIN_BLOCKS", std::to_string(tiles.blocks_per_sm)},
                               {"MATMUL_SPLIT_K", std::to_string(tiles.split_k)}};
        }
        // Blocks an SM, as the CUDA kernel's __launch_bounds__(threads, MATMUL_MIN_BLOCKS) asks of
        // ptxas: the same register ceiling (64K registers an SM) through cl_nv_compiler_options.
        if (tiles.blocks_per_sm > 1 && device.backend() == "opencl" && register_ceiling_applies(device)) {
            options.flags = "-cl-nv-maxrregcount=" +
                            std::to_string(std::min<std::size_t>(255, 65536 / (tiles.blocks_per_sm * tiles.threads())));
        }
        const Program program = device.build(kernels::matmul(), options);
        kernel_ = program.kernel(found->entry);
        aligned_kernel_ = program.kernel("matmul_blocked_aligned");
        block_ = {tiles.bn / tiles.tn, tiles.bm / tiles.tm, 1};
        tile_ = {tiles.bn, tiles.bm, 1};
        split_k_ = tiles.split_k;
        if (split_k_ > 1) {
            sum_splits_ = program.kernel("matmul_sum_splits");
        }
    }
    const std::size_t threads = block_.x * block_.y;
    for (const Kernel* product : {&kernel_, &aligned_kernel_}) {
        if (product->state() && product->properties().max_block_size < threads) {
            throw Unsupported(device.backend(), "matmul::Launcher",
                              variant + " runs in blocks of " + std::to_string(threads) + " threads; " +
                                  device.selector() + " launches " + product->name() + " with at most " +
                                  std::to_string(product->properties().max_block_size));
        }
    }
}

Launcher::~Launcher() = default;

void Launcher::run(Queue& queue, const Buffer<float>& a, const Buffer<float>& b, const Buffer<float>& c,
                   const Shape& shape) const
{
    const auto [m, n, k] = shape;
    constexpr std::size_t index_limit = std::numeric_limits<std::uint32_t>::max();
    if (m == 0 || n == 0 || k == 0 || m * k > index_limit || k * n > index_limit || m * n > index_limit) {
        throw InvalidArgument(queue.device().backend(), "matmul::Launcher::run",
                              std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k) +
                                  ": every size must be at least 1 and every matrix below 2^32 elements, which the "
                                  "kernels' 32-bit indices address");
    }
    if (a.size() < m * k || b.size() < k * n || c.size() < m * n) {
        throw InvalidArgument(queue.device().backend(), "matmul::Launcher::run", "a buffer is smaller than its matrix");
    }
    if (blas_) {
        blas_->multiply(queue, a.raw(), b.raw(), c.raw(), shape);
        return;
    }
    const auto tiles = [](std::size_t size, std::size_t tile) { return (size + tile - 1) / tile; };
    const Range range =
        Range::grid_block(split_k_ > 1 ? 3 : 2, {tiles(n, tile_.x), tiles(m, tile_.y), split_k_}, block_);
    const auto m32 = static_cast<std::uint32_t>(m), n32 = static_cast<std::uint32_t>(n),
               k32 = static_cast<std::uint32_t>(k);
    const Kernel& product = aligned_kernel_.state() && k % 4 == 0 && n % 4 == 0 ? aligned_kernel_ : kernel_;
    if (split_k_ == 1) {
        queue.launch(product, range, a, b, c, m32, n32, k32);
        return;
    }
    // Held through both launches: threads that share a queue would otherwise interleave their
    // products' two kernels on its one workspace.
    const std::lock_guard lock(workspaces_mutex_);
    const Buffer<float> partial = workspace(queue, split_k_ * m * n);
    queue.launch(product, range, a, b, partial, m32, n32, k32);
    queue.launch(sum_splits_, Range::cover(m * n, 256), partial, c, static_cast<std::uint32_t>(m * n));
}

Buffer<float> Launcher::workspace(Queue& queue, std::size_t elements) const
{
    Buffer<float>& held = workspaces_[queue.native()];
    if (held.size() < elements) {
        if (held.size() > 0) {
            queue.finish(); // the queue's earlier products may still read the one it replaces
        }
        held = queue.device().alloc<float>(elements);
    }
    return held;
}

} // namespace duet::matmul
