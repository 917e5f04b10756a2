// The on-disk program cache: a build writes an entry under DUET_CACHE_DIR, a later build on a
// fresh registry loads it (and still works); an entry damaged in any way (truncated anywhere, a
// flipped bit, too long, a directory, link or FIFO in its place, someone else's) is never handed to
// the driver but rebuilt and replaced by a valid one; a directory that cannot be trusted or created
// is not used, and builds go on without it; DUET_CACHE takes only its documented values; listings
// name every kernel of a source.
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>

#include <gmock/gmock.h>
#include <sys/stat.h>
#include <unistd.h>

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

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using Snapshot = std::map<std::filesystem::path, std::filesystem::file_time_type>;

Snapshot snapshot(const std::filesystem::path& directory)
{
    Snapshot files;
    for (const auto& file : files_below(directory)) {
        files[file] = std::filesystem::last_write_time(file);
    }
    return files;
}

/// The one cache entry (a <hash>.bin file) in `directory`; empty, with a test failure, when not exactly one.
fs::path only_entry(const fs::path& directory)
{
    std::vector<fs::path> entries;
    for (const auto& file : files_below(directory)) {
        if (file.extension() == ".bin") {
            entries.push_back(file);
        }
    }
    EXPECT_EQ(entries.size(), 1u) << "cache entries in " << directory;
    return entries.size() == 1 ? entries[0] : fs::path();
}

/// What list_kernel_cache() says of `path`; a file the listing lacks is reported as missing.
KernelCacheFile listed(const fs::path& path)
{
    for (auto& file : list_kernel_cache().files) {
        if (file.path == path) {
            return file;
        }
    }
    KernelCacheFile missing;
    missing.problem = "not listed";
    return missing;
}

std::string read_file(const fs::path& path)
{
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& content)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

/// Where an entry's parts end: "duet-program-cache 2\n", then "<key bytes> <binary bytes> <checksum>\n",
/// the key and the binary (core/src/cache.cpp).
struct Layout {
    std::size_t magic_end;
    std::size_t header_end;
    std::size_t key_end;
    std::size_t size;
};

Layout layout_of(const fs::path& entry)
{
    const std::string content = read_file(entry);
    Layout layout{};
    layout.magic_end = content.find('\n') + 1;
    layout.header_end = content.find('\n', layout.magic_end) + 1;
    layout.key_end = layout.header_end + std::stoull(content.substr(layout.magic_end));
    layout.size = content.size();
    EXPECT_EQ(content.substr(0, layout.magic_end), "duet-program-cache 2\n");
    EXPECT_LT(layout.key_end, layout.size) << "an entry with no binary";
    return layout;
}

void flip_bit(const fs::path& entry, std::size_t offset)
{
    std::string content = read_file(entry);
    ASSERT_LT(offset, content.size());
    content[offset] = static_cast<char>(content[offset] ^ 0x01);
    write_file(entry, content);
}

void replace_with_directory(const fs::path& entry, bool empty)
{
    fs::remove(entry);
    fs::create_directory(entry);
    if (!empty) {
        write_file(entry / "inside", "a file in a directory where an entry should be");
    }
}

