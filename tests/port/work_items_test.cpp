// A launch's work-items are counted once, when the manifest is read, and a grid × block whose count
// overflows 64 bits is refused there, naming it, rather than wrapping into the length of a C
// reference's host copies and the footprint.
#include <duet/workload/manifest.hpp>

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

} // namespace
} // namespace duet::test
