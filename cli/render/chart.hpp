// Hand-written SVG charts for the HTML report: horizontal bars (one per device, grouped by variant,
// optionally split into phases), lines of a metric against a swept parameter, and rooflines
// (kernels by arithmetic intensity under their devices' roofs, log-log). Every mark
// carries its exact value in data-value and a tooltip, so each number can be read and checked.
#pragma once

#include <string>
#include <vector>

namespace duet::cli::chart {

struct Bar {
    std::string label;
    std::vector<double> segments; ///< one value per segment name; the bar is their sum
    std::string color;            ///< used when the chart has a single segment
};

struct BarGroup {
    std::string title;
    std::vector<Bar> bars;
};

struct BarChart {
    std::string title;
    std::string unit;                  ///< "ms", "GB/s", "x"
    std::string metric;                ///< data-metric of the marks: "kernel_ms", "rate"
    std::vector<std::string> segments; ///< "h→d", "kernel", "d→h"; one name for plain bars
    std::vector<BarGroup> groups;
    double reference = 0; ///< a dashed line at this value (1 for ratios); none when 0
};

struct Point {
    double x;
    double y;
    double low; ///< the whisker's ends (min and max of the repeats); equal to y for none
    double high;
};

struct Series {
    std::string label;
    std::string color;
    std::string dash; ///< an SVG stroke-dasharray ("6 3") that tells apart lines of one colour; solid when empty
    std::vector<Point> points;
};

struct LineChart {
    std::string title;
    std::string x_label;
    std::string y_label;
    std::string metric;                  ///< data-metric of the marks
    std::vector<std::string> categories; ///< when not empty, x is an index into these (a choice parameter)
    std::vector<Series> series;
};

/// A device's two roofs: memory bandwidth rising to the ridge, the FMA rate flat beyond it.
struct Roof {
    std::string label; ///< the device, and which FMA rate
    double gbps = 0;
    double gflops = 0;
    std::string color;
};

/// A kernel at its arithmetic intensity (flop/byte) and achieved GFLOP/s.
struct RooflinePoint {
    std::string label; ///< "tiled16 CUDA"
    double intensity = 0;
    double gflops = 0;
};

/// Points drawn joined by a line: one kernel on one GPU through CUDA and OpenCL.
struct RooflineSeries {
    std::string label;
    std::string color;
    std::vector<RooflinePoint> points;
};

struct RooflineChart {
    std::string title;
    std::vector<Roof> roofs;
    std::vector<RooflineSeries> series;
    /// Written under the plot: why a device has no roof, why a kernel has no point.
    std::vector<std::string> notes;
};

std::string bars(const BarChart& chart);
std::string lines(const LineChart& chart);
/// Log-log: intensity on x, GFLOP/s on y; each roof with its ridge marked, each series' points
/// joined and labelled. A point a log scale cannot place (0 flops, 0 GFLOP/s) is named in the
/// notes instead.
std::string roofline(const RooflineChart& chart);

/// A colour for the index-th device or series, distinct for the first ten.
std::string palette(std::size_t index);
/// `text` with &, <, > and " escaped for HTML and SVG.
std::string escape(const std::string& text);

} // namespace duet::cli::chart
