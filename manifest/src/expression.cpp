// Parsing by recursive descent into postfix steps, evaluated on a stack: small, copyable, and each
// step keeps its column so that a division by zero found later still points into the text.
#include "expression.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace duet::workload::port {

std::string to_string(const Number& number)
{
    if (const auto* integer = std::get_if<std::int64_t>(&number)) {
        return std::to_string(*integer);
    }
    char text[64];
    const auto end = std::to_chars(text, text + sizeof text, std::get<double>(number)).ptr;
    std::string written(text, end);
    if (written.find_first_of(".eni") == std::string::npos) {
        written += ".0";
    }
    return written;
}

std::string quoted(const std::string& text)
{
    if (text.size() <= 60) {
        return "'" + text + "'";
    }
    std::size_t cut = 60;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
        --cut; // not inside a UTF-8 character
    }
    return "'" + text.substr(0, cut) + "…'";
}

ExpressionError::ExpressionError(const std::string& problem, std::size_t column)
    : std::runtime_error(problem), column_(column)
{
}

namespace {

using Step = Expression::Step;

bool is_name_start(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool is_name_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

ExpressionError error_at(const std::string& text, std::size_t column, const std::string& problem)
{
    return ExpressionError(quoted(text) + ", column " + std::to_string(column) + ": " + problem, column);
}

const std::vector<std::pair<std::string, Step::Kind>> functions = {
    {"min", Step::Kind::min},
    {"max", Step::Kind::max},
    {"ceil_div", Step::Kind::ceil_div},
    {"round_up", Step::Kind::round_up},
};

class Parser {
public:
    Parser(const std::string& text, const std::vector<std::string>& names) : text_(text), names_(names) {}

    std::vector<Step> parse()
    {
        // Checked before anything is parsed: a text past the limit is not read at all.
        if (text_.size() > max_expression_length) {
            throw ExpressionError("an expression of " + std::to_string(text_.size()) + " characters; the limit is " +
                                      std::to_string(max_expression_length),
                                  1);
        }
        skip_space();
        if (at_end()) {
            throw error_at(text_, 1, "empty; expected a number, a name or '('");
        }
        sum();
        if (!at_end()) {
            throw error_at(text_, column(), std::string("unexpected '") + text_[at_] + "'; expected an operator");
        }
        return std::move(steps_);
    }

private:
    bool at_end() const { return at_ >= text_.size(); }
    std::size_t column() const { return at_ + 1; }
    void skip_space()
    {
        while (!at_end() && std::isspace(static_cast<unsigned char>(text_[at_]))) {
            ++at_;
        }
    }
    bool take(char c)
    {
        if (!at_end() && text_[at_] == c) {
            ++at_;
            skip_space();
            return true;
        }
        return false;
    }
    void expect(char c, const std::string& where)
    {
        if (!take(c)) {
            throw error_at(text_, column(), std::string("expected '") + c + "' " + where);
        }
    }

    void sum()
    {
        product();
        for (;;) {
            const std::size_t where = column();
            if (take('+')) {
                product();
                steps_.push_back({Step::Kind::add, {}, {}, where});
            } else if (take('-')) {
                product();
                steps_.push_back({Step::Kind::subtract, {}, {}, where});
            } else {
                return;
            }
        }
    }

    void product()
    {
        unary();
        for (;;) {
            const std::size_t where = column();
            const Step::Kind kind = !at_end() && text_[at_] == '*'   ? Step::Kind::multiply
                                    : !at_end() && text_[at_] == '/' ? Step::Kind::divide
                                    : !at_end() && text_[at_] == '%' ? Step::Kind::remainder
                                                                     : Step::Kind::number;
            if (kind == Step::Kind::number) {
                return;
            }
            take(text_[at_]);
            unary();
            steps_.push_back({kind, {}, {}, where});
        }
    }

    /// Every nesting (parentheses, a function's arguments, a sign) passes here: the parser's
    /// recursion, and so its stack, is bounded by max_expression_depth.
    void unary()
    {
        const std::size_t where = column();
        if (++depth_ > max_expression_depth) {
            throw error_at(text_, where,
                           "nested deeper than " + std::to_string(max_expression_depth) +
                               " levels (parentheses, function calls and signs)");
        }
        struct Leave {
            std::size_t& depth;
            ~Leave() { --depth; }
        } leave{depth_};
        if (take('-')) {
            unary();
            steps_.push_back({Step::Kind::negate, {}, {}, where});
        } else if (take('+')) {
            unary();
        } else {
            primary();
        }
    }

    void primary()
    {
        const std::size_t where = column();
        if (at_end()) {
            throw error_at(text_, where, "ends too soon; expected a number, a name or '('");
        }
        const char c = text_[at_];
        if (take('(')) {
            sum();
            expect(')', "to close the '(' at column " + std::to_string(where));
        } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            number();
        } else if (is_name_start(c)) {
            name();
        } else {
            throw error_at(text_, where, std::string("unexpected '") + c + "'; expected a number, a name or '('");
        }
    }

    void number()
    {
        const std::size_t start = at_;
        bool real = false;
        while (!at_end() && (std::isdigit(static_cast<unsigned char>(text_[at_])) || text_[at_] == '.')) {
            real |= text_[at_++] == '.';
        }
        if (!at_end() && (text_[at_] == 'e' || text_[at_] == 'E')) {
            real = true;
            ++at_;
            if (!at_end() && (text_[at_] == '+' || text_[at_] == '-')) {
                ++at_;
            }
            while (!at_end() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
                ++at_;
            }
        }
        const char* first = text_.data() + start;
        const char* last = text_.data() + at_;
        Number value;
        std::from_chars_result read{};
        if (real) {
            double d = 0;
            read = std::from_chars(first, last, d);
            value = d;
        } else {
            std::int64_t i = 0;
            read = std::from_chars(first, last, i);
            value = i;
        }
        if (read.ec == std::errc::result_out_of_range) {
            throw error_at(text_, start + 1, "'" + std::string(first, last) + "' is out of range");
        }
        if (read.ec != std::errc() || read.ptr != last) {
            throw error_at(text_, start + 1, "'" + std::string(first, last) + "' is not a number");
        }
        if (!at_end() && is_name_char(text_[at_])) {
            throw error_at(text_, column(), "a number runs into a name");
        }
        skip_space();
        steps_.push_back({Step::Kind::number, value, {}, start + 1});
    }

    void name()
    {
        const std::size_t start = at_;
        while (!at_end() && is_name_char(text_[at_])) {
            ++at_;
        }
        const std::string word = text_.substr(start, at_ - start);
        skip_space();
        if (!at_end() && text_[at_] == '(') {
            const auto function =
                std::find_if(functions.begin(), functions.end(), [&](const auto& f) { return f.first == word; });
            if (function == functions.end()) {
                throw error_at(text_, start + 1,
                               "unknown function '" + word + "'; known: min, max, ceil_div, round_up (each of two)");
            }
            take('(');
            sum();
            expect(',', "between " + word + "'s two arguments");
            sum();
            expect(')', "after " + word + "'s two arguments");
            steps_.push_back({function->second, {}, word, start + 1});
            return;
        }
        if (std::find(names_.begin(), names_.end(), word) == names_.end()) {
            std::string known;
            for (const auto& name : names_) {
                known += (known.empty() ? "" : ", ") + name;
            }
            throw error_at(
                text_, start + 1,
                "unknown name '" + word + "'; " +
                    (names_.empty() ? "the manifest declares no parameters" : "the parameters are " + known));
        }
        steps_.push_back({Step::Kind::name, {}, word, start + 1});
    }

    const std::string& text_;
    const std::vector<std::string>& names_;
    std::size_t at_ = 0;
    std::size_t depth_ = 0;
    std::vector<Step> steps_;
};

const char* symbol(Step::Kind kind)
{
    switch (kind) {
    case Step::Kind::add:
        return "+";
    case Step::Kind::subtract:
        return "-";
    case Step::Kind::multiply:
        return "*";
    case Step::Kind::divide:
        return "/";
    case Step::Kind::remainder:
        return "%";
    default:
        return "";
    }
}

} // namespace

