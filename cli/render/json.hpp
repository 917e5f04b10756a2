// JSON for the --json output of every command, through nlohmann-json: objects keep the order their
// keys were added in, so the output reads in the same order as the tables.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace duet::cli::json {

/// Integers stay integers, written digit for digit (a uint64 limit does not become 2^64, which
/// strict parsers reject); other numbers in their shortest exact form; numbers that are not
/// finite (an error that is infinite because an output held NaN) are written as null.
using Value = nlohmann::ordered_json;
using Array = Value::array_t;
using Object = Value::object_t;

/// The value, or null where there is none.
template <class T> Value optional(const std::optional<T>& value)
{
    return value ? Value(*value) : Value();
}

/// `value` as a whole document: two-space indentation, then a newline. Text that is not valid
/// UTF-8 (a driver's build log) has the bad bytes replaced rather than failing the write.
std::string document(const Value& value);

} // namespace duet::cli::json
