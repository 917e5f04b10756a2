// The grammar of --options API=FLAGS[,API=FLAGS] (Arguments::api_flags): items by API, commas
// inside FLAGS kept, repeated options joined, and every malformed item a usage error naming the form.
#include "commands/options.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace duet::cli {
namespace {

using ::testing::HasSubstr;

const CommandSpec compare_like{.name = "compare",
                               .arguments = "<workload>",
                               .min_arguments = 1,
                               .max_arguments = 1,
                               .brief = "",
                               .summary = "",
                               .options = {{"options", OptionSpec::Kind::repeated, "API=FLAGS,...", ""}}};
const std::vector<std::string> apis{"cuda", "opencl"};

std::map<std::string, std::string> flags_of(const std::vector<std::string>& options)
{
    std::vector<std::string> args{"vector_add"};
    for (const auto& option : options) {
        args.push_back("--options");
        args.push_back(option);
    }
    return Arguments(compare_like, args).api_flags("options", apis);
}

std::string usage_error(const std::vector<std::string>& options)
{
    try {
        flags_of(options);
    } catch (const UsageError& error) {
        return error.what();
    }
    ADD_FAILURE() << "accepted: " << ::testing::PrintToString(options);
    return "";
}

TEST(ApiFlags, EachApiGetsItsItemsFlags)
{
    const std::map<std::string, std::string> expected{{"cuda", "-use_fast_math"},
                                                      {"opencl", "-cl-fast-relaxed-math -cl-mad-enable"}};
    EXPECT_EQ(flags_of({"cuda=-use_fast_math,opencl=-cl-fast-relaxed-math -cl-mad-enable"}), expected);
    EXPECT_EQ(flags_of({"opencl=-cl-fast-relaxed-math -cl-mad-enable", "cuda=-use_fast_math"}), expected)
        << "repeated, one API each";
    EXPECT_TRUE(flags_of({}).empty());
}

TEST(ApiFlags, ACommaStartsAnItemOnlyBeforeAnApiAndEquals)
{
    const std::map<std::string, std::string> expected{{"cuda", "-DLIST=1,2"}, {"opencl", "-DPAIR=a,b -DX"}};
    EXPECT_EQ(flags_of({"opencl=-DPAIR=a,b -DX,cuda=-DLIST=1,2"}), expected);
    EXPECT_EQ(flags_of({"opencl=-DA,"}), (std::map<std::string, std::string>{{"opencl", "-DA,"}}));
}

TEST(ApiFlags, AnUnknownApiIsNamedWithTheFormAndTheApis)
{
    const std::string message = usage_error({"foo=bar"});
    EXPECT_THAT(message, HasSubstr("'foo' is not an API"));
    EXPECT_THAT(message, HasSubstr("--options API=FLAGS[,API=FLAGS], API one of: cuda, opencl"));
}

TEST(ApiFlags, AnItemWithoutEqualsIsNamed)
{
    EXPECT_THAT(usage_error({"opencl"}), HasSubstr("'opencl' has no '='"));
    EXPECT_THAT(usage_error({""}), HasSubstr("has no '='"));
}

TEST(ApiFlags, EmptyFlagsAndAnApiGivenTwiceAreRefused)
{
    EXPECT_THAT(usage_error({"opencl="}), HasSubstr("gives opencl no flags"));
    EXPECT_THAT(usage_error({"opencl=-DA,opencl=-DB"}), HasSubstr("names opencl twice"));
    EXPECT_THAT(usage_error({"opencl=-DA", "opencl=-DB"}), HasSubstr("names opencl twice"));
}

} // namespace
} // namespace duet::cli
