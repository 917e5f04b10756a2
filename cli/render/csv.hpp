// CSV: compare's and bench's rows. Fields with commas, quotes or line breaks are quoted as RFC 4180
// says; lines end in a bare newline, as the shell tools people pipe CSV through expect.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "model/runs.hpp"
#include "model/sweep.hpp"

namespace duet::cli::csv {

void write_row(std::ostream& out, const std::vector<std::string>& fields);

} // namespace duet::cli::csv

namespace duet::cli {

/// compare's CSV: a row per run, with its device, timings, agreement and the build that ran it.
std::string comparison_csv(const Comparison& comparison);
/// bench's CSV: a row per point, the swept values as columns, medians of every figure.
std::string bench_csv(const Benchmark& bench);

} // namespace duet::cli
