// CSV rows: fields with commas, quotes or line breaks are quoted as RFC 4180 says; lines end in
// a bare newline, as the shell tools people pipe CSV through expect.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace duet::cli::csv {

void write_row(std::ostream& out, const std::vector<std::string>& fields);

} // namespace duet::cli::csv
