// A launch's work-items are counted once, when the manifest is read, and a grid × block whose count
// overflows 64 bits is refused there, naming it, rather than wrapping into the length of a C
// reference's host copies and the footprint.
#include <duet/manifest.hpp>

#include <filesystem>

#include "duet_test.hpp"
#include "manifest_files.hpp"

namespace duet::test {
namespace {

TEST(WorkItems, WorkItemsThatOverflowACountAreRefusedNamingThem)
{
    // 2^32 × 2^32 × 2 work-items wrap to 0 in 64 bits, which x's `index = "item"` would accept.
    const std::string huge = "[\"4294967296\", \"4294967296\", \"2\"]\nblock = [1, 1, 1]";
    const std::pair<std::string, std::string> cases[] = {
        {"grid = " + huge, "bad.duet.toml:17: launch: the launch's work-items (grid × block) overflow a 64-bit count"},
        {"domain = " + huge, "bad.duet.toml:17: launch: the domain's work-items overflow a 64-bit count"}};
    for (const auto& [launch, expected] : cases) {
        TempDir dir;
        const auto message = refusal(manifest_with(dir, "domain = [\"n\"]\nblock = [256]", launch));
        EXPECT_NE(message.find(expected), std::string::npos) << message;
    }
}

// A C reference's host copies are as long as the launch (Buffers::initial): 2^62 work-items, which
// fit 64 bits, of float would wrap (2^62 + sentinels) × 4 bytes to 4 KiB, a footprint that fits and
// a copy the reference writes past. Such a launch is refused, naming the limit.
TEST(WorkItems, WorkItemsWhoseReferenceCopyOverflowsAreRefusedNamingTheLimit)
{
    TempDir dir;
    const std::string launch = "domain = [\"n\"]\nblock = [256]\n";
    const auto path = manifest_with(
        dir, {{", index = \"item\"", ""},
              {launch, "grid = [\"4611686018427387904\"]\nblock = [1]\n"},
              {"args = [\"n\", \"a\", \"x\", \"y\"]\n",
               "args = [\"n\", \"a\", \"x\", \"y\"]\n[reference]\nlibrary = \"lib.so\"\nfunction = \"saxpy\"\n"}});
    std::filesystem::copy_file(std::filesystem::path(DUET_PORTS_DIR) / "saxpy" / "libsaxpy_reference.so",
                               dir.path() / "lib.so");
    const auto message = refusal(path);
    const std::string expected = "bad.duet.toml:17: launch: 4611686018427387904 work-items overflow a 64-bit size in "
                                 "bytes for the C reference's copy of buffer 'x' (float): at most 4611686018427387647";
    EXPECT_NE(message.find(expected), std::string::npos) << message;
}

} // namespace
} // namespace duet::test
