// access beyond what the generic workload test can see, which counts any refusal as a pass: each
// backend lacks exactly the load path its language lacks, saying why; the constant path reads an
// input of exactly the device's constant memory and refuses one float more, naming the limit; a
// cache preference OpenCL cannot set is refused naming the setting; sizes beyond the buffers are
// refused before anything runs; and the random pattern's rows are a permutation, so it reads
// what the strided pattern reads.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "access.hpp"
#include "duet_test.hpp"
#include <duet/workload/kit.hpp>

namespace duet::test {
namespace {

TEST(AccessRandomRows, AreAPermutationDrawnFromTheSeed)
{
    const std::size_t n = 1001;
    const std::vector<std::uint32_t> rows = access::random_rows(n, test_seed());
    std::vector<std::uint32_t> identity(n);
    std::iota(identity.begin(), identity.end(), 0U);
    EXPECT_NE(rows, identity) << "not shuffled";
    std::vector<std::uint32_t> sorted = rows;
    std::ranges::sort(sorted);
    EXPECT_EQ(sorted, identity) << "a row missing or read twice";
    EXPECT_EQ(rows, access::random_rows(n, test_seed()));
    EXPECT_NE(rows, access::random_rows(n, test_seed() + 1));
}

class AccessPaths : public DeviceTest {};

TEST_P(AccessPaths, EachBackendLacksOnlyThePathItsLanguageLacks)
{
    const access::Launcher launcher(device());
    EXPECT_EQ(launcher.refusal(access::Path::plain, 1), std::nullopt);
    EXPECT_EQ(launcher.refusal(access::Path::restricted, 1), std::nullopt);
    const auto ldg = launcher.refusal(access::Path::ldg, 1);
    if (shows(known::no_ldg)) {
        ASSERT_TRUE(ldg);
        EXPECT_TRUE(mentions(*ldg, {"__ldg"})) << *ldg;
    } else {
        EXPECT_EQ(ldg, std::nullopt);
    }
    const auto constant = launcher.refusal(access::Path::constant, 1);
    if (shows(known::no_constant_input)) {
        ASSERT_TRUE(constant);
        EXPECT_TRUE(mentions(*constant, {"cuModuleGetGlobal"})) << *constant;
        EXPECT_EQ(launcher.constant_limit(), 0U);
    } else {
        EXPECT_EQ(constant, std::nullopt);
        EXPECT_GE(launcher.constant_limit(), 64U * 1024) << "OpenCL guarantees 64 KiB of constant memory";
    }
}

TEST_P(AccessPaths, TheConstantPathReadsItsLimitAndRefusesOneFloatMore)
{
    const access::Launcher launcher(device());
    if (launcher.constant_limit() == 0) {
        GTEST_SKIP() << *launcher.refusal(access::Path::constant, 1);
    }
    const std::size_t n = launcher.constant_limit() / sizeof(float);
    const std::vector<float> input = random_floats(n + 1, test_seed());
    // A buffer of exactly the limit (the kernel binds the whole buffer), and one a float larger.
    Buffer<float> at_limit = make_buffer(device(), queue(), std::vector<float>(input.begin(), input.end() - 1));
    Buffer<float> over_limit = make_buffer(device(), queue(), input);
    Buffer<std::uint32_t> index = device().alloc<std::uint32_t>(1);
    Buffer<float> out = device().alloc<float>(n + 1);
    queue().fill(out, poison());
    launcher.run(queue(), access::Path::constant, access::Pattern::strided, at_limit, index, out, n, 1);
    std::vector<float> want(input.begin(), input.end() - 1);
    want.push_back(poison());
    EXPECT_TRUE(bitwise_equal(want, download(queue(), out))) << "the input at the limit, read through __constant";

    queue().fill(out, poison());
    for (const std::size_t read : {n, n + 1}) {
        const auto error = expect_error<Unsupported>([&] {
            launcher.run(queue(), access::Path::constant, access::Pattern::strided, over_limit, index, out, read, 1);
        });
        if (error) {
            DUET_EXPECT_MENTIONS(*error, dec(launcher.constant_limit()) + " bytes of constant memory");
        }
    }
    EXPECT_TRUE(bitwise_equal(std::vector<float>(n + 1, poison()), download(queue(), out))) << "a refused run wrote";
}

TEST_P(AccessPaths, SizesBeyondTheBuffersAreRefusedBeforeAnythingRuns)
{
    const access::Launcher launcher(device());
    const std::vector<float> input = random_floats(100, test_seed());
    Buffer<float> in = make_buffer(device(), queue(), input);
    Buffer<std::uint32_t> index = device().alloc<std::uint32_t>(10);
    Buffer<float> out = device().alloc<float>(50);
    queue().fill(out, poison());
    const auto run = [&](access::Pattern pattern, std::size_t n, std::size_t stride) {
        return expect_error<InvalidArgument>(
            [&] { launcher.run(queue(), access::Path::plain, pattern, in, index, out, n, stride); });
    };
    if (const auto error = run(access::Pattern::strided, 34, 3)) { // 102 floats of input
        DUET_EXPECT_MENTIONS(*error, "102");
    }
    if (const auto error = run(access::Pattern::strided, 51, 1)) { // one more than the output
        DUET_EXPECT_MENTIONS(*error, "51");
    }
    if (const auto error = run(access::Pattern::random, 11, 1)) { // one more than the index
        DUET_EXPECT_MENTIONS(*error, "11");
    }
    EXPECT_TRUE(bitwise_equal(std::vector<float>(50, poison()), download(queue(), out)));
}

TEST_P(AccessPaths, ACachePreferenceIsSetOrRefusedNamingIt)
{
    const auto workload = WorkloadRegistry::global().find("access");
    const auto info = workload->info();
    for (const std::string cache : {"prefer_l1", "prefer_shared", "equal"}) {
        SCOPED_TRACE(cache);
        const Settings settings(info, {{"n", "1000"}, {"cache", cache}});
        const RunRequest request{device(), "restrict", settings, true, test_seed(), workload::Timing::once()};
        if (shows(known::no_cache_preference)) {
            const auto error = expect_error<Unsupported>([&] { run_within_limits(*workload, request); });
            if (error) {
                DUET_EXPECT_MENTIONS(*error, "cache=" + cache);
            }
        } else {
            EXPECT_TRUE(run_within_limits(*workload, request).matches_reference());
        }
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(AccessPaths);

} // namespace
} // namespace duet::test