void replace_with_link(const fs::path& entry, const fs::path& target)
{
    fs::remove(entry);
    fs::create_symlink(target, entry);
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

    // Builds the probe in a fresh registry, as a new process would, and runs it.
    void build_and_check_anew(const CacheProbe& probe)
    {
        const Registry fresh(Registry::default_search_path());
        const Device again = fresh_device(fresh, device());
        check_probe(again, again.build(probe.source));
    }

    // Writes the probe's entry, damages it, and checks that the next build still runs correctly, that
    // the damage was seen, and that the entry was replaced by a valid one which the build after loads.
    // `afterwards` looks at the cache directory last.
    void expect_recovery(const std::function<void(const fs::path& entry, const Layout& layout)>& damage,
                         const std::function<void(const fs::path& directory)>& afterwards = {})
    {
        TempDir cache;
        const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
        const ScopedEnv on("DUET_CACHE", std::nullopt);
        const CacheProbe probe;
        (void)device().build(probe.source);
        const fs::path entry = only_entry(cache.path());
        ASSERT_FALSE(entry.empty());
        ASSERT_TRUE(listed(entry).valid()) << listed(entry).problem;
        damage(entry, layout_of(entry));
        EXPECT_FALSE(listed(entry).valid()) << "the damage went unnoticed";

        build_and_check_anew(probe);
        const KernelCacheFile rebuilt = listed(entry);
        EXPECT_TRUE(rebuilt.valid()) << "after the rebuild: " << rebuilt.problem;
        EXPECT_EQ(fs::symlink_status(entry).type(), fs::file_type::regular);
        const auto written = fs::last_write_time(entry);
        build_and_check_anew(probe);
        EXPECT_EQ(fs::last_write_time(entry), written) << "the rebuilt entry was not loaded but written again";
        if (afterwards) {
            afterwards(cache.path());
        }
    }
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

TEST_P(CacheConformance, ATunersChoiceIsKeptPerSourceAndListed)
{
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    EXPECT_FALSE(load_tuning(device(), "probe tiles", "source one")) << "an empty cache holds a choice";
    store_tuning(device(), "probe tiles", "source one", "16x16");
    EXPECT_EQ(load_tuning(device(), "probe tiles", "source one"), std::optional<std::string>("16x16"));
    EXPECT_FALSE(load_tuning(device(), "probe tiles", "source two")) << "a choice outlived its source";
    EXPECT_FALSE(load_tuning(device(), "other tiles", "source one")) << "a choice answered for another tuning";

    const KernelCacheListing listing = list_kernel_cache();
    ASSERT_EQ(listing.files.size(), 1u);
    EXPECT_TRUE(listing.files[0].valid()) << listing.files[0].problem;
    EXPECT_EQ(listing.files[0].format, "tuning");
    EXPECT_EQ(listing.files[0].tuning, "probe tiles: 16x16");
    EXPECT_EQ(listing.files[0].device, props().name);

    const ScopedEnv off("DUET_CACHE", "off");
    EXPECT_FALSE(load_tuning(device(), "probe tiles", "source one")) << "DUET_CACHE=off still read a choice";
}

// --- every kind of damage: rebuilt, replaced, never handed to the driver ---

TEST_P(CacheConformance, TruncatedInsideTheMagic)
{
    expect_recovery([](const fs::path& entry, const Layout&) { fs::resize_file(entry, 5); });
}

TEST_P(CacheConformance, TruncatedInsideTheHeader)
{
    expect_recovery([](const fs::path& entry, const Layout& at) { fs::resize_file(entry, at.header_end - 3); });
}

TEST_P(CacheConformance, TruncatedInsideTheKey)
{
    expect_recovery(
        [](const fs::path& entry, const Layout& at) { fs::resize_file(entry, (at.header_end + at.key_end) / 2); });
}

TEST_P(CacheConformance, TruncatedInsideTheBinary)
{
    expect_recovery([](const fs::path& entry, const Layout& at) { fs::resize_file(entry, at.size - 64); });
}

TEST_P(CacheConformance, OneByteShort)
{
    expect_recovery([](const fs::path& entry, const Layout& at) { fs::resize_file(entry, at.size - 1); });
}

TEST_P(CacheConformance, CutInHalf)
{
    expect_recovery([](const fs::path& entry, const Layout& at) { fs::resize_file(entry, at.size / 2); });
}

TEST_P(CacheConformance, OneByteTooLong)
{
    expect_recovery([](const fs::path& entry, const Layout&) { std::ofstream(entry, std::ios::app) << '\0'; });
}

TEST_P(CacheConformance, BitFlipInTheMagic)
{
    expect_recovery([](const fs::path& entry, const Layout&) { flip_bit(entry, 2); });
}

TEST_P(CacheConformance, BitFlipInTheLengths)
{
    expect_recovery([](const fs::path& entry, const Layout& at) { flip_bit(entry, at.magic_end); });
}

TEST_P(CacheConformance, BitFlipInTheChecksum)
{
    expect_recovery([](const fs::path& entry, const Layout& at) { flip_bit(entry, at.header_end - 2); });
}

TEST_P(CacheConformance, BitFlipInTheKey)
{
    expect_recovery([](const fs::path& entry, const Layout& at) { flip_bit(entry, (at.header_end + at.key_end) / 2); });
}

TEST_P(CacheConformance, BitFlipInTheBinary)
{
    expect_recovery([](const fs::path& entry, const Layout& at) { flip_bit(entry, (at.key_end + at.size) / 2); });
}

TEST_P(CacheConformance, ZeroLength)
{
    expect_recovery([](const fs::path& entry, const Layout&) { fs::resize_file(entry, 0); });
}

TEST_P(CacheConformance, AnEntryOfTheOlderFormatIsAMiss)
{
    // Format 1 had no lengths or checksum: "duet-program-cache 1\n<key bytes>\n<key><binary>".
    expect_recovery([](const fs::path& entry, const Layout& at) {
        const std::string content = read_file(entry);
        write_file(entry, "duet-program-cache 1\n" + std::to_string(at.key_end - at.header_end) + "\n" +
                              content.substr(at.header_end));
    });
}

TEST_P(CacheConformance, AnEmptyDirectoryInItsPlace)
{
    expect_recovery([](const fs::path& entry, const Layout&) { replace_with_directory(entry, true); });
}

TEST_P(CacheConformance, ADirectoryWithFilesInItsPlaceIsMovedAside)
{
    expect_recovery([](const fs::path& entry, const Layout&) { replace_with_directory(entry, false); },
                    [](const fs::path& directory) {
                        std::vector<KernelCacheFile> temporary;
                        for (const auto& file : list_kernel_cache().files) {
                            if (file.kind == KernelCacheFile::Kind::temporary) {
                                temporary.push_back(file);
                            }
                        }
                        ASSERT_EQ(temporary.size(), 1u) << "the directory moved aside";
                        EXPECT_TRUE(fs::exists(temporary[0].path / "inside")) << "moved, with what it held";
                        EXPECT_EQ(temporary[0].path.parent_path(), directory);
                        EXPECT_EQ(clear_kernel_cache().removed, 2u) << "the entry and the directory moved aside";
                    });
}

TEST_P(CacheConformance, ADanglingLinkInItsPlace)
{
    expect_recovery([](const fs::path& entry, const Layout&) { replace_with_link(entry, entry.string() + ".gone"); });
}

TEST_P(CacheConformance, ALinkToDevZeroInItsPlace)
{
    expect_recovery([](const fs::path& entry, const Layout&) { replace_with_link(entry, "/dev/zero"); });
}

TEST_P(CacheConformance, ALinkToAValidEntryIsNotFollowed)
{
    expect_recovery([](const fs::path& entry, const Layout&) {
        const fs::path elsewhere = entry.string() + ".elsewhere";
        fs::rename(entry, elsewhere);
        fs::create_symlink(elsewhere, entry);
    });
}

TEST_P(CacheConformance, AFifoInItsPlace)
{
    expect_recovery([](const fs::path& entry, const Layout&) {
        fs::remove(entry);
        ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0) << std::strerror(errno);
    });
}

