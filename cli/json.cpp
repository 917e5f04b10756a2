// Writes JSON values: escapes strings, integers digit for digit, other numbers in their shortest
// exact form.
#include "json.hpp"

#include "format.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace duet::cli::json {

namespace {

void newline(std::ostream& out, int indent)
{
    out << '\n' << std::string(static_cast<std::size_t>(indent), ' ');
}

/// `text` as a JSON string literal, quotes included.
std::string quoted(const std::string& text)
{
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                out += escaped;
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

} // namespace

void Value::write(std::ostream& out, int indent) const
{
    struct Writer {
        std::ostream& out;
        int indent;
        void operator()(std::nullptr_t) const { out << "null"; }
        void operator()(bool value) const { out << (value ? "true" : "false"); }
        void operator()(std::int64_t value) const { out << value; }
        void operator()(std::uint64_t value) const { out << value; }
        void operator()(double value) const { out << (std::isfinite(value) ? format::exact(value) : "null"); }
        void operator()(const std::string& text) const { out << quoted(text); }
        void operator()(const Array& array) const
        {
            bool plain = true;
            for (const auto& item : array) {
                plain = plain && !item.is_container();
            }
            out << '[';
            for (std::size_t i = 0; i < array.size(); ++i) {
                out << (i == 0 ? "" : plain ? ", " : ",");
                if (!plain) {
                    newline(out, indent + 2);
                }
                array[i].write(out, indent + 2);
            }
            if (!plain && !array.empty()) {
                newline(out, indent);
            }
            out << ']';
        }
        void operator()(const Object& object) const
        {
            out << '{';
            for (std::size_t i = 0; i < object.size(); ++i) {
                out << (i == 0 ? "" : ",");
                newline(out, indent + 2);
                out << quoted(object[i].first) << ": ";
                object[i].second.write(out, indent + 2);
            }
            if (!object.empty()) {
                newline(out, indent);
            }
            out << '}';
        }
    };
    std::visit(Writer{out, indent}, value_);
}

std::string Value::document() const
{
    std::ostringstream text;
    write(text);
    text << '\n';
    return text.str();
}

} // namespace duet::cli::json
