// A small JSON value and its writer, for the --json output of every command: objects keep the
// order their keys were added in, so the output reads in the same order as the tables.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace duet::cli::json {

class Value;
using Array = std::vector<Value>;
using Object = std::vector<std::pair<std::string, Value>>;

class Value {
public:
    Value() = default; ///< null
    Value(bool value) : value_(value) {}
    /// Integers stay integers, written digit for digit: a uint64 limit (18446744073709551615) does
    /// not become the nearest double (2^64), which strict parsers reject as out of range.
    template <std::signed_integral Integer>
    requires(!std::same_as<Integer, bool>) Value(Integer value) : value_(static_cast<std::int64_t>(value)) {}
    template <std::unsigned_integral Integer>
    requires(!std::same_as<Integer, bool>) Value(Integer value) : value_(static_cast<std::uint64_t>(value)) {}
    template <std::floating_point Real> Value(Real value) : value_(static_cast<double>(value)) {}
    Value(const char* text) : value_(std::string(text)) {}
    Value(std::string text) : value_(std::move(text)) {}
    Value(Array array) : value_(std::move(array)) {}
    Value(Object object) : value_(std::move(object)) {}

    /// Two-space indentation; arrays of plain values stay on one line. Numbers that are not
    /// finite (an error that is infinite because an output held NaN) are written as null.
    void write(std::ostream& out, int indent = 0) const;

    bool is_container() const
    {
        return std::holds_alternative<Array>(value_) || std::holds_alternative<Object>(value_);
    }

    /// The value as a whole document: written as above, then a newline.
    std::string document() const;

private:
    std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string, Array, Object> value_;
};

} // namespace duet::cli::json
