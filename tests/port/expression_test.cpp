// The manifest's arithmetic: exact integers, reals where a real is written, C's integer division,
// the four functions, and an error with its column for each thing that can go wrong.
#include "expression.hpp"

#include <gtest/gtest.h>

namespace duet::test {
namespace {

using workload::port::Expression;
using workload::port::ExpressionError;
using workload::port::Number;

const std::vector<std::string> names = {"n", "a"};
const std::map<std::string, Number> values = {{"n", std::int64_t{1000}}, {"a", 2.5}};

Number value_of(const std::string& text)
{
    return Expression(text, names).evaluate(values);
}

/// The message of the ExpressionError that parsing, then evaluating, `text` throws.
std::string error_of(const std::string& text, std::size_t* column = nullptr)
{
    try {
        Expression(text, names).evaluate(values);
    } catch (const ExpressionError& error) {
        if (column != nullptr) {
            *column = error.column();
        }
        return error.what();
    }
    ADD_FAILURE() << "'" << text << "' was accepted";
    return {};
}

TEST(Expression, IntegersStayExact)
{
    EXPECT_EQ(value_of("n * n * 4"), Number(std::int64_t{4000000}));
    EXPECT_EQ(value_of("(n + 255) / 256"), Number(std::int64_t{4}));
    EXPECT_EQ(value_of("-7 / 2"), Number(std::int64_t{-3})); // C's truncation
    EXPECT_EQ(value_of("-7 % 2"), Number(std::int64_t{-1}));
    EXPECT_EQ(value_of("2 + 3 * 4 - -1"), Number(std::int64_t{15}));
    EXPECT_EQ(value_of("9223372036854775807"), Number(std::int64_t{9223372036854775807}));
}

TEST(Expression, ARealOperandMakesTheResultReal)
{
    EXPECT_EQ(value_of("a * 2"), Number(5.0));
    EXPECT_EQ(value_of("n / 8.0"), Number(125.0));
    EXPECT_EQ(value_of("1e-5"), Number(1e-5));
    EXPECT_EQ(value_of("max(n, a)"), Number(1000.0));
}

TEST(Expression, FunctionsOfTwoArguments)
{
    EXPECT_EQ(value_of("ceil_div(n, 256)"), Number(std::int64_t{4}));
    EXPECT_EQ(value_of("ceil_div(1024, 256)"), Number(std::int64_t{4}));
    EXPECT_EQ(value_of("round_up(n, 256)"), Number(std::int64_t{1024}));
    EXPECT_EQ(value_of("min(n, 64)"), Number(std::int64_t{64}));
    EXPECT_EQ(value_of("max(ceil_div(n, 3), 1)"), Number(std::int64_t{334}));
}

TEST(Expression, IntegerAndRealConversions)
{
    EXPECT_EQ(Expression("a * 4", names).integer(values), 10);
    EXPECT_DOUBLE_EQ(Expression("n", names).real(values), 1000.0);
    EXPECT_THROW(Expression("a", names).integer(values), ExpressionError);
    EXPECT_EQ(workload::port::to_string(Number(2.0)), "2.0");
    EXPECT_EQ(workload::port::to_string(Number(std::int64_t{2})), "2");
    EXPECT_EQ(workload::port::to_string(Number(1e-5)), "1e-05");
}

TEST(Expression, ASyntaxErrorGivesItsColumn)
{
    std::size_t column = 0;
    auto message = error_of("n *", &column);
    EXPECT_EQ(column, 4u) << message;
    EXPECT_NE(message.find("column 4"), std::string::npos) << message;
    message = error_of("(n + 1", &column);
    EXPECT_NE(message.find("to close the '(' at column 1"), std::string::npos) << message;
    message = error_of("n n", &column);
    EXPECT_EQ(column, 3u) << message;
    EXPECT_NE(error_of("").find("empty"), std::string::npos);
    EXPECT_NE(error_of("3n").find("runs into a name"), std::string::npos);
    EXPECT_NE(error_of("n $ 2").find("unexpected '$'"), std::string::npos);
}

TEST(Expression, UnknownNamesAndFunctionsListTheKnownOnes)
{
    auto message = error_of("m + 1");
    EXPECT_NE(message.find("unknown name 'm'; the parameters are n, a"), std::string::npos) << message;
    message = error_of("floor(n, 2)");
    EXPECT_NE(message.find("unknown function 'floor'; known: min, max, ceil_div, round_up"), std::string::npos)
        << message;
    message = error_of("min(n)");
    EXPECT_NE(message.find("expected ','"), std::string::npos) << message;
}

TEST(Expression, DivisionByZeroNamesTheValues)
{
    std::size_t column = 0;
    const auto message = error_of("n / (n - 1000)", &column);
    EXPECT_NE(message.find("division by zero where n = 1000"), std::string::npos) << message;
    EXPECT_EQ(column, 3u);
    EXPECT_NE(error_of("n % 0").find("division by zero"), std::string::npos);
    EXPECT_NE(error_of("ceil_div(n, 0)").find("division by zero"), std::string::npos);
    EXPECT_NE(error_of("a / 0.0").find("division by zero"), std::string::npos);
}

TEST(Expression, OverflowIsAnErrorNotAWrap)
{
    auto message = error_of("n * n * n * n * n * n * n");
    EXPECT_NE(message.find("1000000000000000000 * 1000 overflows 64-bit integers"), std::string::npos) << message;
    EXPECT_NE(error_of("9223372036854775807 + 1").find("overflows"), std::string::npos);
    EXPECT_NE(error_of("-9223372036854775807 - 2").find("overflows"), std::string::npos);
    EXPECT_NE(error_of("round_up(9223372036854775807, 2)").find("overflows"), std::string::npos);
    EXPECT_NE(error_of("99999999999999999999").find("out of range"), std::string::npos);
}

TEST(Expression, IntegerOnlyOperationsRefuseReals)
{
    EXPECT_NE(error_of("a % 2").find("% takes integers"), std::string::npos);
    EXPECT_NE(error_of("ceil_div(a, 2)").find("ceil_div takes integers"), std::string::npos);
    EXPECT_NE(error_of("ceil_div(-1, 2)").find("non-negative"), std::string::npos);
}

TEST(Expression, CopiesEvaluateAlike)
{
    const Expression original("ceil_div(n, 256) * 256", names);
    const Expression copy = original;
    EXPECT_EQ(copy.text(), original.text());
    EXPECT_EQ(copy.evaluate(values), original.evaluate(values));
}

} // namespace
} // namespace duet::test
