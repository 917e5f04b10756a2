// The limits a manifest's values meet, found after the first round of hardening: random bounds
// within the buffer's type and drawn without overflow, ulps only on floating-point outputs, settings
// that break the manifest refused as a bad value is (a rule), and the messages that say so: a long
// expression quoted short, a manifest that is not a file named once, a reference library that is an
// executable without an errno that is not the cause.
#include <duet/manifest.hpp>
#include <duet/workload/check.hpp>

#include "duet_test.hpp"
#include "expression.hpp"
#include "manifest_files.hpp"

#include <elf.h>

#include <cmath>
#include <fstream>

#include <sys/stat.h>

namespace duet::test {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

TEST(ManifestLimits, RandomBoundsOutsideTheBuffersTypeAreRefusedNamingItsRange)
{
    TempDir dir;
    auto message = refusal(manifest_with(dir, "random = [-1, 1]", "random = [-1, 1e39]"));
    EXPECT_TRUE(contains(message, "bad.duet.toml:12: buffers.x.init.random: [-1.0, 1e+39]: the bounds must lie "
                                  "within float's range, [-3.4028234663852886e+38, 3.4028234663852886e+38]"))
        << message;
    const std::string x = "x = { type = \"float\", count = \"n\", init = { random = [-1, 1] }";
    for (const auto& [type, bounds, range] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"uint8", "[-1, 1]", "[0, 255]"},
             {"uint8", "[0, 256]", "[0, 255]"},
             {"int32", "[0, 2147483648]", "[-2147483648, 2147483647]"},
             {"int64", "[0, 9223372036854775807]", "[-9223372036854775808, 9223372036854775807]"}}) {
        message = refusal(
            manifest_with(dir, x, "x = { type = \"" + type + "\", count = \"n\", init = { random = " + bounds + " }"));
        EXPECT_TRUE(contains(message, "bad.duet.toml:12: buffers.x.init.random: ")) << message;
        EXPECT_TRUE(contains(message, ": the bounds must lie within " + type + "'s range, " + range)) << message;
    }
    // The whole of float's range is accepted: the draw cannot overflow (FarApartBoundsDrawFiniteValues).
    EXPECT_NO_THROW(workload::load_manifest(manifest_with(dir, "random = [-1, 1]", "random = [-3.4e38, 3.4e38]")));
}

TEST(ManifestLimits, UlpsOnAnIntegerOutputAreRefusedSayingWhatToUse)
{
    TempDir dir;
    const std::string y = "y = { type = \"float\", count = \"n\", init = \"iota\", output = true";
    const std::string int_y = "y = { type = \"int32\", count = \"n\", init = \"iota\", output = true";
    for (const std::string ulps : {"0", "2"}) {
        const auto message = refusal(manifest_with(dir, y, int_y + ", tolerance = { ulps = " + ulps + " }"));
        EXPECT_TRUE(contains(message, "bad.duet.toml:13: buffers.y.tolerance.ulps: an output of int32 has no ulps "
                                      "(they count steps between floating-point values); give its tolerance as "
                                      "relative, |got - want| / max(|want|, 1)"))
            << message;
    }
    // A relative tolerance on it is read as before (the kernels then disagree with its type).
    const auto message = refusal(manifest_with(dir, y, int_y + ", tolerance = { relative = 2 }"));
    EXPECT_FALSE(contains(message, "tolerance")) << message;
}

TEST(ManifestLimits, SettingsThatBreakTheManifestBreakItsRule)
{
    TempDir dir;
    // A define that divides by zero for n = 5.
    auto info = workload::load_manifest(manifest_with(dir, "source = \"saxpy.cl\"",
                                                      "source = \"saxpy.cl\"\ndefines = { X = \"100 / (n - 5)\" }"))
                    ->info();
    EXPECT_NO_THROW(Settings(info, {{"n", "6"}}));
    const std::string broken = "parameters 'n' (5) and 'a' (2.0) of workload 'saxpy' break a rule: the manifest's "
                               "expressions must hold for them: "
                               "bad.duet.toml:10: opencl.defines.X: '100 / (n - 5)', column 5: division by zero "
                               "where n = 5";
    auto error = expect_error<InvalidArgument>([&] { Settings(info, {{"n", "5"}}); });
    ASSERT_TRUE(error);
    EXPECT_TRUE(contains(error->message(), broken)) << error->message();
    // A sweep's point: the same reason, from the same rule.
    const auto reason = Settings::without_rules(info, {{"n", "5"}}).broken_rule(info);
    ASSERT_TRUE(reason);
    EXPECT_EQ(*reason, broken);

    // A count that disagrees with its file's size.
    std::string floats(1000 * sizeof(float), '\0');
    write(dir.path() / "x.npy", npy("<f4", "(1000,)", floats));
    info = workload::load_manifest(manifest_with(dir, "init = { random = [-1, 1] }", "init = { file = \"x.npy\" }"))
               ->info();
    error = expect_error<InvalidArgument>([&] { Settings(info, {{"n", "999"}}); });
    ASSERT_TRUE(error);
    EXPECT_TRUE(contains(error->message(), "bad.duet.toml:12: buffers.x: its file holds 1000 elements; count is 999"))
        << error->message();

    // A value that overflows its scalar's int32.
    info = workload::load_manifest(manifest_with(dir, "n = { type = \"int32\", value = \"n\" }",
                                                 "n = { type = \"int32\", value = \"n * 100\" }"))
               ->info();
    error = expect_error<InvalidArgument>([&] { Settings(info, {{"n", "21474837"}}); });
    ASSERT_TRUE(error);
    EXPECT_TRUE(contains(error->message(), "bad.duet.toml:15: scalars.n.value: 2147483700 does not fit int32"))
        << error->message();
}

