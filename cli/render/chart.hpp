// Hand-written SVG charts for the HTML report: horizontal bars (one per device, grouped by variant,
// optionally split into phases), and lines of a metric against a swept parameter. Every mark
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

std::string bars(const BarChart& chart);
std::string lines(const LineChart& chart);

/// A colour for the index-th device or series, distinct for the first ten.
std::string palette(std::size_t index);
/// `text` with &, <, > and " escaped for HTML and SVG.
std::string escape(const std::string& text);

} // namespace duet::cli::chart
