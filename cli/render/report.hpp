// The HTML report of compare and bench: one self-contained file (inline CSS and SVG, nothing
// fetched from the network) holding the environment, the tables and the charts.
#pragma once

#include <string>

#include "model/runs.hpp"
#include "model/scaling.hpp"
#include "model/sweep.hpp"

namespace duet::cli {

/// Per workload: time per phase and rate on every device (CUDA and OpenCL side by side), the
/// table, and for one GPU reached through both APIs the OpenCL/CUDA time ratios.
std::string compare_report(const Comparison& comparison);

/// Each metric (rate, kernel and total time, the workload's extras) against the first swept
/// parameter, one line per variant, device and value of the other swept parameters.
std::string bench_report(const Benchmark& bench);

/// For each table (strong scaling, and weak where asked): each API's time, speedup (or weak
/// efficiency) and communication share against the rank count, and the points' table.
std::string scale_report(const std::vector<Scaling>& tables);

} // namespace duet::cli
