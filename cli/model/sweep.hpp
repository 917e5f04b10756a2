// Benchmark sweeps: every combination of the swept parameter values, on every selected device and
// variant, measured after warm-up runs and repeated, summarised by median and spread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/runs.hpp"

namespace duet::cli {

/// One point of the sweep: its settings, on one device and variant, and every repeat's figures.
struct Point {
    explicit Point(Job measured) : job(std::move(measured)) {}

    Job job;
    Status status = Status::ok;
    std::string reason;
    bool verified = false;      ///< checked against a reference (a workload may have none)
    bool cross_checked = false; ///< another point's output was compared with its own (Run::cross_checked)
    double max_error = 0;       ///< of the first repeat, the verified one
    double tolerance = 0;
    Measurement::Unit unit = Measurement::Unit::bytes;
    std::string rate_name = "kernel rate"; ///< what the rate is over (runs.hpp's rate_name)
    bool overlapped = false;               ///< its phases ran at once in some repeat (phases_overlap)
    std::vector<double> h2d_ms, kernel_ms, d2h_ms, total_ms, rate;
    std::vector<std::pair<std::string, std::vector<double>>> extras;

    bool measured() const { return !kernel_ms.empty(); }
};

struct Sweep {
    std::string parameter;
    std::vector<std::string> values;
};

struct Benchmark {
    WorkloadInfo info;
    std::vector<Sweep> sweeps;                      ///< in the order given: the first is the charts' x axis
    std::map<std::string, std::string> fixed;       ///< --set values
    std::map<std::string, std::string> build_flags; ///< --options: by API, its runs' Job::build_flags
    unsigned warmup = 0;
    unsigned repeats = 0;
    std::uint64_t seed = 1;
    std::vector<Point> points; ///< by settings, then variant, then device
    Verdict verdict{"point"};
};

/// The most points one bench may measure: a sweep is the cross product of its lists, so a few
/// long lists multiply into more runs than a session can finish (or memory can list).
constexpr std::uint64_t max_bench_points = 10000;
/// The most values one range of --sweep may give.
constexpr std::size_t max_sweep_values = 1000;

/// The values of one item of a --sweep list: "a..b*f" (a, a·f, a·f², ... up to b), "a..b+s" (a,
/// a+s, ... up to b) or "a..b" (step 1); any other item is a value as it stands, for the
/// workload's settings to check. A range that is not one, or gives more than max_sweep_values
/// values, is a UsageError naming `parameter`.
std::vector<std::string> expand_range(const std::string& parameter, const std::string& item);

/// The number of points, counted before any list of them is built: over max_bench_points (or
/// past what 64 bits hold) is a UsageError that names the count and the cap.
std::uint64_t count_points(const std::vector<Sweep>& sweeps, std::size_t variants, std::size_t devices);

/// Every combination of the swept values over the fixed ones, the last sweep varying fastest.
std::vector<std::map<std::string, std::string>> combinations(const std::vector<Sweep>& sweeps,
                                                             const std::map<std::string, std::string>& fixed);

/// A point from a run (executed with its warm-up passes and repeats, checked against the
/// reference once, after them, and cross-checked), its repeats' figures where it was measured.
Point point_of(const Run& run);

} // namespace duet::cli
