// Build options scopes: while one lives, every program its device builds gets its flags after the
// program's own (a define given through it reaches the compiler, and Program::build_options names
// it; an embedded fatbin gives way to the CUDA source); nothing after it ends; one at a time per device.
#include "duet_test.hpp"

namespace duet::test {
namespace {

class BuildOptionsScopeConformance : public DeviceTest {};

TEST_P(BuildOptionsScopeConformance, FlagsReachTheCompilerWhileItLives)
{
    const TwoLanguageSource program("scoped_value", nonce(),
                                    "\n#ifdef DUET_SCOPED_VALUE\nDUET_SCOPED_VALUE\n#else\n-1\n#endif\n");
    {
        const BuildOptionsScope scope(device(), "-DDUET_SCOPED_VALUE=41");
        EXPECT_EQ(scope.flags(), "-DDUET_SCOPED_VALUE=41");
        const Program built = device().build(program.source);
        EXPECT_EQ(run_int(queue(), built, "scoped_value"), 41);
        EXPECT_NE(built.build_options().find("-DDUET_SCOPED_VALUE=41"), std::string::npos) << built.build_options();
    }
    const Program after = device().build(program.source);
    EXPECT_EQ(run_int(queue(), after, "scoped_value"), -1) << "the scope's flags outlived it";
    EXPECT_EQ(after.build_options().find("DUET_SCOPED_VALUE"), std::string::npos) << after.build_options();
}

TEST_P(BuildOptionsScopeConformance, ComeAfterTheProgramsOwnOptions)
{
    const TwoLanguageSource program("scoped_pair", nonce(), "DUET_OWN * 10 + DUET_SCOPED");
    BuildOptions options;
    options.flags = "-DDUET_OWN=3";
    const BuildOptionsScope scope(device(), "-DDUET_SCOPED=4");
    const Program built = device().build(program.source, options);
    EXPECT_EQ(run_int(queue(), built, "scoped_pair"), 34);
    const std::string given = built.build_options();
    const auto own = given.find("-DDUET_OWN=3");
    const auto scoped = given.find("-DDUET_SCOPED=4");
    ASSERT_NE(own, std::string::npos) << given;
    ASSERT_NE(scoped, std::string::npos) << given;
    EXPECT_LT(own, scoped) << "the program's own options first: " << given;
}

TEST_P(BuildOptionsScopeConformance, AnEmbeddedProgramIsBuiltFromSourceWithTheFlags)
{
    // On CUDA the embedded program ships a fatbin, which takes no options: the scope's flags make
    // the build take its CUDA source (NVRTC) instead, whose options name them.
    const Program plain = cached_program(device(), kernels::test_kernels()); // built before the scope
    const BuildOptionsScope scope(device(), "-DDUET_SCOPED_UNUSED=1");
    const Program built = device().build(kernels::test_kernels());
    const std::string given = built.build_options();
    EXPECT_NE(given.find("-DDUET_SCOPED_UNUSED=1"), std::string::npos) << given;
    EXPECT_FALSE(given.starts_with("nvcc ")) << "built from the fatbin: " << given;
    EXPECT_FALSE(built.same_build(plain)) << "the build without the flags answered for the one with them";
}

TEST_P(BuildOptionsScopeConformance, OneAtATimePerDevice)
{
    const BuildOptionsScope scope(device(), "-DDUET_FIRST=1");
    const auto error =
        expect_error<InvalidArgument>([&] { const BuildOptionsScope second(device(), "-DDUET_SECOND"); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find(device().selector()), std::string::npos) << error->message();
    EXPECT_NE(error->message().find("one scope at a time"), std::string::npos) << error->message();
    EXPECT_NE(error->message().find("-DDUET_FIRST=1"), std::string::npos) << error->message();
}

TEST_P(BuildOptionsScopeConformance, AnotherMayFollowOnceOneEnds)
{
    const TwoLanguageSource program("scoped_again", nonce(), "DUET_AGAIN");
    {
        const BuildOptionsScope first(device(), "-DDUET_AGAIN=1");
    }
    const BuildOptionsScope second(device(), "-DDUET_AGAIN=2");
    EXPECT_EQ(run_int(queue(), device().build(program.source), "scoped_again"), 2);
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(BuildOptionsScopeConformance);

} // namespace
} // namespace duet::test