Expression::Expression(std::string text, const std::vector<std::string>& names)
    : text_(std::move(text)), steps_(Parser(text_, names).parse())
{
}

Number Expression::evaluate(const std::map<std::string, Number>& values) const
{
    // The values of the names it uses, for its errors: "where n = 1000".
    const auto fail = [&](const Step& step, const std::string& problem) {
        std::string where;
        for (const auto& s : steps_) {
            const std::string part = s.name + " = " + (values.count(s.name) ? to_string(values.at(s.name)) : "?");
            if (s.kind == Step::Kind::name && where.find(part) == std::string::npos) {
                where += (where.empty() ? " where " : ", ") + part;
            }
        }
        return error_at(text_, step.column, problem + where);
    };
    std::vector<Number> stack;
    for (const Step& step : steps_) {
        if (step.kind == Step::Kind::number) {
            stack.push_back(step.number);
            continue;
        }
        if (step.kind == Step::Kind::name) {
            const auto found = values.find(step.name);
            if (found == values.end()) {
                throw fail(step, "no value for '" + step.name + "'");
            }
            stack.push_back(found->second);
            continue;
        }
        if (step.kind == Step::Kind::negate) {
            Number& x = stack.back();
            if (auto* i = std::get_if<std::int64_t>(&x)) {
                if (*i == std::numeric_limits<std::int64_t>::min()) {
                    throw fail(step, "-(" + std::to_string(*i) + ") overflows 64-bit integers");
                }
                *i = -*i;
            } else {
                x = -std::get<double>(x);
            }
            continue;
        }
        const Number b = stack.back();
        stack.pop_back();
        const Number a = stack.back();
        const bool integers = std::holds_alternative<std::int64_t>(a) && std::holds_alternative<std::int64_t>(b);
        const auto as_real = [](const Number& n) {
            return std::visit([](auto v) { return static_cast<double>(v); }, n);
        };
        Number result;
        if (step.kind == Step::Kind::ceil_div || step.kind == Step::Kind::round_up ||
            step.kind == Step::Kind::remainder) {
            if (!integers) {
                throw fail(step, (step.kind == Step::Kind::remainder ? std::string("%") : step.name) +
                                     " takes integers; it was given " + to_string(a) + " and " + to_string(b));
            }
        }
        if ((step.kind == Step::Kind::divide || step.kind == Step::Kind::remainder ||
             step.kind == Step::Kind::ceil_div || step.kind == Step::Kind::round_up) &&
            as_real(b) == 0) {
            throw fail(step, "division by zero");
        }
        if (integers) {
            const std::int64_t x = std::get<std::int64_t>(a), y = std::get<std::int64_t>(b);
            std::int64_t r = 0;
            bool overflow = false;
            switch (step.kind) {
            case Step::Kind::add:
                overflow = __builtin_add_overflow(x, y, &r);
                break;
            case Step::Kind::subtract:
                overflow = __builtin_sub_overflow(x, y, &r);
                break;
            case Step::Kind::multiply:
                overflow = __builtin_mul_overflow(x, y, &r);
                break;
            case Step::Kind::divide:
                overflow = x == std::numeric_limits<std::int64_t>::min() && y == -1;
                r = overflow ? 0 : x / y;
                break;
            case Step::Kind::remainder:
                r = y == -1 ? 0 : x % y;
                break;
            case Step::Kind::min:
                r = std::min(x, y);
                break;
            case Step::Kind::max:
                r = std::max(x, y);
                break;
            case Step::Kind::ceil_div:
            case Step::Kind::round_up: {
                if (x < 0 || y < 0) {
                    throw fail(step, step.name + " takes non-negative integers; it was given " + std::to_string(x) +
                                         " and " + std::to_string(y));
                }
                r = x / y + (x % y != 0 ? 1 : 0);
                if (step.kind == Step::Kind::round_up) {
                    overflow = __builtin_mul_overflow(r, y, &r);
                }
                break;
            }
            default:
                break;
            }
            if (overflow) {
                const std::string what = *symbol(step.kind) != '\0'
                                             ? std::to_string(x) + " " + symbol(step.kind) + " " + std::to_string(y)
                                             : step.name + "(" + std::to_string(x) + ", " + std::to_string(y) + ")";
                throw fail(step, what + " overflows 64-bit integers");
            }
            result = r;
        } else {
            const double x = as_real(a), y = as_real(b);
            switch (step.kind) {
            case Step::Kind::add:
                result = x + y;
                break;
            case Step::Kind::subtract:
                result = x - y;
                break;
            case Step::Kind::multiply:
                result = x * y;
                break;
            case Step::Kind::divide:
                result = x / y;
                break;
            case Step::Kind::min:
                result = std::min(x, y);
                break;
            case Step::Kind::max:
                result = std::max(x, y);
                break;
            default:
                break;
            }
            if (!std::isfinite(std::get<double>(result))) {
                throw fail(step, to_string(a) + " " + symbol(step.kind) + " " + to_string(b) + " is not finite");
            }
        }
        stack.back() = result;
    }
    return stack.back();
}

std::int64_t Expression::integer(const std::map<std::string, Number>& values) const
{
    const Number value = evaluate(values);
    if (const auto* integer = std::get_if<std::int64_t>(&value)) {
        return *integer;
    }
    const double real = std::get<double>(value);
    // 2^63 is exactly representable; anything from it up does not fit.
    if (real != std::floor(real) || real < -9.223372036854775808e18 || real >= 9.223372036854775808e18) {
        throw error_at(text_, 1, "must be an integer; it is " + to_string(value));
    }
    return static_cast<std::int64_t>(real);
}

double Expression::real(const std::map<std::string, Number>& values) const
{
    return std::visit([](auto v) { return static_cast<double>(v); }, evaluate(values));
}

} // namespace duet::workload::port
