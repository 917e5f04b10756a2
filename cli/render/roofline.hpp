// The roofline of one workload's runs as the table and the HTML report show it: a row of figures
// per run, the notes on what is unknown and why, and the chart's marks (render/chart draws them).
#pragma once

#include "model/roofline.hpp"
#include "model/runs.hpp"
#include "render/chart.hpp"

#include <span>
#include <string>
#include <vector>

namespace duet::cli {

/// The headings of roofline_cells.
std::vector<std::string> roofline_headers();
/// Whether roofline_cells' column `index` holds figures (aligned right) rather than words: the
/// device, API, variant and bound are words.
bool roofline_column_holds_figures(std::size_t index);
/// A run's row: device, API, variant, intensity, GB/s and its share of the bandwidth roof,
/// GFLOP/s and its share of the FMA roof, its share of the run's own device-to-device copy, and the
/// bound; "-" for what is unknown.
std::vector<std::string> roofline_cells(const Run& run, const Roofline& line);
/// Why figures are missing, each once: a device's unknown peaks, a run whose workload declares no
/// flops.
std::vector<std::string> roofline_notes(std::span<const Run> runs, std::span<const Roofline> lines);
/// The chart of `lines` (one per run of `runs`): a roof per device whose peaks are known, and a
/// series per variant and GPU joining its CUDA and OpenCL points; roofline_notes under it.
chart::RooflineChart roofline_chart(std::span<const Run> runs, std::span<const Roofline> lines);

} // namespace duet::cli
