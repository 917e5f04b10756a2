// SVG drawing: scales, ticks, marks and legends, written out as text.
#include "render/chart.hpp"

#include "render/format.hpp"
#include "render/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace duet::cli::chart {

namespace {

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

/// 1, 2 or 5 times a power of ten, giving about `target` steps over `range`.
double nice_step(double range, int target)
{
    const double raw = range / target;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double fraction = raw / magnitude;
    return magnitude * (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10);
}

/// Maps data values onto pixels, linearly or logarithmically.
struct Scale {
    double low, high;  ///< data range
    double start, end; ///< pixel range
    bool log = false;

    double operator()(double value) const
    {
        const double a = log ? std::log10(low) : low, b = log ? std::log10(high) : high;
        const double v = log ? std::log10(std::max(value, low)) : value;
        return b == a ? (start + end) / 2 : start + (v - a) / (b - a) * (end - start);
    }

    std::vector<double> ticks() const
    {
        std::vector<double> ticks;
        if (!(high > low)) {
            return {low};
        }
        if (log) {
            for (double tick = std::pow(10.0, std::ceil(std::log10(low))); tick <= high * 1.0001; tick *= 10) {
                ticks.push_back(tick);
            }
            return ticks;
        }
        const double step = nice_step(high - low, 5);
        for (double tick = std::ceil(low / step) * step; tick <= high + step * 1e-6; tick += step) {
            ticks.push_back(std::abs(tick) < step * 1e-9 ? 0 : tick);
        }
        return ticks;
    }
};

/// From 0 (or the data's low end on a log scale) to a round number above the largest value.
Scale value_scale(double low, double high, double start, double end, bool allow_log)
{
    if (allow_log && low > 0 && high / low > 50) {
        return {std::pow(10.0, std::floor(std::log10(low))), std::pow(10.0, std::ceil(std::log10(high))), start, end,
                true};
    }
    const double top = high > 0 ? std::ceil(high / nice_step(high, 5)) * nice_step(high, 5) : 1;
    return {0, top, start, end, false};
}

std::string text(double x, double y, const std::string& content, const std::string& attributes = "")
{
    return "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\"" + (attributes.empty() ? "" : " " + attributes) +
           ">" + escape(content) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& attributes)
{
    return "<line x1=\"" + number(x1) + "\" y1=\"" + number(y1) + "\" x2=\"" + number(x2) + "\" y2=\"" + number(y2) +
           "\" " + attributes + "/>\n";
}

std::string svg_open(double width, double height, const std::string& title)
{
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" + number(width) + "\" height=\"" +
           number(height) + "\" viewBox=\"0 0 " + number(width) + " " + number(height) +
           "\" role=\"img\" aria-label=\"" + escape(title) + "\">\n" + text(10, 20, title, "class=\"title\"");
}

std::string value_label(double value, const std::string& unit)
{
    return unit == "ms"  ? format::milliseconds(value) + " ms"
           : unit == "x" ? format::ratio(value)
                         : format::rate(value) + " " + unit;
}

const char* segment_colors[] = {"#9ecae1", "#3182bd", "#fdae6b"};

} // namespace

std::string palette(std::size_t index)
{
    static const char* colors[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
                                   "#e6ab02", "#a6761d", "#666666", "#1f78b4", "#b15928"};
    return colors[index % std::size(colors)];
}

