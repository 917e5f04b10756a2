// The arithmetic a manifest writes its sizes in: "ceil_div(n, 256)", "n * n * 4", "0.5 * a".
// Integers stay exact 64-bit integers (an overflow is an error, not a wrap); a real operand makes
// the result real. Parsed once, against the parameters' names, then evaluated for each setting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace duet::workload::port {

/// The longest expression read, and the deepest nesting in one: far beyond any size written by
/// hand, and a bound on the parser's recursion.
inline constexpr std::size_t max_expression_length = 4096;
inline constexpr std::size_t max_expression_depth = 256;

/// An integer or a real.
using Number = std::variant<std::int64_t, double>;

/// "1000"; a real always reads as one: "2.0", "1e-05".
std::string to_string(const Number& number);

/// An expression's text in quotes for a message: its first 60 characters and "…" where it is
/// longer, so that a message about a long one stays readable.
std::string quoted(const std::string& text);

/// A problem with an expression: its text, and where it applies the column (1-based) in it.
class ExpressionError : public std::runtime_error {
public:
    ExpressionError(const std::string& problem, std::size_t column);
    std::size_t column() const noexcept { return column_; }

private:
    std::size_t column_;
};

/// A parsed expression: numbers, names, + - * / % (C's truncating / and % on integers), unary
/// minus, parentheses, and min(a, b), max(a, b), ceil_div(a, b), round_up(a, b).
class Expression {
public:
    /// Parses `text`, whose names must all be in `names`; ExpressionError at the first problem.
    Expression(std::string text, const std::vector<std::string>& names);
    /// The number 0, for a field not yet read.
    Expression() : Expression("0", {}) {}

    const std::string& text() const { return text_; }

    /// Its value; ExpressionError for a division by zero, an overflow or a name not in `values`.
    Number evaluate(const std::map<std::string, Number>& values) const;
    /// Its value, which must be an integer (a real with no fraction counts as one).
    std::int64_t integer(const std::map<std::string, Number>& values) const;
    /// Its value as a real.
    double real(const std::map<std::string, Number>& values) const;

    /// One step of the parsed expression in postfix order, evaluated on a stack.
    struct Step {
        enum class Kind {
            number,
            name,
            negate,
            add,
            subtract,
            multiply,
            divide,
            remainder,
            min,
            max,
            ceil_div,
            round_up
        } kind;
        Number number;
        std::string name;
        std::size_t column; ///< where the step's token starts, for its errors
    };

private:
    std::string text_;
    std::vector<Step> steps_;
};

} // namespace duet::workload::port