TEST_P(CacheConformance, AnEntryOthersMayWriteIsNotTrusted)
{
    expect_recovery([](const fs::path& entry, const Layout&) {
        fs::permissions(entry, fs::perms::group_write | fs::perms::others_write, fs::perm_options::add);
    });
}

TEST_P(CacheConformance, AnEntryOfAnotherUserIsNotTrusted)
{
    if (::geteuid() != 0) {
        GTEST_SKIP() << "giving a file to another user needs root";
    }
    expect_recovery([](const fs::path& entry, const Layout&) { ASSERT_EQ(::chown(entry.c_str(), 65534, 65534), 0); });
}

// --- the directory ---

TEST_P(CacheConformance, CreatesItsDirectoryAndEntriesForTheUserAlone)
{
    TempDir base;
    const fs::path directory = base.path() / "made" / "by" / "duet";
    const ScopedEnv dir("DUET_CACHE_DIR", directory.string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    const CacheProbe probe;
    check_probe(device(), device().build(probe.source));
    for (const auto& made : {base.path() / "made", directory}) {
        EXPECT_EQ(fs::status(made).permissions(), fs::perms::owner_all) << made;
    }
    EXPECT_EQ(fs::status(only_entry(directory)).permissions(), fs::perms::owner_read | fs::perms::owner_write);
}

// Each way a directory is unusable: the build still runs, nothing is written, the status says why.
class UnusableCacheDirectory : public CacheConformance {
protected:
    void expect_unused(const fs::path& directory, const std::string& reason)
    {
        const ScopedEnv dir("DUET_CACHE_DIR", directory.string());
        const ScopedEnv on("DUET_CACHE", std::nullopt);
        const KernelCacheStatus status = kernel_cache_status();
        EXPECT_EQ(status.state, KernelCacheStatus::State::unusable);
        EXPECT_THAT(status.reason, HasSubstr(directory.string()));
        EXPECT_THAT(status.reason, HasSubstr(reason));
        const CacheProbe probe;
        check_probe(device(), device().build(probe.source));
        EXPECT_THROW(list_kernel_cache(), Error);
        EXPECT_THROW(clear_kernel_cache(), Error);
    }
};

TEST_P(UnusableCacheDirectory, UnderARegularFile)
{
    TempDir base;
    write_file(base.path() / "file", "a file, not a directory");
    expect_unused(base.path() / "file" / "cache", "is not a directory");
    EXPECT_EQ(files_below(base.path()), std::vector<fs::path>{base.path() / "file"});
}

TEST_P(UnusableCacheDirectory, WritableByOthers)
{
    TempDir cache;
    fs::permissions(cache.path(), fs::perms::all);
    expect_unused(cache.path(), "writable by others (mode 0777)");
    EXPECT_TRUE(files_below(cache.path()).empty());
}

TEST_P(UnusableCacheDirectory, OwnedByAnotherUser)
{
    if (::geteuid() != 0) {
        GTEST_SKIP() << "giving a directory to another user needs root";
    }
    TempDir cache;
    ASSERT_EQ(::chown(cache.path().c_str(), 65534, 65534), 0);
    expect_unused(cache.path(), "owned by uid 65534");
    EXPECT_TRUE(files_below(cache.path()).empty());
}

TEST_P(UnusableCacheDirectory, WithoutPermissionToCreateIt)
{
    if (::geteuid() == 0) {
        GTEST_SKIP() << "root may write anywhere";
    }
    TempDir base;
    fs::permissions(base.path(), fs::perms::owner_read | fs::perms::owner_exec);
    expect_unused(base.path() / "cache", "Permission denied");
    fs::permissions(base.path(), fs::perms::owner_all);
}

// --- the setting ---

TEST_P(CacheConformance, DuetCacheTakesOnlyItsDocumentedValues)
{
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    for (const char* on : {"on", "1", ""}) {
        const ScopedEnv setting("DUET_CACHE", on);
        EXPECT_EQ(kernel_cache_status().state, KernelCacheStatus::State::on) << "DUET_CACHE=" << on;
    }
    for (const char* off : {"off", "0"}) {
        const ScopedEnv setting("DUET_CACHE", off);
        EXPECT_EQ(kernel_cache_status().state, KernelCacheStatus::State::off) << "DUET_CACHE=" << off;
        EXPECT_EQ(kernel_cache_status().reason, std::string("DUET_CACHE=") + off);
    }
    const CacheProbe probe;
    for (const char* bad : {"maybe", "ON", "yes", " 1"}) {
        const ScopedEnv setting("DUET_CACHE", bad);
        try {
            (void)kernel_cache_status();
            ADD_FAILURE() << "DUET_CACHE=" << bad << " was accepted";
        } catch (const InvalidArgument& error) {
            EXPECT_THAT(error.message(), HasSubstr(std::string("DUET_CACHE='") + bad + "'"));
            EXPECT_THAT(error.message(), HasSubstr("accepted values: on or 1 (the default), off or 0"));
        }
        EXPECT_THROW((void)device().build(probe.source), InvalidArgument) << "DUET_CACHE=" << bad;
    }
    EXPECT_TRUE(files_below(cache.path()).empty());
}

// --- listing and clearing ---

TEST_P(CacheConformance, ListingNamesEveryKernelOfASourceWithAttributes)
{
    if (device().backend() != "opencl") {
        GTEST_SKIP() << "an OpenCL C source; declared_kernels is checked for CUDA sources below";
    }
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    const CacheProbe probe; // its nonce makes the source new to every cache
    const std::string opencl =
        probe.opencl +
        "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void fixed(__global float* out) { out[0] = 1.0f; }\n"
        "kernel void __attribute__((vec_type_hint(float4))) hinted(__global float* out) { out[0] = 2.0f; }\n";
    const Program program = device().build(ProgramSource{"attributes", {{ProgramFormat::opencl_c, opencl}}});
    ASSERT_EQ(program.kernel_names().size(), 3u);
    const KernelCacheFile file = listed(only_entry(cache.path()));
    EXPECT_TRUE(file.valid()) << file.problem;
    EXPECT_EQ(file.kernels, (std::vector<std::string>{"probe", "fixed", "hinted"}));
    EXPECT_EQ(file.backend, "opencl");
    EXPECT_EQ(file.device, device().properties().name);
    EXPECT_EQ(file.format, "opencl_c");
}

TEST_P(CacheConformance, ListingMarksDamageAndLeftoversAndClearRemovesOnlyDuetFiles)
{
    TempDir cache;
    const ScopedEnv dir("DUET_CACHE_DIR", cache.path().string());
    const ScopedEnv on("DUET_CACHE", std::nullopt);
    const CacheProbe probe, other;
    (void)device().build(probe.source);
    const fs::path valid = only_entry(cache.path());
    (void)device().build(other.source);
    const auto both = files_below(cache.path());
    ASSERT_EQ(both.size(), 2u);
    const fs::path damaged = both[0] == valid ? both[1] : both[0];
    fs::resize_file(damaged, fs::file_size(damaged) - 1);
    const fs::path temporary = damaged.string() + ".tmp.1234.5678";
    write_file(temporary, "an interrupted write");
    const fs::path notes = cache.path() / "notes.txt";
    write_file(notes, "not duet's");

    const KernelCacheListing listing = list_kernel_cache();
    EXPECT_EQ(listing.status.state, KernelCacheStatus::State::on);
    EXPECT_EQ(listing.files.size(), 4u);
    EXPECT_TRUE(listed(valid).valid()) << listed(valid).problem;
    EXPECT_EQ(listed(damaged).problem, "truncated: 1 byte short");
    EXPECT_EQ(listed(damaged).kernels, std::vector<std::string>{"probe"}) << "the key is intact and still read";
    EXPECT_EQ(listed(temporary).kind, KernelCacheFile::Kind::temporary);
    EXPECT_EQ(listed(notes).kind, KernelCacheFile::Kind::other);

    const KernelCacheClearance clearance = clear_kernel_cache();
    EXPECT_EQ(clearance.removed, 3u);
    EXPECT_EQ(clearance.kept, 1u);
    EXPECT_TRUE(clearance.failures.empty());
    EXPECT_EQ(files_below(cache.path()), std::vector<fs::path>{notes});
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(CacheConformance);
DUET_INSTANTIATE_FOR_EACH_DEVICE(UnusableCacheDirectory);

// --- the kernels a source declares ---

TEST(DeclaredKernels, OpenClWithAttributesAnywhere)
{
    EXPECT_EQ(
        declared_kernels("// __kernel void commented(int a) {}\n"
                         "/* kernel void also_commented(int a) {} */\n"
                         "#define KERNEL_NAME(x) __kernel void x(int a)\n"
                         "__kernel void plain(__global float* a) {}\n"
                         "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void before(__global float* a) {}\n"
                         "kernel void __attribute__((work_group_size_hint(8, (1), 1))) after(int a) {}\n"
                         "__attribute__((vec_type_hint(float4))) __kernel void leading(int a) {}\n"
                         "float helper(float kernel) { return kernel; }\n"
                         "__kernel\nvoid\nsplit_over_lines\n(int a) {}\n"
                         "const char* text = \"__kernel void in_a_string(int a)\";\n"),
        (std::vector<std::string>{"plain", "before", "after", "leading", "split_over_lines"}));
}

TEST(DeclaredKernels, CudaWithLaunchBoundsAndExternC)
{
    EXPECT_EQ(declared_kernels("extern \"C\" __global__ void plain(float* a) {}\n"
                               "__global__ void __launch_bounds__(256) bounded(float* a) {}\n"
                               "extern \"C\" __global__ __launch_bounds__(256, 2) void bounded_first(float* a) {}\n"
                               "template <int N> __global__ void templated(float* a) {}\n"
                               "__device__ void helper(float* a) {}\n"
                               "void host() { templated<4><<<1, 1>>>(nullptr); }\n"),
              (std::vector<std::string>{"plain", "bounded", "bounded_first", "templated"}));
}

TEST(DeclaredKernels, NoneInASourceWithoutKernels)
{
    EXPECT_TRUE(declared_kernels("").empty());
    EXPECT_TRUE(declared_kernels("int kernel = 3; /* unterminated").empty());
}

} // namespace
} // namespace duet::test
