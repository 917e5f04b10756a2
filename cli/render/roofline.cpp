// The roofline's rows, notes and chart marks, from the model's figures.
#include "render/roofline.hpp"

#include "model/environment.hpp"
#include "render/format.hpp"

#include <algorithm>

namespace duet::cli {

std::vector<std::string> roofline_headers()
{
    return {"device",       "API",     "variant",     "flop/byte",   "GB/s",
            "of peak GB/s", "GFLOP/s", "of peak FMA", "of d2d copy", "bound"};
}

bool roofline_column_holds_figures(std::size_t index)
{
    return index >= 3 && index + 1 < roofline_headers().size();
}

std::vector<std::string> roofline_cells(const Run& run, const Roofline& line)
{
    return {run.job.label,
            api_label(run.job.device),
            run.job.variant,
            line.intensity ? format::figure(*line.intensity) : "-",
            format::rate(line.gbps),
            format::percent(line.of_peak_bandwidth),
            format::rate(line.gflops),
            line.of_peak_flops ? format::percent(*line.of_peak_flops) + " " + line.peaks.flops_of.substr(0, 4) : "-",
            format::percent(line.of_d2d_copy),
            line.bound ? to_string(*line.bound) : "-"};
}

std::vector<std::string> roofline_notes(std::span<const Run> runs, std::span<const Roofline> lines)
{
    std::vector<std::string> notes;
    const auto add = [&](std::string note) {
        if (std::find(notes.begin(), notes.end(), note) == notes.end()) {
            notes.push_back(std::move(note));
        }
    };
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!runs[i].measured()) {
            continue;
        }
        for (const auto& why : lines[i].peaks.unknown) {
            add("no roof for " + runs[i].job.label + ": " + why);
        }
        if (!lines[i].flops) {
            add(runs[i].job.info.name + " declares no flops for " + runs[i].job.variant +
                ": no intensity, no point on the chart");
        }
    }
    return notes;
}

chart::RooflineChart roofline_chart(std::span<const Run> runs, std::span<const Roofline> lines)
{
    chart::RooflineChart chart{runs.front().job.info.name + ": roofline (GFLOP/s against flop/byte, log-log)",
                               {},
                               {},
                               roofline_notes(runs, lines)};
    // The runs each series holds, to join a run to the series of its GPU's other API.
    std::vector<const Run*> series_runs;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const Run& run = runs[i];
        const Roofline& line = lines[i];
        if (!run.measured()) {
            continue;
        }
        const DeviceProperties& device = run.job.device.properties();
        if (line.peaks.gbps && line.peaks.gflops) {
            const std::string label = device.name + " (" + line.peaks.flops_of + ")";
            if (std::none_of(chart.roofs.begin(), chart.roofs.end(),
                             [&](const chart::Roof& roof) { return roof.label == label; })) {
                chart.roofs.push_back(
                    {label, *line.peaks.gbps, *line.peaks.gflops, chart::palette(7 + chart.roofs.size())});
            }
        }
        if (!line.intensity || !line.gflops) {
            continue; // roofline_notes says why
        }
        // Two devices of one name (PoCL's two CPU devices), not one GPU through two APIs, measured on
        // this variant: the point's label ends with its device, and its series' legend starts so.
        const auto namesake = [&](const Run& other) {
            const DeviceProperties& theirs = other.job.device.properties();
            return other.measured() && other.job.variant == run.job.variant && other.job.label != run.job.label &&
                   theirs.name == device.name && !same_gpu(theirs, device);
        };
        const bool told_apart = std::any_of(runs.begin(), runs.end(), namesake);
        const chart::RooflinePoint point{run.job.variant + " " + api_label(run.job.device) +
                                             (told_apart ? " " + run.job.label : ""),
                                         *line.intensity, *line.gflops};
        const auto same = std::find_if(series_runs.begin(), series_runs.end(), [&](const Run* other) {
            return other->job.variant == run.job.variant && same_gpu(other->job.device.properties(), device);
        });
        if (same != series_runs.end()) {
            chart.series[static_cast<std::size_t>(same - series_runs.begin())].points.push_back(point);
            continue;
        }
        series_runs.push_back(&run);
        // The legend is cut short at its end: the device goes first.
        chart.series.push_back({(told_apart ? run.job.label + " " : "") + run.job.variant + " on " + device.name,
                                chart::palette(chart.series.size()),
                                {point}});
    }
    return chart;
}

} // namespace duet::cli
