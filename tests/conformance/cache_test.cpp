// The on-disk program cache: a build writes an entry under DUET_CACHE_DIR, a later build on a
// fresh registry loads it (and still works), a damaged entry is rebuilt rather than trusted, and
// the cache is off with BuildOptions::use_cache = false or DUET_CACHE=off.
#include <chrono>
#include <fstream>
#include <map>
#include <random>

#include "duet_test.hpp"

namespace duet::test {
namespace {

// out[i] = in[i] * 3 + <value>, in a source no build has seen before (so no cache answers it).
struct CacheProbe {
    std::string opencl;
    std::string cuda;
    ProgramSource source;

    CacheProbe()
    {
        std::mt19937_64 engine(std::random_device{}() ^
                               static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
        const std::string nonce = "// cache probe " + std::to_string(engine()) + "\n";
        opencl = nonce + "__kernel void probe(__global const float* in, __global float* out, const uint n)\n"
                         "{ const size_t i = get_global_id(0); if (i < n) { out[i] = in[i] * 3.0f + 1.0f; } }\n";
        cuda = nonce + "extern \"C\" __global__ void probe(const float* in, float* out, unsigned int n)\n"
                       "{ const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { out[i] = in[i] * "
                       "3.0f + 1.0f; } }\n";
        source = {"cache_probe", {{ProgramFormat::opencl_c, opencl}, {ProgramFormat::cuda_c, cuda}}};
    }
    CacheProbe(const CacheProbe&) = delete;
};

using Snapshot = std::map<std::filesystem::path, std::filesystem::file_time_type>;

Snapshot snapshot(const std::filesystem::path& directory)
{
    Snapshot files;
    for (const auto& file : files_below(directory)) {
        files[file] = std::filesystem::last_write_time(file);
    }
    return files;
}

class CacheConformance : public DeviceTest {
protected:
    // Launches probe from `program` on `device` and checks its output.
    void check_probe(const Device& device, const Program& program)
    {
        Queue queue = device.create_queue();
        const std::vector<float> values = random_integral_floats(513, test_seed());
        Buffer<float> in = make_buffer(device, queue, values);
        Buffer<float> out = device.alloc<float>(values.size());
        queue.fill(BufferView<float>(out), poison());
        queue.launch(program.kernel("probe"), Range::cover(values.size(), 32), in, out,
                     static_cast<std::uint32_t>(values.size()));
        std::vector<float> expected = values;
        for (float& v : expected) {
            v = v * 3.0f + 1.0f; // integer-valued: exact everywhere
        }
        EXPECT_TRUE(bitwise_equal(expected, download(queue, out)));
    }

    // This test's device in a registry of its own: nothing built in this process is cached for it.
    static Device fresh_device(const Registry& fresh, const Device& like) { return fresh.select(like.selector()); }
};

TEST_P(CacheConformance, BuildWritesAnEntryThatAFreshRegistryLoads)
{
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    const CacheProbe probe;

    check_probe(device(), device().build(probe.source));
    const Snapshot written = snapshot(cache.path());
    ASSERT_FALSE(written.empty()) << "building with DUET_CACHE_DIR=" << cache.path() << " wrote no file";

    const Registry fresh(Registry::default_search_path());
    const Device again = fresh_device(fresh, device());
    check_probe(again, again.build(probe.source));
    EXPECT_EQ(snapshot(cache.path()), written) << "the second build rewrote the cache instead of loading it";
}

TEST_P(CacheConformance, DamagedEntryIsRebuiltNotTrusted)
{
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    const CacheProbe probe;
    (void)device().build(probe.source);
    const auto files = files_below(cache.path());
    ASSERT_FALSE(files.empty()) << "no cache entry written";
    for (const auto& file : files) {
        std::ofstream(file, std::ios::binary | std::ios::trunc) << "damaged duet cache entry";
    }
    const Registry fresh(Registry::default_search_path());
    const Device again = fresh_device(fresh, device());
    check_probe(again, again.build(probe.source));
}

TEST_P(CacheConformance, UseCacheFalseWritesNothing)
{
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    const CacheProbe probe;
    BuildOptions options;
    options.use_cache = false;
    check_probe(device(), device().build(probe.source, options));
    EXPECT_TRUE(files_below(cache.path()).empty()) << "use_cache = false still wrote " << files_below(cache.path())[0];
}

TEST_P(CacheConformance, DuetCacheOffWritesNothing)
{
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv off("DUET_CACHE", "off");
    const CacheProbe probe;
    check_probe(device(), device().build(probe.source));
    EXPECT_TRUE(files_below(cache.path()).empty()) << "DUET_CACHE=off still wrote " << files_below(cache.path())[0];
}

TEST_P(CacheConformance, DifferentOptionsAreDifferentEntries)
{
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    const CacheProbe probe;
    (void)device().build(probe.source);
    const std::size_t one = files_below(cache.path()).size();
    BuildOptions options;
    options.defines = {{"DUET_UNUSED_DEFINE", "1"}};
    (void)device().build(probe.source, options);
    EXPECT_GT(files_below(cache.path()).size(), one) << "a build with other defines did not get an entry of its own";
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(CacheConformance);

} // namespace
} // namespace duet::test
