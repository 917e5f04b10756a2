// Quoting for CSV fields.
#include "render/csv.hpp"

namespace duet::cli::csv {

namespace {
std::string field(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos) {
        return text;
    }
    std::string out = "\"";
    for (const char c : text) {
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
}
} // namespace

void write_row(std::ostream& out, const std::vector<std::string>& fields)
{
    for (std::size_t i = 0; i < fields.size(); ++i) {
        out << (i == 0 ? "" : ",") << field(fields[i]);
    }
    out << "\n";
}

} // namespace duet::cli::csv