TEST(ManifestLimits, ALongExpressionIsQuotedShort)
{
    TempDir dir;
    const std::string deep = std::string(2000, '(') + "n" + std::string(2000, ')');
    const auto message =
        refusal(manifest_with(dir, "count = \"n\", init = \"iota\"", "count = \"" + deep + "\", init = \"iota\""));
    EXPECT_TRUE(contains(message, "bad.duet.toml:13: buffers.y.count: '" + std::string(60, '(') + "…', column 257: "))
        << message;
    EXPECT_LT(message.size(), 200u) << message;
    // Cut between characters, never inside one.
    try {
        workload::port::Expression(std::string(59, '(') + "é" + std::string(100, ')'), {});
        ADD_FAILURE() << "parsed";
    } catch (const workload::port::ExpressionError& error) {
        EXPECT_TRUE(contains(error.what(), "'" + std::string(59, '(') + "…', column ")) << error.what();
    }
}

TEST(ManifestLimits, AManifestThatIsNotARegularFileIsNamedOnce)
{
    TempDir dir;
    const fs::path fifo = dir.path() / "fifo.duet.toml";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(refusal(fifo), "cannot read " + fifo.string() + ": not a regular file (a FIFO)");
}

class ManifestLimitsOnDevice : public DeviceTest {};

// Bounds as far apart as float allows: low + u * (high - low) in float overflowed to infinity.
TEST_P(ManifestLimitsOnDevice, FarApartBoundsDrawFiniteValues)
{
    TempDir dir;
    const auto workload = workload::load_manifest(manifest_with(dir, "random = [-1, 1]", "random = [-3.4e38, 3.4e38]"));
    const auto info = workload->info();
    // y = a * x + iota, with a = 1e-38: y[i] - i is x[i] scaled to [-3.4, 3.4].
    const auto result = workload->run({device(), "port", Settings(info, {{"n", "4096"}, {"a", "1e-38"}}), true,
                                       test_seed(), workload::Timing::once()});
    const auto& y = result.output.as<float>();
    ASSERT_EQ(y.size(), 4096u);
    std::size_t large = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        ASSERT_TRUE(std::isfinite(y[i])) << "y[" << i << "] = " << y[i];
        large += std::abs(y[i] - static_cast<float>(i)) > 0.34f ? 1 : 0;
    }
    EXPECT_GT(large, 3000u) << "the draw spans the range";
}

// A reference library that is an executable (position-independent, so an ELF of type ET_DYN, as
// a shared object is) is refused by the loader when a run checks against it: its words, not an
// errno left by another call.
TEST_P(ManifestLimitsOnDevice, AnExecutableAsReferenceLibrarySaysWhyWithoutAStrayErrno)
{
    std::ifstream executable("/bin/true", std::ios::binary);
    Elf64_Ehdr header{};
    executable.read(reinterpret_cast<char*>(&header), sizeof(header));
    if (!executable || header.e_type != ET_DYN) {
        GTEST_SKIP() << "/bin/true is not a position-independent executable here";
    }
    TempDir dir;
    const std::string args = "args = [\"n\", \"a\", \"x\", \"y\"]\n";
    fs::copy_file("/bin/true", dir.path() / "true.so");
    const auto workload = workload::load_manifest(
        manifest_with(dir, args, args + "[reference]\nlibrary = \"true.so\"\nfunction = \"saxpy\"\n"));
    const auto info = workload->info();
    const auto run = workload::execute({workload, info, "port", Settings(info, {}), device(), device().selector(),
                                        test_seed(), workload::Timing::once()},
                                       true);
    EXPECT_EQ(run.status, workload::Status::failed);
    EXPECT_TRUE(contains(run.reason, "bad.duet.toml:21: reference: cannot load " + (dir.path() / "true.so").string() +
                                         ": cannot dynamically load "))
        << run.reason;
    EXPECT_FALSE(contains(run.reason, "Bad file descriptor")) << run.reason;
    EXPECT_FALSE(contains(run.reason, "boost::dll")) << run.reason;
}

INSTANTIATE_TEST_SUITE_P(Devices, ManifestLimitsOnDevice, ::testing::ValuesIn(device_params()), ParamName());

} // namespace
} // namespace duet::test
