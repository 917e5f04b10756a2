// access as a workload: the spec the kit runs. The runner draws the input (n rows of `stride`
// floats) and, for the random pattern, a permutation of the rows, and checks the output against
// the CPU reference. Its figures put the kernel's bandwidth beside a device-to-device copy's,
// measured in the same run: swept over the stride, per load path and device, the coalescing table.
#include "access.hpp"

#include <duet/workload/kit.hpp>

#include <cstdint>
#include <memory>

namespace duet::access {
namespace {

using namespace duet::workload;

std::size_t n(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

std::size_t stride(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("stride"));
}

Pattern pattern(const Settings& settings)
{
    return settings.text("pattern") == "random" ? Pattern::random : Pattern::strided;
}

Path path(const std::string& variant)
{
    return variant == "plain"      ? Path::plain
           : variant == "restrict" ? Path::restricted
           : variant == "ldg"      ? Path::ldg
                                   : Path::constant;
}

CachePreference cache_preference(const std::string& name)
{
    return name == "prefer_l1"       ? CachePreference::prefer_l1
           : name == "prefer_shared" ? CachePreference::prefer_shared
           : name == "equal"         ? CachePreference::equal
                                     : CachePreference::none;
}

/// Rows of the index: n for the random pattern, else one (never read; a buffer cannot be empty).
std::size_t index_rows(const Settings& settings)
{
    return pattern(settings) == Pattern::random ? n(settings) : 1;
}

/// Bytes usefully moved: each of the n floats read once and written once, and for the random
/// pattern its index. The rest of each sector a strided or scattered read fetches is the waste the
/// table shows, so it is not counted.
double bytes_moved(const Settings& settings)
{
    const double index_bytes = pattern(settings) == Pattern::random ? sizeof(std::uint32_t) : 0.0;
    return n(settings) * (2.0 * sizeof(float) + index_bytes);
}

Spec spec()
{
    Spec spec;
    spec.info = {
        .name = "access",
        .description =
            "out[i] = in[row * stride] for n floats, the input n rows of `stride` floats, row i (pattern=strided) or a "
            "random permutation's (pattern=random), through each load path: plain, const restrict, __ldg (CUDA), "
            "__constant (OpenCL); GB/s counts the n floats read and written and the random pattern's index, not the "
            "rest of the sectors fetched",
        .variants = {"plain", "restrict", "ldg", "constant"},
        // n × stride, the input's floats, stays within the kernels' 32-bit indices at both maxima.
        .parameters =
            {integer_parameter("n", 1 << 24, 1, std::int64_t{1} << 27, "floats read and written: rows of the input"),
             integer_parameter("stride", 1, 1, 32,
                               "floats from one row to the next: a warp's 32 reads span 32 × stride floats; 8 and up, "
                               "each read is a 32-byte sector of its own"),
             choice_parameter("pattern", {"strided", "random"},
                              "strided: thread i reads row i; random: row index[i], a permutation drawn from the seed"),
             choice_parameter("cache", {"none", "prefer_l1", "prefer_shared", "equal"},
                              "L1/shared memory split asked for with cuFuncSetCacheConfig; OpenCL has no such control, "
                              "so anything but none is unsupported there"),
             integer_parameter("block", 256, 1, 1024, "threads (work-items) per block")},
        // Tiny; odd strides and sizes not a multiple of the block; every power-of-two stride to
        // 32; inputs just within and just past NVIDIA's 64 KiB of constant memory (512 × 32 and
        // 513 × 32 floats); the random gather, dense and spread; larger sizes; every cache
        // preference (unsupported on OpenCL). Modest: PoCL on two cores runs each on every path.
        .test_cases = {{{"n", "1"}},
                       {{"n", "1"}, {"stride", "32"}, {"pattern", "random"}},
                       {{"n", "5"}, {"stride", "3"}},
                       {{"n", "37"}, {"stride", "2"}, {"block", "1"}},
                       {{"n", "1000"}, {"stride", "4"}, {"block", "64"}},
                       {{"n", "777"}, {"stride", "8"}, {"block", "96"}},
                       {{"n", "1001"}, {"stride", "16"}},
                       {{"n", "512"}, {"stride", "32"}},
                       {{"n", "513"}, {"stride", "32"}},
                       {{"n", "4099"}, {"pattern", "random"}, {"block", "128"}},
                       {{"n", "1003"}, {"stride", "7"}, {"pattern", "random"}},
                       {{"n", "1000003"}},
                       {{"n", "100003"}, {"stride", "32"}},
                       {{"n", "262147"}, {"stride", "2"}, {"pattern", "random"}},
                       {{"n", "1000"}, {"cache", "prefer_l1"}},
                       {{"n", "1000"}, {"cache", "prefer_shared"}, {"pattern", "random"}},
                       {{"n", "1000"}, {"stride", "32"}, {"cache", "equal"}}},
    };
    // Allocated exactly: the constant path's whole buffer must fit the device's constant memory.
    BufferSpec in = input("in", [](const Settings& settings) { return n(settings) * stride(settings); });
    in.sentinels = false;
    BufferSpec index = input("index", index_rows, ElementType::u32);
    index.sentinels = false;
    index.draw = [](std::size_t rows, std::uint64_t seed) { return Values(random_rows(rows, seed)); };
    spec.buffers = {in, index, output("out", n)};
    spec.prepare = [](const Device& device, const Settings& settings, const std::string& variant) -> Launch {
        const auto launcher = std::make_shared<const Launcher>(device);
        const Path load_path = path(variant);
        const Pattern reads = pattern(settings);
        // What the device cannot do is refused here, before any buffer exists.
        if (const auto refused = launcher->refusal(load_path, n(settings) * stride(settings))) {
            throw Unsupported(device.backend(), "access", *refused);
        }
        // Set for `none` too: the program is cached per device, so the kernel keeps the
        // preference an earlier run gave it.
        const std::string& cache = settings.text("cache");
        try {
            launcher->set_cache_preference(load_path, reads, cache_preference(cache));
        } catch (const Unsupported& error) {
            throw Unsupported(error.backend(), error.call(), error.native_code(), error.native_name(),
                              "cache=" + cache + ": " + error.message());
        }
        const auto block = static_cast<std::size_t>(settings.integer("block"));
        return [launcher, load_path, reads, size = n(settings), step = stride(settings),
                block](Queue& queue, const DeviceBuffers& buffers) {
            launcher->run(queue, load_path, reads, buffers.get("in"), buffers.get<std::uint32_t>("index"),
                          buffers.get("out"), size, step, block);
        };
    };
    spec.reference = [](const Settings& settings, const HostArrays& arrays) {
        reference(pattern(settings), arrays.in("in"), arrays.in<std::uint32_t>("index"), arrays.out("out"),
                  stride(settings));
    };
    spec.bytes = bytes_moved;
    spec.flops = [](const Settings&) { return 0.0; }; // a gather: loads and stores, no arithmetic
    spec.unit = Measurement::Unit::bytes;
    spec.tolerance = [](const Settings&) {
        return Tolerance{0, "each output is a copy of one input float: any difference is a wrong read"};
    };
    // The table's yardstick: the kernel's best bandwidth against a device-to-device copy of the
    // same n floats (read once, written once).
    copy_yardstick_figures(spec, "out", [](const Settings& settings) { return n(settings) * sizeof(float); });
    return spec;
}

} // namespace
} // namespace duet::access

DUET_EXPORT_WORKLOAD_SPEC(duet::access::spec)