std::string escape(const std::string& text)
{
    std::string out;
    for (const char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

namespace {

/// The bar chart's layout, in SVG units: labels left of the plot, bars stacked down in groups.
constexpr double bar_label_width = 300, bar_left = bar_label_width + 10, bar_right = 780;
constexpr double bar_height = 18, bar_gap = 5, bar_group_gap = 24, bar_top = 40;

/// The stacked segments' legend, a row at `y`.
std::string segment_legend(const BarChart& chart, double y)
{
    std::string svg;
    double x = bar_left;
    for (std::size_t i = 0; i < chart.segments.size(); ++i) {
        svg += "<rect x=\"" + number(x) + "\" y=\"" + number(y) + "\" width=\"12\" height=\"12\" fill=\"" +
               segment_colors[i % std::size(segment_colors)] + "\"/>\n";
        svg += text(x + 16, y + 10, chart.segments[i], "class=\"legend\"");
        x += 30 + 8.0 * static_cast<double>(display_width(chart.segments[i]));
    }
    return svg;
}

/// One bar at `y`: its label, its segments end to end, and its total after them.
std::string bar_marks(const BarChart& chart, const Bar& bar, const Scale& scale, double y)
{
    const bool stacked = chart.segments.size() > 1;
    std::string svg = text(bar_label_width, y + 13, truncate(bar.label, 44), "text-anchor=\"end\" class=\"label\"");
    double x = bar_left, sum = 0;
    for (std::size_t i = 0; i < bar.segments.size(); ++i) {
        const double value = bar.segments[i];
        const double end = scale(sum + value);
        const std::string color = stacked ? segment_colors[i % std::size(segment_colors)] : bar.color;
        const std::string name = stacked ? chart.segments[i] : chart.segments.front();
        svg += "<rect x=\"" + number(x) + "\" y=\"" + number(y) + "\" width=\"" + number(std::max(end - x, 0.0)) +
               "\" height=\"" + number(bar_height) + "\" fill=\"" + color + "\" data-series=\"" + escape(bar.label) +
               "\" data-metric=\"" + escape(chart.metric) + "\" data-segment=\"" + escape(name) + "\" data-value=\"" +
               format::exact(value) + "\"><title>" + escape(bar.label) + ": " + escape(name) + " " +
               escape(value_label(value, chart.unit)) + "</title></rect>\n";
        x = end;
        sum += value;
    }
    return svg + text(x + 6, y + 13, value_label(sum, chart.unit), "class=\"value\"");
}

} // namespace

std::string bars(const BarChart& chart)
{
    constexpr double width = 900;
    const bool stacked = chart.segments.size() > 1;
    double largest = chart.reference;
    std::size_t bar_count = 0;
    for (const auto& group : chart.groups) {
        for (const auto& bar : group.bars) {
            double sum = 0;
            for (const double value : bar.segments) {
                sum += value;
            }
            if (std::isfinite(sum)) { // one unmeasurable bar must not flatten the others
                largest = std::max(largest, sum);
            }
            ++bar_count;
        }
    }
    const double legend = stacked ? 24 : 0;
    const double plot_top = bar_top + legend;
    const double plot_bottom = plot_top + static_cast<double>(chart.groups.size()) * bar_group_gap +
                               static_cast<double>(bar_count) * (bar_height + bar_gap);
    const Scale scale = value_scale(0, largest, bar_left, bar_right, false);

    std::string svg = svg_open(width, plot_bottom + 40, chart.title);
    if (stacked) {
        svg += segment_legend(chart, bar_top);
    }
    // The grid first, so that the bars are drawn over it.
    for (const double tick : scale.ticks()) {
        svg += line(scale(tick), plot_top, scale(tick), plot_bottom, "class=\"grid\"");
        svg += text(scale(tick), plot_bottom + 16, format::compact(tick), "text-anchor=\"middle\" class=\"tick\"");
    }
    double y = plot_top;
    for (const auto& group : chart.groups) {
        svg += text(10, y + 16, group.title, "class=\"group\"");
        y += bar_group_gap;
        for (const auto& bar : group.bars) {
            svg += bar_marks(chart, bar, scale, y);
            y += bar_height + bar_gap;
        }
    }
    if (chart.reference > 0) {
        svg += line(scale(chart.reference), plot_top, scale(chart.reference), plot_bottom, "class=\"reference\"");
    }
    svg += text((bar_left + bar_right) / 2, plot_bottom + 34, chart.unit, "text-anchor=\"middle\" class=\"axis\"");
    return svg + "</svg>\n";
}

namespace {

/// The line chart's plot area, in SVG units; the legend sits right of it.
constexpr double line_left = 80, line_right = 620, line_top = 40, line_bottom = 340;

/// The x value's label: its category, or the number.
std::string x_label(const LineChart& chart, double x, bool exact)
{
    if (!chart.categories.empty()) {
        return chart.categories.at(static_cast<std::size_t>(x));
    }
    return exact ? format::exact(x) : format::compact(x);
}

/// Grid, ticks and axis titles. The swept values themselves label the x axis when there are few;
/// else round ticks.
std::string line_axes(const LineChart& chart, const Scale& x_scale, const Scale& y_scale, const std::set<double>& xs)
{
    std::string svg;
    for (const double tick : y_scale.ticks()) {
        svg += line(line_left, y_scale(tick), line_right, y_scale(tick), "class=\"grid\"");
        svg += text(line_left - 6, y_scale(tick) + 4, format::compact(tick), "text-anchor=\"end\" class=\"tick\"");
    }
    std::vector<double> x_ticks(xs.begin(), xs.end());
    if (chart.categories.empty() && xs.size() > 12) {
        x_ticks = x_scale.ticks();
    }
    for (const double tick : x_ticks) {
        svg += line(x_scale(tick), line_bottom, x_scale(tick), line_bottom + 4, "class=\"axis-line\"");
        svg +=
            text(x_scale(tick), line_bottom + 18, x_label(chart, tick, false), "text-anchor=\"middle\" class=\"tick\"");
    }
    svg += line(line_left, line_bottom, line_right, line_bottom, "class=\"axis-line\"");
    svg += line(line_left, line_top, line_left, line_bottom, "class=\"axis-line\"");
    svg += text((line_left + line_right) / 2, line_bottom + 40, chart.x_label + (x_scale.log ? " (log scale)" : ""),
                "text-anchor=\"middle\" class=\"axis\"");
    const double middle = (line_top + line_bottom) / 2;
    svg += text(18, middle, chart.y_label + (y_scale.log ? " (log scale)" : ""),
                "text-anchor=\"middle\" class=\"axis\" transform=\"rotate(-90 18 " + number(middle) + ")\"");
    return svg;
}

/// One series: its line, each point with its whisker and the values it stands for, and its legend
/// entry at `legend_y`.
std::string series_marks(const LineChart& chart, const Series& series, const Scale& x_scale, const Scale& y_scale,
                         double legend_y)
{
    std::string path;
    for (const auto& point : series.points) {
        path += (path.empty() ? "" : " ") + number(x_scale(point.x)) + "," + number(y_scale(point.y));
    }
    const std::string dash = series.dash.empty() ? "" : " stroke-dasharray=\"" + series.dash + "\"";
    std::string svg = "<polyline fill=\"none\" stroke=\"" + series.color + "\" stroke-width=\"2\"" + dash +
                      " points=\"" + path + "\"/>\n";
    for (const auto& point : series.points) {
        const double x = x_scale(point.x);
        if (point.high > point.low) {
            svg += line(x, y_scale(point.low), x, y_scale(point.high),
                        "stroke=\"" + series.color + "\" class=\"whisker\"");
        }
        const std::string at = x_label(chart, point.x, true);
        svg += "<circle cx=\"" + number(x) + "\" cy=\"" + number(y_scale(point.y)) + "\" r=\"3.5\" fill=\"" +
               series.color + "\" data-series=\"" + escape(series.label) + "\" data-metric=\"" + escape(chart.metric) +
               "\" data-x=\"" + escape(at) + "\" data-value=\"" + format::exact(point.y) + "\"><title>" +
               escape(series.label) + " at " + escape(chart.x_label) + " " + escape(at) + ": " +
               escape(format::compact(point.y)) + " (" + escape(format::compact(point.low)) + " to " +
               escape(format::compact(point.high)) + ")</title></circle>\n";
    }
    svg += line(line_right + 10, legend_y + 6, line_right + 38, legend_y + 6,
                "stroke=\"" + series.color + "\" stroke-width=\"3\"" + dash);
    return svg + text(line_right + 42, legend_y + 10, truncate(series.label, 34), "class=\"legend\"");
}

} // namespace

std::string lines(const LineChart& chart)
{
    constexpr double width = 900;
    // Tall enough for the legend, one line per series, beside the plot.
    const double height = std::max(400.0, line_top + 18.0 * static_cast<double>(chart.series.size()) + 20);
    double x_low = INFINITY, x_high = -INFINITY, y_low = INFINITY, y_high = -INFINITY;
    std::set<double> xs;
    for (const auto& series : chart.series) {
        for (const auto& point : series.points) {
            x_low = std::min(x_low, point.x);
            x_high = std::max(x_high, point.x);
            y_low = std::min(y_low, point.low);
            y_high = std::max(y_high, point.high);
            xs.insert(point.x);
        }
    }
    std::string svg = svg_open(width, height, chart.title);
    if (xs.empty()) {
        return svg + text(line_left, line_top + 40, "no measured points") + "</svg>\n";
    }
    Scale x_scale{x_low, x_high, line_left + 20, line_right - 20, false};
    if (!chart.categories.empty()) {
        x_scale = {0, static_cast<double>(chart.categories.size() - 1), line_left + 30, line_right - 30, false};
    } else if (x_low > 0 && x_high / x_low >= 16) {
        x_scale.log = true;
    }
    const Scale y_scale = value_scale(y_low, y_high, line_bottom, line_top, true);
    svg += line_axes(chart, x_scale, y_scale, xs);
    double legend_y = line_top;
    for (const auto& series : chart.series) {
        svg += series_marks(chart, series, x_scale, y_scale, legend_y);
        legend_y += 18;
    }
    return svg + "</svg>\n";
}

namespace {

/// A log scale over whole decades holding every one of `values` with room either side.
Scale decades(const std::vector<double>& values, double start, double end)
{
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    const double bottom = std::pow(10.0, std::floor(std::log10(*low / 2)));
    const double top = std::pow(10.0, std::ceil(std::log10(*high * 2)));
    return {bottom, top, start, end, true};
}

/// A label's box on the chart: the text's extent left to right, and its baseline.
struct LabelBox {
    double left, right, baseline;
};

/// The label class's 12px font: a line's height, and a character's width on average.
constexpr double label_line = 13, label_character = 6.5;

/// Whether the extents of two labels cross, left to right.
bool crosses(const LabelBox& box, const LabelBox& other)
{
    return box.left < other.right && other.left < box.right;
}

/// Whether `box` overprints `other`: their extents cross and their baselines are under a line apart.
bool overprints(const LabelBox& box, const LabelBox& other)
{
    return crosses(box, other) && std::abs(box.baseline - other.baseline) < label_line;
}

/// Moves `label` a line at a time in `direction` (+1 down, -1 up) past each label of `placed` from
/// `first` on that it crosses, so that their order holds, then past anything of `placed` it would
/// still overprint.
void settle(LabelBox& label, const std::vector<LabelBox>& placed, std::size_t first, double direction)
{
    for (std::size_t other = first; other < placed.size(); ++other) {
        if (crosses(label, placed[other])) {
            const double beyond = placed[other].baseline + direction * label_line;
            label.baseline = direction > 0 ? std::max(label.baseline, beyond) : std::min(label.baseline, beyond);
        }
    }
    for (int guard = 0; guard < 1000; ++guard) {
        const auto hit =
            std::find_if(placed.begin(), placed.end(), [&](const LabelBox& other) { return overprints(label, other); });
        if (hit == placed.end()) {
            return;
        }
        label.baseline = hit->baseline + direction * label_line;
    }
}

/// A roof: the bandwidth line from where it enters the plot up to the ridge, then the FMA rate
/// flat to the right edge; the ridge marked with its intensity. Its name goes at the plot's left,
/// over the low end of the bandwidth line, where kernels' points seldom are (they sit under the
/// flat part); `taken` gets the boxes of both texts, for the points' labels to keep clear of.
std::string roof_marks(const Roof& roof, const Scale& x_scale, const Scale& y_scale, std::vector<LabelBox>& taken)
{
    const double ridge = roof.gflops / roof.gbps;
    // The bandwidth roof enters at the left edge, or at the bottom where it is lower there.
    const double enter = std::max(x_scale.low, y_scale.low / roof.gbps);
    const std::string points = number(x_scale(enter)) + "," + number(y_scale(roof.gbps * enter)) + " " +
                               number(x_scale(ridge)) + "," + number(y_scale(roof.gflops)) + " " +
                               number(x_scale(x_scale.high)) + "," + number(y_scale(roof.gflops));
    std::string svg = "<polyline fill=\"none\" stroke=\"" + roof.color +
                      "\" stroke-width=\"2.5\" class=\"roof\" data-roof=\"" + escape(roof.label) + "\" data-gbps=\"" +
                      format::exact(roof.gbps) + "\" data-gflops=\"" + format::exact(roof.gflops) + "\" points=\"" +
                      points + "\"><title>" + escape(roof.label) + ": " + escape(format::rate(roof.gbps)) + " GB/s, " +
                      escape(format::rate(roof.gflops)) + " GFLOP/s</title></polyline>\n";
    svg += line(x_scale(ridge), y_scale(roof.gflops), x_scale(ridge), line_bottom,
                "stroke=\"" + roof.color + "\" stroke-dasharray=\"4 3\" class=\"ridge\" data-ridge=\"" +
                    format::exact(ridge) + "\"");
    const std::string ridge_text = "ridge " + format::figure(ridge) + " flop/B";
    const LabelBox ridge_box{x_scale(ridge) + 4, x_scale(ridge) + 4 + label_character * ridge_text.size(),
                             y_scale(roof.gflops) + 14};
    svg += text(ridge_box.left, ridge_box.baseline, ridge_text, "class=\"tick\"");
    const std::string name =
        truncate(roof.label, 48) + ": " + format::rate(roof.gflops) + " GFLOP/s, " + format::rate(roof.gbps) + " GB/s";
    // A second GPU's roof at about the same rate puts its name a line above the first's.
    LabelBox name_box{line_left + 6, line_left + 6 + label_character * name.size(), y_scale(roof.gflops) - 5};
    while (
        std::any_of(taken.begin(), taken.end(), [&](const LabelBox& other) { return overprints(name_box, other); })) {
        name_box.baseline -= label_line;
    }
    taken.push_back(ridge_box);
    taken.push_back(name_box);
    return svg + text(name_box.left, name_box.baseline, name, "class=\"legend\"");
}

/// Where a point's label goes.
struct LabelPlace {
    LabelBox box;
    bool left_of_point = false; ///< right-aligned before the point: after it would run into the legend
};

/// Where each point's label goes, series by series: level with its point, right of it (left where
/// it would run into the legend). Points of one workload mostly share an intensity, so their labels
/// stack in a column: they keep their points' order top to bottom, a line apart, pushed down past
/// each other and past `taken` (the roofs' texts), then pulled back up where the column would run
/// below the plot. Each label has a leader line to its point.
std::vector<std::vector<LabelPlace>> label_places(const std::vector<RooflineSeries>& series, const Scale& x_scale,
                                                  const Scale& y_scale, const std::vector<LabelBox>& taken)
{
    struct Wanted {
        std::size_t series, point;
        double y;
    };
    const auto width = [](const RooflinePoint& point) {
        return label_character * static_cast<double>(point.label.size());
    };
    // Labels of points at about one intensity all go on one side, so that they make one column.
    const auto widest_near = [&](double x) {
        double widest = 0;
        for (const auto& one : series) {
            for (const auto& point : one.points) {
                if (std::abs(x_scale(point.intensity) - x) < 20) {
                    widest = std::max(widest, width(point));
                }
            }
        }
        return widest;
    };
    std::vector<Wanted> order;
    std::vector<std::vector<LabelPlace>> places;
    for (std::size_t s = 0; s < series.size(); ++s) {
        auto& row = places.emplace_back();
        for (std::size_t p = 0; p < series[s].points.size(); ++p) {
            const auto& point = series[s].points[p];
            const double x = x_scale(point.intensity), y = y_scale(point.gflops);
            const bool left_of_point = x + 14 + widest_near(x) > line_right + 6;
            const double label_width = width(point);
            const double left = left_of_point ? x - 14 - label_width : x + 14;
            row.push_back({{left, left + label_width, y + 4}, left_of_point});
            order.push_back({s, p, y});
        }
    }
    std::stable_sort(order.begin(), order.end(), [](const Wanted& a, const Wanted& b) { return a.y < b.y; });
    const auto box = [&](const Wanted& at) -> LabelBox& { return places[at.series][at.point].box; };
    // Down the points, top first: each label below the labels above it that it crosses, then below
    // whatever it would still overprint.
    std::vector<LabelBox> placed = taken;
    for (const auto& at : order) {
        settle(box(at), placed, taken.size(), +1);
        placed.push_back(box(at));
    }
    // Up the points, bottom first: a label below the plot's floor comes back up to it, and each
    // label above whatever it would then overprint; unless that would take a label above the
    // plot, where a column is longer than the plot is high: it then runs on below the floor.
    const auto down = places;
    placed = taken;
    for (auto at = order.rbegin(); at != order.rend(); ++at) {
        LabelBox& label = box(*at);
        label.baseline = std::min(label.baseline, line_bottom - 2);
        settle(label, placed, taken.size(), -1);
        if (label.baseline < line_top + 4) {
            return down;
        }
        placed.push_back(label);
    }
    return places;
}

/// A series: its points joined, each a circle with its label at its place and a leader line from
/// the one to the other, and its legend entry.
std::string roofline_series_marks(const RooflineSeries& series, const std::vector<LabelPlace>& places,
                                  const Scale& x_scale, const Scale& y_scale, double legend_y)
{
    std::string path, svg;
    for (std::size_t index = 0; index < series.points.size(); ++index) {
        const auto& point = series.points[index];
        const double x = x_scale(point.intensity), y = y_scale(point.gflops);
        path += (path.empty() ? "" : " ") + number(x) + "," + number(y);
        svg += "<circle cx=\"" + number(x) + "\" cy=\"" + number(y) + "\" r=\"4\" fill=\"" + series.color +
               "\" data-series=\"" + escape(series.label) + "\" data-label=\"" + escape(point.label) +
               "\" data-intensity=\"" + format::exact(point.intensity) + "\" data-value=\"" +
               format::exact(point.gflops) + "\"><title>" + escape(point.label) + " (" + escape(series.label) +
               "): " + escape(format::figure(point.intensity)) + " flop/B, " + escape(format::rate(point.gflops)) +
               " GFLOP/s</title></circle>\n";
        const LabelPlace& place = places[index];
        const double text_x = place.left_of_point ? place.box.right : place.box.left;
        svg += line(place.left_of_point ? x - 5 : x + 5, y, place.left_of_point ? text_x + 2 : text_x - 2,
                    place.box.baseline - 4, "stroke=\"" + series.color + "\" stroke-width=\"1\" class=\"leader\"");
        svg += text(text_x, place.box.baseline, point.label,
                    std::string(place.left_of_point ? "text-anchor=\"end\" " : "") + "class=\"label\"");
    }
    svg = "<polyline fill=\"none\" stroke=\"" + series.color + "\" stroke-width=\"2\" class=\"joined\" points=\"" +
          path + "\"/>\n" + svg;
    svg += line(line_right + 10, legend_y + 6, line_right + 38, legend_y + 6,
                "stroke=\"" + series.color + "\" stroke-width=\"3\"");
    return svg + text(line_right + 42, legend_y + 10, truncate(series.label, 34), "class=\"legend\"");
}

} // namespace

std::string roofline(const RooflineChart& chart)
{
    constexpr double width = 900;
    std::vector<std::string> notes = chart.notes;
    std::vector<RooflineSeries> drawn;
    std::vector<double> xs, ys;
    for (const auto& series : chart.series) {
        RooflineSeries kept{series.label, series.color, {}};
        for (const auto& point : series.points) {
            if (point.intensity > 0 && point.gflops > 0 && std::isfinite(point.intensity) &&
                std::isfinite(point.gflops)) {
                kept.points.push_back(point);
                xs.push_back(point.intensity);
                ys.push_back(point.gflops);
            } else {
                notes.push_back(point.label + " (" + series.label +
                                ") is not drawn: " + format::figure(point.intensity) + " flop/B and " +
                                format::rate(point.gflops) + " GFLOP/s have no place on a log scale");
            }
        }
        if (!kept.points.empty()) {
            drawn.push_back(std::move(kept));
        }
    }
    std::vector<Roof> roofs;
    for (const auto& roof : chart.roofs) {
        if (roof.gbps > 0 && roof.gflops > 0) {
            roofs.push_back(roof);
            xs.push_back(roof.gflops / roof.gbps);
            ys.push_back(roof.gflops);
        }
    }
    double plot_height = line_bottom + 50;
    const double legend_height = line_top + 18.0 * static_cast<double>(drawn.size()) + 20;
    std::string svg; // after the opening tag, whose height the labels may raise
    if (xs.empty()) {
        svg += text(line_left, line_top + 40, "no roof and no kernel to draw");
    } else {
        const Scale x_scale = decades(xs, line_left, line_right);
        // The bandwidth roofs run down to a thousandth of the lowest FMA rate, where nothing is lower.
        for (const auto& roof : roofs) {
            ys.push_back(roof.gflops / 1000);
        }
        const Scale y_scale = decades(ys, line_bottom, line_top);
        const auto x_ticks = x_scale.ticks();
        const LineChart axes{chart.title, "arithmetic intensity (flop/byte)", "GFLOP/s", "roofline", {}, {}};
        svg += line_axes(axes, x_scale, y_scale, std::set<double>(x_ticks.begin(), x_ticks.end()));
        std::vector<LabelBox> taken;
        for (const auto& roof : roofs) {
            svg += roof_marks(roof, x_scale, y_scale, taken);
        }
        const auto places = label_places(drawn, x_scale, y_scale, taken);
        double legend_y = line_top;
        for (std::size_t index = 0; index < drawn.size(); ++index) {
            svg += roofline_series_marks(drawn[index], places[index], x_scale, y_scale, legend_y);
            legend_y += 18;
            for (const auto& place : places[index]) {
                plot_height = std::max(plot_height, place.box.baseline + 20); // a column longer than the plot
            }
        }
    }
    double note_y = std::max(plot_height, legend_height) + 14;
    const double height = std::max(plot_height, legend_height) + 18.0 * static_cast<double>(notes.size()) + 10;
    svg = svg_open(width, height, chart.title) + svg;
    for (const auto& note : notes) {
        svg += text(10, note_y, note, "class=\"note\"");
        note_y += 18;
    }
    return svg + "</svg>\n";
}

} // namespace duet::cli::chart
