// Column widths and padding for terminal tables.
#include "render/table.hpp"

#include <algorithm>

namespace duet::cli {

std::size_t display_width(const std::string& text)
{
    // UTF-8 continuation bytes (10xxxxxx) do not start a character.
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string truncate(const std::string& text, std::size_t width)
{
    if (display_width(text) <= width || width < 4) {
        return text;
    }
    std::string out;
    std::size_t shown = 0;
    for (const char c : text) {
        const bool starts = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        if (starts && ++shown > width - 3) {
            break;
        }
        out += c;
    }
    return out + "...";
}

std::string headline(const std::string& text, std::size_t width)
{
    return truncate(text.substr(0, text.find('\n')), width);
}

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::add_row(std::vector<std::string> cells)
{
    rows_.push_back({std::move(cells), {}});
}

void Table::add_row_with_text(std::vector<std::string> cells, std::string text)
{
    rows_.push_back({std::move(cells), std::move(text)});
}

void Table::print(std::ostream& out, const std::string& indent) const
{
    std::vector<std::size_t> widths;
    for (const auto& column : columns_) {
        widths.push_back(display_width(column.header));
    }
    for (const auto& row : rows_) {
        for (std::size_t i = 0; i < row.cells.size() && i < widths.size(); ++i) {
            widths[i] = std::max(widths[i], display_width(row.cells[i]));
        }
    }
    const auto print_line = [&](const std::vector<std::string>& cells, const std::string& text) {
        std::string line = indent;
        for (std::size_t i = 0; i < cells.size() && i < widths.size(); ++i) {
            const std::string padding(widths[i] - display_width(cells[i]), ' ');
            line += (i == 0 ? "" : "  ");
            line += columns_[i].align == Align::right ? padding + cells[i] : cells[i] + padding;
        }
        if (!text.empty()) {
            line += "  " + text;
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out << line << '\n';
    };
    std::vector<std::string> headers, rules;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        headers.push_back(columns_[i].header);
        rules.push_back(std::string(widths[i], '-'));
    }
    print_line(headers, {});
    print_line(rules, {});
    for (const auto& row : rows_) {
        print_line(row.cells, row.text);
    }
}

} // namespace duet::cli
