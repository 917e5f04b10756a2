// matmul: C = A × B in float for any M, N, K, row-major. Duet's kernels (naive, tiled through
// shared memory with tiles of 8, 16 and 32, and blocked: 8 × 8 register tiles per thread), the vendor BLAS run on
// duet's own queues and buffers (cuBLAS on CUDA, CLBlast on OpenCL), and the CPU reference they are all checked
// against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <duet/duet.hpp>

namespace duet::matmul {

/// C is m × n, A is m × k, B is k × n.
struct Shape {
    std::size_t m = 0;
    std::size_t n = 0;
    std::size_t k = 0;
};

/// "tiled16" (the default), "tiled8", "tiled32", "blocked", "naive", "blas".
const std::vector<std::string>& variants();

class VendorBlas;

/// The blocked kernel's tile sizes (MATMUL_BM, MATMUL_BN, MATMUL_BK, MATMUL_TM and MATMUL_TN in
/// matmul.cu and matmul.cl): a block computes bm × bn of C in steps of bk along K, each of its
/// (bm / tm) × (bn / tn) threads tm × tn of it. The defaults are the kernels' own. `blocks_per_sm`
/// above 1 holds the compiler to the registers that many blocks of the tile need on an SM:
/// `__launch_bounds__(threads, blocks)` on CUDA (MATMUL_MIN_BLOCKS), `-cl-nv-maxrregcount` on
/// NVIDIA's OpenCL, nothing elsewhere. `split_k` above 1 (MATMUL_SPLIT_K) splits K among that many
/// blocks for each tile of C, each writing its partial product to a workspace that a second kernel
/// (matmul_sum_splits) adds up in a fixed order: a product of too few tiles for the SMs then still
/// fills them.
struct BlockedTiles {
    std::size_t bm = 128;
    std::size_t bn = 128;
    std::size_t bk = 8;
    std::size_t tm = 8;
    std::size_t tn = 8;
    std::size_t blocks_per_sm = 1;
    std::size_t split_k = 1;

    std::size_t threads() const { return (bm / tm) * (bn / tn); }
    /// "128x128x8/8x8", then "@2" for two blocks an SM and "/k4" for K split in four
    std::string name() const;
    /// Why the kernel cannot be built with these sizes (a tile that does not divide, a step whose
    /// loads do not share out evenly over the threads); nullopt where it can.
    std::optional<std::string> invalid_reason() const;
    bool operator==(const BlockedTiles&) const = default;
};

/// The sizes a tuner tries: 64 to 256 threads a block (at about 128 registers a thread, two blocks
/// of 256 fill an SM's register file), 4 × 4 to 8 × 8 results a thread, steps of 8 or 16; tiles of
/// 64 × 64, 64 × 32 and 32 × 32 for products too small to give every SM a 128 × 128 tile (a
/// 1024² C has 64 of those for an H100's 132 SMs); and the 128 × 128 tiles of 8 × 8 held to two
/// blocks an SM, whose registers would otherwise leave room for one; and 128 × 128 × 8 tiles (held
/// to two blocks an SM: the split's bounds take them from 127 registers to 137) and 64 × 64 tiles
/// with K split in two or four, whose blocks fill the SMs where the tiles alone cannot (a GPU's
/// search tries these for its 1024 and 2048 classes only: at 4096 the tiles make waves of their own);
/// and 128 × 128 × 16 tiles of 8 × 16 and 16 × 8 results a thread in blocks of 128 (a GPU's search
/// only), as cuBLAS's SGEMM holds 128 results a thread: on an H100 at 4096³ and 8192³, CUDA's 8 × 16
/// ran at 0.93 of cuBLAS, its 8 × 8 tiles at 0.87 (249 registers, two blocks an SM, no spill).
const std::vector<BlockedTiles>& blocked_candidates();

/// "128x128x8/8x8", "128x128x8/8x8@2", "128x128x8/8x8/k2" or "128x128x8/8x8@2/k2" back into
/// tiles; nullopt for any other text.
std::optional<BlockedTiles> parse_tiles(std::string_view name);

/// The blocked variant's `tiles` setting: "auto" (tuned_tiles) first, then each candidate's name,
/// so that two devices or APIs can be compared at the same tiles.
std::vector<std::string> tile_choices();

/// The square product a tuner times each candidate on for a product of `shape`, its size class:
/// on a GPU the first of 1024, 2048 and 4096 that C's larger side does not pass, and 4096 for
/// larger ones (several waves of tiles over every SM, as large products run), since the best tiles
/// for a product of too few tiles are not those of one of many; 256 elsewhere (a CPU device takes
/// seconds for larger ones).
std::size_t tuning_size(DeviceType type, const Shape& shape);

/// Device memory a split-K workspace of a queue can take for products of `shape` at most: with
/// `tiles` "auto", the largest split's m × n floats where a GPU's tuner may choose a split (see
/// blocked_candidates()), else none; with tiles named (the `tiles` setting), their split's.
std::uint64_t split_workspace_bytes(const Shape& shape, std::string_view tiles = "auto");

/// The candidates a search for products of `size`³ on `device` times: split K on a GPU at 2048³
/// and below only; blocks an SM (`@2`) only where that is a register ceiling (CUDA, NVIDIA's
/// OpenCL), since elsewhere it builds the same code as its twin without it; thread tiles of 128
/// results on a GPU only.
std::vector<BlockedTiles> search_candidates(const Device& device, std::size_t size);

/// The blocked kernel's tiles for products of `shape` on `device`: the tuner's choice for its size
/// class (tuning_size) kept in the kernel cache (keyed by the device, its driver, the class, the
/// candidates searched and matmul's kernel sources), else a search now over search_candidates(),
/// each the best of three products of the class's size, whose winner is stored for later runs. A
/// candidate the device cannot build or launch is passed over; if none can run, the defaults.
BlockedTiles tuned_tiles(const Device& device, const Shape& shape);

/// Builds the kernels (or opens the vendor BLAS) once per device and variant; runs are then cheap.
class Launcher {
public:
    /// NotFound for an unknown variant; Unsupported where the device cannot run it (a tile above
    /// the kernel's block limit, a BLAS library this build lacks). `tiles` applies to the blocked
    /// variant (other sizes than the defaults build the kernel with those defines: through NVRTC
    /// on CUDA); InvalidArgument for sizes the kernel cannot take.
    Launcher(const Device& device, const std::string& variant, const BlockedTiles& tiles = {});
    ~Launcher();
    Launcher(const Launcher&) = delete;
    Launcher& operator=(const Launcher&) = delete;

