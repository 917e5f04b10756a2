// How numbers read in duet's tables and reports: times and rates with the precision that means
// something, sizes in binary units, and the one exact form that JSON, CSV and the report's data
// share, so a value can be found again in each of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <duet/workload/statistics.hpp>

namespace duet::cli::format {

/// The shortest text that reads back as the same double ("0.1", "1e-07"), whole numbers in full
/// ("100000");
/// "inf", "-inf" or "nan" for values that are not finite.
std::string exact(double value);

/// Milliseconds for a table: about four significant digits ("0.0123", "1.234", "123.4").
std::string milliseconds(double ms);
/// Milliseconds with how much the passes vary: "1.234 ±0.8%"; the milliseconds alone where
/// spread() is empty.
std::string milliseconds(double ms, const workload::Summary& summary);
/// GB/s or GFLOP/s for a table ("1.23", "45.6", "2900").
std::string rate(double value);
/// The same, or "-" where there is none.
std::string rate(const std::optional<double>& value);
/// An error or difference: "0" when exactly zero, else two significant digits ("1.2e-07").
std::string error(double value);
/// A distance in ULPs: "3"; "NaN" for the mark of a NaN (UINT64_MAX).
std::string ulps(std::uint64_t value);
/// A figure of unknown kind (a workload's extras): whole numbers as they are ("8192"), others to
/// four significant digits ("0.999", "52.36", "0.2458"), or rounded to whole when that keeps more
/// ("12346" for 12345.6).
std::string figure(double value);
/// A ratio: "1.03x".
std::string ratio(double value);
/// A ratio with its interval: "1.03x [0.98, 1.07]"; "-" where there is none.
std::string ratio(const workload::Ratio& ratio);
/// What a ratio of OpenCL time to CUDA time says: "parity" where its interval holds 1, else
/// "OpenCL slower" or "OpenCL faster"; "-" where there is none.
std::string ratio_verdict(const workload::Ratio& ratio);
/// How much the passes vary: "±1.2%", half the interquartile range over the median; "" for one
/// sample or a median of 0.
std::string spread(const workload::Summary& summary);
/// A fraction as a percentage to one decimal: "12.3%" for 0.123.
std::string percent(double fraction);
/// The same, or "-" where there is none.
std::string percent(const std::optional<double>& fraction);
/// "1 run", "3 runs": a count and its noun, plural by adding "s".
std::string count(std::size_t number, const std::string& noun);
/// Bytes in binary units: "512 B", "48 KiB", "79.6 GiB".
std::string bytes(std::uint64_t count);
/// An axis label: multiples of 1024 with binary suffixes ("16Ki", "1Mi"), other whole numbers
/// below a million as they are ("1000"), else three significant digits ("0.25", "1.5e+06").
std::string compact(double value);

} // namespace duet::cli::format
