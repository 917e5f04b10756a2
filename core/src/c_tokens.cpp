// One pass over the source, counting lines as it goes so that a message can name the line of a
// kernel or parameter; what a compiler would also ignore (comments, directives) never becomes a
// token, so a kernel in a comment or a macro is not taken for a declaration.
#include <duet/detail/c_tokens.hpp>

#include <algorithm>
#include <cctype>

namespace duet::detail {

namespace {

bool is_name_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

} // namespace

std::vector<CToken> c_tokens(std::string_view source)
{
    std::vector<CToken> tokens;
    std::size_t line = 1;
    bool line_start = true;
    for (std::size_t i = 0; i < source.size();) {
        const char c = source[i];
        if (c == '\n') {
            ++line;
            ++i;
            line_start = true;
        } else if (std::isspace(static_cast<unsigned char>(c)) != 0) {
            ++i;
        } else if (c == '#' && line_start) {
            for (; i < source.size() && source[i] != '\n'; ++i) {
                if (source.substr(i, 2) == "\\\n") { // a backslash right before the newline continues it
                    ++line;
                    ++i;
                }
            }
        } else if (source.substr(i, 2) == "//") {
            i = std::min(source.find('\n', i), source.size());
        } else if (source.substr(i, 2) == "/*") {
            const std::size_t end = source.find("*/", i + 2);
            const std::size_t stop = end == std::string_view::npos ? source.size() : end + 2;
            line += static_cast<std::size_t>(std::count(source.begin() + i, source.begin() + stop, '\n'));
            i = stop;
        } else if (c == '"' || c == '\'') {
            const std::size_t token_line = line;
            std::size_t j = i + 1;
            for (; j < source.size() && source[j] != c && source[j] != '\n'; ++j) {
                if (source[j] == '\\' && j + 1 < source.size()) { // an escape, of a newline too
                    line += source[j + 1] == '\n' ? 1 : 0;
                    ++j;
                }
            }
            j += j < source.size() && source[j] == c ? 1 : 0; // the newline that ends an unterminated one stays
            tokens.push_back({source.substr(i, j - i), i, token_line});
            i = j;
            line_start = false;
        } else if (is_name_char(c)) {
            std::size_t j = i;
            while (j < source.size() && is_name_char(source[j])) {
                ++j;
            }
            tokens.push_back({source.substr(i, j - i), i, line});
            i = j;
            line_start = false;
        } else {
            tokens.push_back({source.substr(i, 1), i, line});
            ++i;
            line_start = false;
        }
    }
    return tokens;
}

bool is_c_name(std::string_view token)
{
    return !token.empty() && (std::isalpha(static_cast<unsigned char>(token.front())) != 0 || token.front() == '_');
}

std::size_t closing_bracket(const std::vector<CToken>& tokens, std::size_t open)
{
    int depth = 0;
    for (std::size_t i = open; i < tokens.size(); ++i) {
        const std::string_view t = tokens[i].text;
        depth += (t == "(" || t == "[" || t == "{") ? 1 : (t == ")" || t == "]" || t == "}") ? -1 : 0;
        if (depth == 0) {
            return i;
        }
    }
    return tokens.size();
}

} // namespace duet::detail