    /// Enqueues C = A × B; returns without waiting. InvalidArgument when a matrix has 2^32
    /// elements or more (the kernels index with 32-bit integers) or a buffer is too small. With K
    /// split, each queue has a workspace of its own (split_k × m × n floats, made on the queue's
    /// first product that needs more), so that several queues may run one launcher at once.
    void run(Queue& queue, const Buffer<float>& a, const Buffer<float>& b, const Buffer<float>& c,
             const Shape& shape) const;

private:
    /// The queue's workspace of at least `elements` floats (a handle to it); a smaller one is
    /// replaced once the queue has finished with it. Called with workspaces_mutex_ held.
    Buffer<float> workspace(Queue& queue, std::size_t elements) const;

    Kernel kernel_;
    /// The blocked kernel for K and N multiples of 4 (its float4 paths alone); none for the others.
    Kernel aligned_kernel_;
    Dim3 block_; ///< threads a block, x along the columns of C
    Dim3 tile_;  ///< the tile of C a block computes: columns, rows
    std::size_t split_k_ = 1;
    Kernel sum_splits_; ///< where K is split

    mutable std::mutex workspaces_mutex_;
    mutable std::map<void*, Buffer<float>> workspaces_; ///< by the queue's native handle

    std::unique_ptr<VendorBlas> blas_;
};

/// The CPU reference: C = A × B by the i-k-j loop, accumulated in double.
void reference(std::span<const float> a, std::span<const float> b, std::span<double> c, const Shape& shape);
/// The same loop for the listed rows of C only; `c` holds rows.size() rows of n.
void reference_rows(std::span<const float> a, std::span<const float> b, std::span<const std::size_t> rows,
                    std::span<double> c, const Shape& shape);

/// Products of this many multiply-adds or more (all of a batch together) are checked on a sample
/// of rows, so that the CPU reference stays within seconds.
inline constexpr double full_check_limit = 1ull << 30;

/// How many rows of C the check compares: m below full_check_limit; otherwise about
/// full_check_limit multiply-adds' worth (2 at least).
std::size_t rows_checked(const Shape& shape, std::size_t batch);

/// The rows of C the check compares, rows_checked() of them: all of them below full_check_limit;
/// otherwise the first, the last and rows drawn from `seed`.
std::vector<std::size_t> rows_to_check(const Shape& shape, std::size_t batch, std::uint64_t seed);

/// Largest |c - want| / Σ_k |a_ik·b_kj| over the listed rows, where `c` is the whole m × n result
/// and `want` the reference's rows. NaN (the poison of an unwritten element) gives infinity.
double max_error(std::span<const float> c, std::span<const double> want, std::span<const float> a,
                 std::span<const float> b, std::span<const std::size_t> rows, const Shape& shape);

/// What max_error may reach, and why: the float accumulation of K products.
double tolerance(const Shape& shape);
std::string tolerance_reason(bool sampled);

/// The check of a batch of products of one shape, A and B of every product end to end as drawn,
/// and every C likewise: the reference's rows (rows_to_check) of each product, kept in double, and
/// each result's error against them.
class BatchCheck {
public:
    BatchCheck(const Shape& shape, std::size_t products);
    /// Host memory the reference's rows take.
    static std::uint64_t host_bytes(const Shape& shape, std::size_t products);
    /// The CPU reference: rows_to_check(seed) of each product of `a` and `b` (which must outlive
    /// the check), kept, and written in float to those rows of `expected`; the others untouched.
    void reference(std::span<const float> a, std::span<const float> b, std::uint64_t seed, std::span<float> expected);
    /// The rows the reference left out take the result's own values, `c`'s, in `expected`.
    void fill_unchecked(std::span<const float> c, std::span<float> expected) const;
    /// The largest max_error of any product of `c` against the reference's rows.
    double max_error(std::span<const float> c) const;

private:
    Shape shape_;
    std::size_t products_;
    std::vector<std::size_t> rows_;
    std::vector<double> want_; ///< rows_ of each product, one product after another
    std::span<const float> a_, b_;
};

} // namespace duet::matmul
