// A minimal JSON reader for the CLI tests: enough to check that duet's output parses and to read
// its values back, numbers with the text they were written as.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace duet::test::json {

class Value {
public:
    enum class Type { null, boolean, number, string, array, object };

    Type type() const { return type_; }
    bool is_null() const { return type_ == Type::null; }
    bool boolean() const;
    double number() const;
    /// A number exactly as written in the document ("0.04707"), to find it again elsewhere.
    const std::string& number_text() const;
    const std::string& string() const;
    const std::vector<Value>& array() const;
    /// An object's members, in the order written.
    const std::vector<std::pair<std::string, Value>>& members() const;
    bool has(const std::string& key) const;
    /// The member `key` of an object; throws naming the key when there is none.
    const Value& operator[](const std::string& key) const;

private:
    friend class Parser;
    Type type_ = Type::null;
    bool boolean_ = false;
    double number_ = 0;
    std::string text_; ///< a string's value, or a number's text
    std::vector<Value> items_;
    std::vector<std::pair<std::string, Value>> members_;
};

/// Parses a whole document; throws std::runtime_error naming the offset of the first error.
Value parse(const std::string& text);

} // namespace duet::test::json
