// The command line's grammar (commands/options.hpp): what --json and --csv take as their FILE, and
// what they leave to the command as its argument.
#include "commands/options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace duet::cli {
namespace {

using Kind = OptionSpec::Kind;

/// A command shaped like `duet list`: one optional positional argument, --json and --csv.
const CommandSpec list_like{.name = "list",
                            .arguments = "[workload]",
                            .max_arguments = 1,
                            .brief = "",
                            .summary = "",
                            .options = {{"json", Kind::optional_value, "FILE", ""},
                                        {"csv", Kind::optional_value, "FILE", ""},
                                        {"device", Kind::value, "SEL", ""}}};

TEST(Options, AnOptionalValueLeavesAWorkloadNameToTheCommand)
{
    const Arguments arguments(list_like, {"--json", "vector_add"});
    EXPECT_EQ(arguments.positional(), std::vector<std::string>{"vector_add"});
    EXPECT_EQ(arguments.value("json"), "") << "standard output";
}

TEST(Options, AnOptionalValueLeavesAManifestToTheCommand)
{
    const Arguments arguments(list_like, {"--json", "ports/saxpy/saxpy.duet.toml"});
    EXPECT_EQ(arguments.positional(), std::vector<std::string>{"ports/saxpy/saxpy.duet.toml"});
    EXPECT_EQ(arguments.value("json"), "");
}

TEST(Options, TheNextWordIsTheFileWhenItIsNamedForTheOptionOrIsADash)
{
    const Arguments json(list_like, {"--json", "out/list.json", "vector_add"});
    EXPECT_EQ(json.value("json"), "out/list.json");
    EXPECT_EQ(json.positional(), std::vector<std::string>{"vector_add"});
    const Arguments csv(list_like, {"vector_add", "--csv", "list.csv"});
    EXPECT_EQ(csv.value("csv"), "list.csv");
    const Arguments dash(list_like, {"--json", "-", "vector_add"});
    EXPECT_EQ(dash.value("json"), "-");
    EXPECT_EQ(dash.positional(), std::vector<std::string>{"vector_add"});
    // A file named for the other option is not this one's.
    const Arguments other(list_like, {"--csv", "list.json"});
    EXPECT_EQ(other.value("csv"), "");
    EXPECT_EQ(other.positional(), std::vector<std::string>{"list.json"});
    // ".json" alone is a name with no stem, not a JSON file.
    EXPECT_EQ(Arguments(list_like, {"--json", ".json"}).positional(), std::vector<std::string>{".json"});
}

TEST(Options, AnEqualsSignGivesAnyFile)
{
    const Arguments arguments(list_like, {"--json=results", "--csv=/dev/null", "vector_add"});
    EXPECT_EQ(arguments.value("json"), "results");
    EXPECT_EQ(arguments.value("csv"), "/dev/null");
    EXPECT_EQ(arguments.positional(), std::vector<std::string>{"vector_add"});
    EXPECT_EQ(Arguments(list_like, {"--json="}).value("json"), "");
}

TEST(Options, AnOptionalValueAtTheEndOrBeforeAnotherOptionHasNone)
{
    const Arguments last(list_like, {"vector_add", "--json"});
    EXPECT_EQ(last.value("json"), "");
    const Arguments before(list_like, {"--json", "--device", "opencl:0", "vector_add"});
    EXPECT_EQ(before.value("json"), "");
    EXPECT_EQ(before.value("device"), "opencl:0");
    EXPECT_EQ(before.positional(), std::vector<std::string>{"vector_add"});
    EXPECT_FALSE(Arguments(list_like, {}).has("json"));
}

TEST(Options, AWordTheOptionLeftThatIsOneTooManySaysHowToNameTheFile)
{
    const CommandSpec no_arguments{
        .name = "devices", .brief = "", .summary = "", .options = {{"json", Kind::optional_value, "FILE", ""}}};
    try {
        const Arguments arguments(no_arguments, {"--json", "devices-out"});
        FAIL() << "a word the command cannot take was accepted";
    } catch (const UsageError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("unexpected argument 'devices-out'"), std::string::npos) << message;
        EXPECT_NE(message.find("--json=devices-out"), std::string::npos) << message;
    }
}

TEST(Options, AWordTheOptionLeftThatPushesTheArgumentOutSaysHowToNameTheFile)
{
    // `duet run --json out vector_add`: "out" is read as the workload, and vector_add is one too many.
    try {
        const Arguments arguments(list_like, {"--json", "out", "vector_add"});
        FAIL() << "two arguments were accepted";
    } catch (const UsageError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("unexpected argument 'vector_add'"), std::string::npos) << message;
        EXPECT_NE(message.find("so 'out' was read as an argument; for this file write --json=out"), std::string::npos)
            << message;
    }
}

TEST(Options, OnlyAWordTheOptionLeftHasAFileNote)
{
    const Arguments arguments(list_like, {"--csv", "results", "--json=x"});
    EXPECT_NE(arguments.file_note("results").find("for this file write --csv=results"), std::string::npos);
    EXPECT_EQ(arguments.file_note("x"), "");
    EXPECT_EQ(Arguments(list_like, {"results", "--csv"}).file_note("results"), "") << "no option before it";
    EXPECT_EQ(Arguments(list_like, {"--csv", "r.csv"}).file_note("r.csv"), "") << "taken as the FILE";
}

} // namespace
} // namespace duet::cli
