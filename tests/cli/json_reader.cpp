// A recursive-descent JSON parser (RFC 8259), strict about what follows each value.
#include "json_reader.hpp"

#include <cstdlib>
#include <stdexcept>

namespace duet::test::json {

namespace {
[[noreturn]] void wrong(const std::string& what)
{
    throw std::runtime_error("JSON: " + what);
}
} // namespace

bool Value::boolean() const
{
    if (type_ != Type::boolean) {
        wrong("not a boolean");
    }
    return boolean_;
}

double Value::number() const
{
    if (type_ != Type::number) {
        wrong("not a number");
    }
    return number_;
}

const std::string& Value::number_text() const
{
    if (type_ != Type::number) {
        wrong("not a number");
    }
    return text_;
}

const std::string& Value::string() const
{
    if (type_ != Type::string) {
        wrong("not a string");
    }
    return text_;
}

const std::vector<Value>& Value::array() const
{
    if (type_ != Type::array) {
        wrong("not an array");
    }
    return items_;
}

const std::vector<std::pair<std::string, Value>>& Value::members() const
{
    if (type_ != Type::object) {
        wrong("not an object");
    }
    return members_;
}

bool Value::has(const std::string& key) const
{
    for (const auto& [name, value] : members_) {
        if (name == key) {
            return true;
        }
    }
    return false;
}

const Value& Value::operator[](const std::string& key) const
{
    if (type_ != Type::object) {
        wrong("not an object, looking for '" + key + "'");
    }
    for (const auto& [name, value] : members_) {
        if (name == key) {
            return value;
        }
    }
    wrong("no member '" + key + "'");
}

class Parser {
public:
    explicit Parser(const std::string& text) : text_(text) {}

    Value document()
    {
        Value value = parse_value();
        skip_space();
        if (at_ < text_.size()) {
            fail("text after the document");
        }
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { wrong(what + " at offset " + std::to_string(at_)); }

    void skip_space()
    {
        while (at_ < text_.size() &&
               (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t')) {
            ++at_;
        }
    }

    bool take(char c)
    {
        skip_space();
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }

    void expect(char c)
    {
        if (!take(c)) {
            fail(std::string("expected '") + c + "'");
        }
    }

    bool take_word(const std::string& word)
    {
        if (text_.compare(at_, word.size(), word) == 0) {
            at_ += word.size();
            return true;
        }
        return false;
    }

    Value parse_value()
    {
        skip_space();
        if (at_ >= text_.size()) {
            fail("unexpected end");
        }
        Value value;
        const char c = text_[at_];
        if (c == '{') {
            ++at_;
            value.type_ = Value::Type::object;
            if (!take('}')) {
                do {
                    skip_space();
                    std::string key = parse_string();
                    expect(':');
                    value.members_.emplace_back(std::move(key), parse_value());
                } while (take(','));
                expect('}');
            }
        } else if (c == '[') {
            ++at_;
            value.type_ = Value::Type::array;
            if (!take(']')) {
                do {
                    value.items_.push_back(parse_value());
                } while (take(','));
                expect(']');
            }
        } else if (c == '"') {
            value.type_ = Value::Type::string;
            value.text_ = parse_string();
        } else if (take_word("true") || take_word("false")) {
            value.type_ = Value::Type::boolean;
            value.boolean_ = c == 't';
        } else if (take_word("null")) {
            value.type_ = Value::Type::null;
        } else {
            const std::size_t start = at_;
            while (at_ < text_.size() && std::string("+-0123456789.eE").find(text_[at_]) != std::string::npos) {
                ++at_;
            }
            value.type_ = Value::Type::number;
            value.text_ = text_.substr(start, at_ - start);
            char* end = nullptr;
            value.number_ = std::strtod(value.text_.c_str(), &end);
            if (value.text_.empty() || *end != '\0') {
                fail("not a value");
            }
        }
        return value;
    }

    std::string parse_string()
    {
        if (at_ >= text_.size() || text_[at_] != '"') {
            fail("expected a string");
        }
        ++at_;
        std::string out;
        while (at_ < text_.size() && text_[at_] != '"') {
            char c = text_[at_++];
            if (static_cast<unsigned char>(c) < 0x20) {
                fail("control character in a string");
            }
            if (c == '\\') {
                if (at_ >= text_.size()) {
                    fail("unfinished escape");
                }
                const char escaped = text_[at_++];
                switch (escaped) {
                case 'n':
                    c = '\n';
                    break;
                case 't':
                    c = '\t';
                    break;
                case 'r':
                    c = '\r';
                    break;
                case 'b':
                    c = '\b';
                    break;
                case 'f':
                    c = '\f';
                    break;
                case 'u': {
                    // duet escapes only control characters this way, which fit one byte.
                    if (at_ + 4 > text_.size()) {
                        fail("short \\u escape");
                    }
                    c = static_cast<char>(std::strtol(text_.substr(at_, 4).c_str(), nullptr, 16));
                    at_ += 4;
                    break;
                }
                case '"':
                case '\\':
                case '/':
                    c = escaped;
                    break;
                default:
                    fail("unknown escape");
                }
            }
            out += c;
        }
        if (at_ >= text_.size()) {
            fail("unterminated string");
        }
        ++at_;
        return out;
    }

    const std::string& text_;
    std::size_t at_ = 0;
};

Value parse(const std::string& text)
{
    return Parser(text).document();
}

} // namespace duet::test::json
