// The C tokenizer that the kernel cache's listing and a manifest's signature check share: what it
// drops (comments, preprocessor lines), what it keeps whole (literals with their escapes), and
// the line it gives each token, which messages about a kernel's parameters name.
#include <duet/detail/c_tokens.hpp>

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace duet::test {
namespace {

using detail::c_tokens;
using Lined = std::vector<std::pair<std::string, std::size_t>>;

/// Each token's text and line.
Lined lined(std::string_view source)
{
    Lined result;
    for (const auto& token : c_tokens(source)) {
        result.emplace_back(std::string(token.text), token.line);
    }
    return result;
}

TEST(CTokens, NamesNumbersAndPunctuationKeepTheirPlace)
{
    const std::string_view source = "float4 x=0x1f;";
    const auto tokens = c_tokens(source);
    ASSERT_EQ(tokens.size(), 5u);
    EXPECT_EQ(tokens[0].text, "float4");
    EXPECT_EQ(tokens[1].text, "x");
    EXPECT_EQ(tokens[1].offset, 7u);
    EXPECT_EQ(tokens[2].text, "=");
    EXPECT_EQ(tokens[3].text, "0x1f");
    EXPECT_EQ(tokens[3].offset, 9u);
    EXPECT_EQ(tokens[4].text, ";");
    EXPECT_EQ(tokens[4].text.data(), source.data() + 13) << "a token views the source";
    EXPECT_TRUE(detail::is_c_name("float4"));
    EXPECT_TRUE(detail::is_c_name("_x"));
    EXPECT_FALSE(detail::is_c_name("0x1f"));
    EXPECT_FALSE(detail::is_c_name("\"a\""));
    EXPECT_FALSE(detail::is_c_name("("));
    EXPECT_FALSE(detail::is_c_name(""));
}

TEST(CTokens, CommentsAreDroppedAndTheirLinesCounted)
{
    EXPECT_EQ(lined("a // b c\n"
                    "d /* e\n"
                    "f */ g\n"
                    "/* never closed\n"
                    "h"),
              (Lined{{"a", 1}, {"d", 2}, {"g", 3}}));
    EXPECT_EQ(lined("a/**/b//"), (Lined{{"a", 1}, {"b", 1}}));
}

TEST(CTokens, LiteralsAreWholeTokensWithTheirEscapes)
{
    EXPECT_EQ(lined(R"(s = "a \" // not a comment /* nor this */"; c = '\''; t = "\\";)"),
              (Lined{{"s", 1},
                     {"=", 1},
                     {R"("a \" // not a comment /* nor this */")", 1},
                     {";", 1},
                     {"c", 1},
                     {"=", 1},
                     {R"('\'')", 1},
                     {";", 1},
                     {"t", 1},
                     {"=", 1},
                     {R"("\\")", 1},
                     {";", 1}}));
    // A literal continued over a line by an escaped newline is one token; the lines after it count it.
    EXPECT_EQ(lined("\"one \\\ntwo\" x"), (Lined{{"\"one \\\ntwo\"", 1}, {"x", 2}}));
}

TEST(CTokens, AnUnterminatedLiteralEndsWithItsLine)
{
    EXPECT_EQ(lined("a = 'b;\n"
                    "#define c\n"
                    "d"),
              (Lined{{"a", 1}, {"=", 1}, {"'b;", 1}, {"d", 3}}));
}

TEST(CTokens, PreprocessorLinesAreDroppedWithTheirContinuations)
{
    EXPECT_EQ(lined("#include <x.h>\n"
                    "  #define TILE 32 \\\n"
                    "     * 2\n"
                    "/* c */ # pragma once\n"
                    "a # b\n"
                    "#error it's not a literal\n"
                    "e"),
              (Lined{{"a", 5}, {"#", 5}, {"b", 5}, {"e", 7}}));
}

TEST(CTokens, ClosingBracketNestsEveryKind)
{
    const auto tokens = c_tokens("f(a[(1)], {b}) c");
    ASSERT_EQ(tokens.size(), 14u);
    EXPECT_EQ(detail::closing_bracket(tokens, 1), 12u);
    EXPECT_EQ(tokens[12].text, ")");
    EXPECT_EQ(detail::closing_bracket(tokens, 3), 7u);
    EXPECT_EQ(detail::closing_bracket(tokens, 9), 11u);
    const auto open = c_tokens("g(a, (b)");
    EXPECT_EQ(detail::closing_bracket(open, 1), open.size()) << "none closes it";
}

} // namespace
} // namespace duet::test
