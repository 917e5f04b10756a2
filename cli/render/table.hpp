// Terminal tables: a header underlined, columns aligned (numbers to the right), and rows that end
// in free text where a run has no numbers to show ("unsupported: <reason>").
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace duet::cli {

class Table {
public:
    enum class Align { left, right };
    struct Column {
        std::string header;
        Align align = Align::left;
    };

    explicit Table(std::vector<Column> columns);

    void add_row(std::vector<std::string> cells);
    /// The first cells aligned like any row, then `text` running on past the remaining columns.
    void add_row_with_text(std::vector<std::string> cells, std::string text);

    void print(std::ostream& out, const std::string& indent = "  ") const;

private:
    struct Row {
        std::vector<std::string> cells;
        std::string text;
    };
    std::vector<Column> columns_;
    std::vector<Row> rows_;
};

/// Characters a terminal shows for UTF-8 `text` (the arrows and ≤ in headers take one each).
std::size_t display_width(const std::string& text);

/// `text` cut to `width` characters, ending in "..." when it was cut.
std::string truncate(const std::string& text, std::size_t width);
/// The first line of `text` (an error may carry a whole build log), cut to `width`.
std::string headline(const std::string& text, std::size_t width);

} // namespace duet::cli
