// The roofline from known numbers: an H100 SXM's roofs from its properties (132 SMs at 1755 MHz,
// compute capability 9.0, HBM3 at 2619 MHz over 5120 bits), a kernel's intensity, rates and their
// fractions, the bound either side of the ridge, unknown peaks leaving the fractions unknown with
// the reason, and the chart drawing the roofs and a kernel's CUDA and OpenCL points joined.
#include "model/roofline.hpp"
#include "render/chart.hpp"
#include "render/format.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace duet::cli {
namespace {

using ::testing::HasSubstr;

DeviceProperties h100()
{
    DeviceProperties device;
    device.name = "NVIDIA H100 80GB HBM3";
    device.platform = "CUDA";
    device.type = DeviceType::gpu;
    device.compute_units = 132;
    device.clock_mhz = 1755;
    device.compute_capability_major = 9;
    device.compute_capability_minor = 0;
    device.memory_clock_mhz = 2619;
    device.memory_bus_width_bits = 5120;
    device.pci_bus_id = "0000:1b:00.0";
    return device;
}

// 2 × 2619 MHz × 5120 bits / 8 bytes; 132 SMs × 128 FP32 lanes × 2 flops × 1755 MHz.
constexpr double h100_gbps = 3352.32;
constexpr double h100_fp32_gflops = 59304.96;

/// A measurement of `bytes` and `flops` whose kernel phase took `ms`.
Measurement measured(std::optional<double> bytes, std::optional<double> flops, double ms)
{
    Measurement m;
    m.bytes = bytes;
    m.flops = flops;
    m.kernel_ms = ms;
    return m;
}

TEST(Roofline, H100RoofsAndRidge)
{
    const DevicePeaks peaks = device_peaks(h100(), false);
    ASSERT_TRUE(peaks.gbps && peaks.gflops);
    EXPECT_NEAR(*peaks.gbps, h100_gbps, 1e-6);
    EXPECT_NEAR(*peaks.gflops, h100_fp32_gflops, 1e-6);
    EXPECT_EQ(peaks.flops_of, "FP32 FMA rate");
    EXPECT_TRUE(peaks.unknown.empty());
    ASSERT_TRUE(peaks.ridge());
    EXPECT_NEAR(*peaks.ridge(), h100_fp32_gflops / h100_gbps, 1e-9); // about 17.7 flop/byte
    const DevicePeaks fp64 = device_peaks(h100(), true);
    EXPECT_NEAR(*fp64.gflops, h100_fp32_gflops / 2, 1e-6);
    EXPECT_EQ(fp64.flops_of, "FP64 FMA rate");
}

TEST(Roofline, IntensityRatesAndFractionsFromKnownNumbers)
{
    // vector_add over 1e9 floats in 10 ms: 12 GB and 1 GFLOP.
    Measurement m = measured(12e9, 1e9, 10);
    m.extras.emplace_back("d2d_copy_gbps", 2400.0);
    const Roofline line = roofline(m, device_peaks(h100(), false));
    ASSERT_TRUE(line.intensity && line.gbps && line.gflops);
    EXPECT_DOUBLE_EQ(*line.intensity, 1.0 / 12);
    EXPECT_DOUBLE_EQ(*line.gbps, 1200);
    EXPECT_DOUBLE_EQ(*line.gflops, 100);
    EXPECT_NEAR(*line.of_peak_bandwidth, 1200 / h100_gbps, 1e-12);
    EXPECT_NEAR(*line.of_peak_flops, 100 / h100_fp32_gflops, 1e-12);
    EXPECT_DOUBLE_EQ(*line.d2d_copy_gbps, 2400);
    EXPECT_DOUBLE_EQ(*line.of_d2d_copy, 0.5);
    // The table's "of peak" is the fraction in the workload's own unit.
    EXPECT_EQ(line.of_peak(Measurement::Unit::bytes), line.of_peak_bandwidth);
    EXPECT_EQ(line.of_peak(Measurement::Unit::flops), line.of_peak_flops);
    ASSERT_TRUE(line.peak(Measurement::Unit::flops));
    EXPECT_EQ(line.peak(Measurement::Unit::flops)->of, "FP32 FMA rate");
    EXPECT_EQ(line.peak(Measurement::Unit::bytes)->of, "memory bandwidth");
}

TEST(Roofline, RateTimeIsTheMeasuredOperationsWhereTheWorkloadSetsOne)
{
    Measurement m = measured(8e9, 0, 10);
    m.rate_ms = 4; // a copy timed apart from the kernel phase
    const Roofline line = roofline(m, device_peaks(h100(), false));
    EXPECT_DOUBLE_EQ(*line.gbps, 2000);
    EXPECT_DOUBLE_EQ(*line.gflops, 0);
    EXPECT_DOUBLE_EQ(*line.intensity, 0);
    EXPECT_EQ(line.bound, Bound::memory);
    EXPECT_FALSE(line.of_d2d_copy) << "no yardstick in this run";
}

TEST(Roofline, BoundIsMemoryLeftOfTheRidgeAndComputeRightOfIt)
{
    const DevicePeaks peaks = device_peaks(h100(), false);
    const double ridge = *peaks.ridge();
    // matmul 4096³: 2·4096³ flops over 3·4096² floats, 683 flop/byte.
    const double n = 4096;
    EXPECT_EQ(roofline(measured(3 * n * n * 4, 2 * n * n * n, 10), peaks).bound, Bound::compute);
    EXPECT_EQ(roofline(measured(1e9, 0.99 * ridge * 1e9, 10), peaks).bound, Bound::memory);
    EXPECT_EQ(roofline(measured(1e9, 1.01 * ridge * 1e9, 10), peaks).bound, Bound::compute);
    EXPECT_STREQ(to_string(Bound::memory), "memory");
    EXPECT_STREQ(to_string(Bound::compute), "compute");
}

TEST(Roofline, UnknownPeaksLeaveFractionsAndBoundUnknownAndSayWhy)
{
    DeviceProperties cpu;
    cpu.name = "pthread-cpu";
    cpu.type = DeviceType::cpu;
    const Roofline line = roofline(measured(12e9, 1e9, 10), device_peaks(cpu, false));
    EXPECT_TRUE(line.intensity && line.gbps && line.gflops) << "what the run itself gives stays known";
    EXPECT_FALSE(line.of_peak_bandwidth);
    EXPECT_FALSE(line.of_peak_flops);
    EXPECT_FALSE(line.bound);
    EXPECT_FALSE(line.peak(Measurement::Unit::bytes));
    ASSERT_EQ(line.peaks.unknown.size(), 2u);
    EXPECT_THAT(line.peaks.unknown[0], HasSubstr("pthread-cpu reports no memory clock or bus width"));
    EXPECT_THAT(line.peaks.unknown[1], HasSubstr("pthread-cpu is not a GPU"));

    DeviceProperties unknown_generation = h100();
    unknown_generation.compute_capability_major = 6;
    const DevicePeaks peaks = device_peaks(unknown_generation, false);
    EXPECT_TRUE(peaks.gbps);
    EXPECT_FALSE(peaks.gflops);
    EXPECT_FALSE(peaks.ridge());
    ASSERT_EQ(peaks.unknown.size(), 1u);
    EXPECT_THAT(peaks.unknown[0], HasSubstr("compute capability 6.0 is not in the architecture table"));
}

TEST(Roofline, WithoutDeclaredFlopsThereIsNoIntensity)
{
    const Roofline line = roofline(measured(12e9, std::nullopt, 10), device_peaks(h100(), false));
    EXPECT_TRUE(line.gbps);
    EXPECT_FALSE(line.flops);
    EXPECT_FALSE(line.intensity);
    EXPECT_FALSE(line.gflops);
    EXPECT_FALSE(line.bound);
}

TEST(Roofline, OpenClViewTakesItsCudaTwinsRoofs)
{
    DeviceProperties opencl;
    opencl.name = "NVIDIA H100 80GB HBM3";
    opencl.platform = "NVIDIA CUDA";
    opencl.type = DeviceType::gpu;
    opencl.compute_units = 132;
    opencl.pci_bus_id = h100().pci_bus_id;
    const DeviceProperties cuda = h100();
    const std::vector<const DeviceProperties*> devices{&opencl, &cuda};
    const DevicePeaks peaks = device_peaks(opencl, false, devices);
    EXPECT_NEAR(*peaks.gbps, h100_gbps, 1e-6);
    EXPECT_NEAR(*peaks.gflops, h100_fp32_gflops, 1e-6);
    EXPECT_TRUE(peaks.unknown.empty());
    EXPECT_EQ(device_peaks(opencl, false).unknown.size(), 2u) << "without its twin";
}

TEST(RooflineChart, DrawsTheRoofTheRidgeAndTheJoinedPoints)
{
    const DevicePeaks peaks = device_peaks(h100(), false);
    chart::RooflineChart roofline_chart{
        "matmul: roofline",
        {{"H100 (FP32 FMA rate)", *peaks.gbps, *peaks.gflops, "#666666"}},
        {{"tiled16 on H100", "#1b9e77", {{"tiled16 CUDA", 10.67, 9000}, {"tiled16 OpenCL", 10.67, 7000}}}},
        {}};
    const std::string svg = chart::roofline(roofline_chart);
    EXPECT_THAT(svg, HasSubstr("<svg"));
    EXPECT_THAT(svg, HasSubstr("class=\"roof\" data-roof=\"H100 (FP32 FMA rate)\""));
    EXPECT_THAT(svg, HasSubstr("data-ridge=\"" + format::exact(*peaks.ridge())));
    EXPECT_THAT(svg, HasSubstr("arithmetic intensity (flop/byte) (log scale)"));
    EXPECT_THAT(svg, HasSubstr("GFLOP/s (log scale)"));
    // Both points, labelled, and one line through the two.
    EXPECT_THAT(svg, HasSubstr("data-label=\"tiled16 CUDA\" data-intensity=\"10.67\" data-value=\"9000\""));
    EXPECT_THAT(svg, HasSubstr("data-label=\"tiled16 OpenCL\" data-intensity=\"10.67\" data-value=\"7000\""));
    const auto joined = svg.find("class=\"joined\" points=\"");
    ASSERT_NE(joined, std::string::npos);
    const std::string points = svg.substr(joined, svg.find('"', joined + 24) - joined);
    EXPECT_EQ(std::count(points.begin(), points.end(), ','), 2) << points;
}

// The baseline of the label `label` in `svg`.
double label_baseline(const std::string& svg, const std::string& label)
{
    const auto end = svg.find("class=\"label\">" + label + "<");
    EXPECT_NE(end, std::string::npos) << label;
    const auto y = svg.rfind(" y=\"", end);
    return std::stod(svg.substr(y + 4));
}

// Two variants' kernels ran at the same intensity and rate (PoCL's tiled16 and tiled32 did): their
// labels go a line apart, not over each other; a point alone keeps its label level with its circle.
TEST(RooflineChart, LabelsOfPointsAtOnePlaceDoNotOverprint)
{
    chart::RooflineChart chart{"matmul: roofline",
                               {},
                               {{"tiled16 on cpu", "#1b9e77", {{"tiled16 OpenCL (PoCL)", 170, 5.2}}},
                                {"tiled32 on cpu", "#d95f02", {{"tiled32 OpenCL (PoCL)", 170, 5.2}}},
                                {"blocked on cpu", "#7570b3", {{"blocked OpenCL (PoCL)", 170, 60}}}},
                               {}};
    const std::string svg = chart::roofline(chart);
    const double first = label_baseline(svg, "tiled16 OpenCL (PoCL)");
    const double second = label_baseline(svg, "tiled32 OpenCL (PoCL)");
    EXPECT_GE(std::abs(second - first), 12.99)
        << "a line (13 px) apart: tiled16 at " << first << ", tiled32 at " << second;
    const auto circle = svg.find("data-label=\"blocked OpenCL (PoCL)\"");
    ASSERT_NE(circle, std::string::npos);
    const auto cy = svg.rfind("cy=\"", circle);
    EXPECT_DOUBLE_EQ(label_baseline(svg, "blocked OpenCL (PoCL)"), std::stod(svg.substr(cy + 4)) + 4);
}

// A text of the chart: where it starts, its baseline and its width at the labels' 6.5 px a character.
struct PlacedText {
    std::string content;
    double left = 0, right = 0, baseline = 0;
};

// Every text inside the plot: the points' labels, the roof's name (a `legend` text; the series'
// legend lies right of the plot) and the ridge's (a `tick` text; the axes' ticks lie outside it).
std::vector<PlacedText> plot_texts(const std::string& svg)
{
    std::vector<PlacedText> texts;
    for (std::size_t at = svg.find("<text "); at != std::string::npos; at = svg.find("<text ", at + 1)) {
        const std::string tag = svg.substr(at, svg.find('>', at) - at);
        const bool label = tag.find("class=\"label\"") != std::string::npos;
        const bool tick = tag.find("class=\"tick\"") != std::string::npos;
        if (!label && !tick && tag.find("class=\"legend\"") == std::string::npos) {
            continue;
        }
        const auto start = svg.find('>', at) + 1;
        PlacedText text{svg.substr(start, svg.find('<', start) - start)};
        const double x = std::stod(tag.substr(tag.find(" x=\"") + 4));
        text.baseline = std::stod(tag.substr(tag.find(" y=\"") + 4));
        const double width = 6.5 * static_cast<double>(text.content.size());
        const bool end_anchored = tag.find("text-anchor=\"end\"") != std::string::npos;
        text.left = end_anchored ? x - width : x;
        text.right = end_anchored ? x : x + width;
        const bool in_plot = text.left >= 80 && text.left < 600 && text.baseline <= 340;
        if (label || (!tick && text.left < 600) || (tick && in_plot)) {
            texts.push_back(text);
        }
    }
    return texts;
}

// matmul on an H100 and PoCL, as `compare all` drew it: 18 kernels at one intensity, rates from 7
// to 34000 GFLOP/s. Each label clears every other label and the roof's texts, lies within the plot
// and keeps its point's order top to bottom; one moved off its point has a leader line to it.
TEST(RooflineChart, AColumnOfLabelsKeepsItsPointsOrderClearOfEachOtherAndOfTheRoof)
{
    const std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> measured{
        {"tiled16", {{"tiled16 CUDA", 7651}, {"tiled16 OpenCL (NVIDIA)", 6103}, {"tiled16 OpenCL (PoCL)", 13.4}}},
        {"tiled8", {{"tiled8 CUDA", 4902}, {"tiled8 OpenCL (NVIDIA)", 4164}, {"tiled8 OpenCL (PoCL)", 16.4}}},
        {"tiled32", {{"tiled32 CUDA", 8416}, {"tiled32 OpenCL (NVIDIA)", 6593}, {"tiled32 OpenCL (PoCL)", 13.9}}},
        {"blocked", {{"blocked CUDA", 33487}, {"blocked OpenCL (NVIDIA)", 32349}, {"blocked OpenCL (PoCL)", 90.3}}},
        {"naive", {{"naive CUDA", 4478}, {"naive OpenCL (NVIDIA)", 4465}, {"naive OpenCL (PoCL)", 7.1}}},
        {"blas", {{"blas CUDA", 34135}, {"blas OpenCL (NVIDIA)", 11875}, {"blas OpenCL (PoCL)", 41.1}}}};
    chart::RooflineChart chart{
        "matmul: roofline", {{"NVIDIA H100 80GB HBM3 (FP32 FMA rate)", 3352.32, 66908.16, "#666"}}, {}, {}};
    for (const auto& [variant, points] : measured) {
        chart.series.push_back({variant + " on H100", "#1b9e77", {}});
        chart.series.push_back({variant + " on cpu", "#d95f02", {}});
        for (const auto& [label, gflops] : points) {
            auto& series = chart.series[chart.series.size() - (label.find("PoCL") != std::string::npos ? 1 : 2)];
            series.points.push_back({label, 170.67, gflops});
        }
    }
    const std::string svg = chart::roofline(chart);
    const auto texts = plot_texts(svg);
    ASSERT_EQ(texts.size(), 18u + 2u) << "18 labels, the roof's name and the ridge's";
    for (std::size_t a = 0; a < texts.size(); ++a) {
        EXPECT_GE(texts[a].baseline, 40.0) << texts[a].content << " above the plot";
        EXPECT_LE(texts[a].baseline, 340.0) << texts[a].content << " below the plot";
        for (std::size_t b = a + 1; b < texts.size(); ++b) {
            const bool cross = texts[a].left < texts[b].right && texts[b].left < texts[a].right;
            EXPECT_FALSE(cross && std::abs(texts[a].baseline - texts[b].baseline) < 12.99)
                << texts[a].content << " at " << texts[a].baseline << " overprints " << texts[b].content << " at "
                << texts[b].baseline;
        }
    }
    // Top to bottom in the points' order: blas CUDA, blocked CUDA, ..., naive OpenCL (PoCL).
    std::vector<std::pair<double, double>> point_and_label; // circle's y, label's baseline
    for (const auto& [variant, points] : measured) {
        for (const auto& [label, gflops] : points) {
            const auto circle = svg.find("data-label=\"" + label + "\"");
            ASSERT_NE(circle, std::string::npos) << label;
            const double cy = std::stod(svg.substr(svg.rfind("cy=\"", circle) + 4));
            point_and_label.emplace_back(cy, label_baseline(svg, label));
        }
    }
    std::sort(point_and_label.begin(), point_and_label.end());
    for (std::size_t i = 1; i < point_and_label.size(); ++i) {
        EXPECT_GT(point_and_label[i].second, point_and_label[i - 1].second) << "label " << i << " out of order";
    }
    // A leader from each point to its label: it starts beside a circle and ends at a label.
    std::size_t leaders = 0;
    for (auto at = svg.find("class=\"leader\""); at != std::string::npos; at = svg.find("class=\"leader\"", at + 1)) {
        const auto tag = svg.rfind("<line ", at);
        const double y1 = std::stod(svg.substr(svg.find("y1=\"", tag) + 4));
        const double y2 = std::stod(svg.substr(svg.find("y2=\"", tag) + 4));
        EXPECT_TRUE(std::any_of(point_and_label.begin(), point_and_label.end(),
                                [&](const auto& pair) {
                                    return std::abs(pair.first - y1) < 1e-6 && std::abs(pair.second - 4 - y2) < 1e-6;
                                }))
            << "a leader from y " << y1 << " to " << y2 << " joins no point to its label";
        ++leaders;
    }
    EXPECT_EQ(leaders, 18u);
}

// More points at one intensity than the plot has lines for (six variants on five devices): the
// column keeps its order and a line between labels, starts within the plot and runs on below it,
// and the chart grows to hold it, so that no label leaves the drawing.
TEST(RooflineChart, AColumnLongerThanThePlotRunsOnBelowItInsideTheDrawing)
{
    chart::RooflineChart chart{"matmul: roofline", {{"GPU (FP32 FMA rate)", 3352.32, 66908.16, "#666"}}, {}, {}};
    for (int point = 0; point < 30; ++point) {
        chart.series.push_back({"v" + std::to_string(point) + " on d",
                                "#1b9e77",
                                {{"v" + std::to_string(point) + " API", 170.67, 100.0 + 1000.0 * point}}});
    }
    const std::string svg = chart::roofline(chart);
    const double height = std::stod(svg.substr(svg.find("height=\"") + 8));
    std::vector<double> baselines;
    for (int point = 29; point >= 0; --point) { // highest rate first: top to bottom
        baselines.push_back(label_baseline(svg, "v" + std::to_string(point) + " API"));
    }
    EXPECT_GE(baselines.front(), 40.0) << "the column starts within the plot";
    EXPECT_LE(baselines.back() + 4, height) << "the chart holds the column's end";
    for (std::size_t i = 1; i < baselines.size(); ++i) {
        EXPECT_GE(baselines[i] - baselines[i - 1], 12.99) << "label " << i;
    }
}

TEST(RooflineChart, SaysWhyThereIsNoRoofAndWhatIsNotDrawn)
{
    chart::RooflineChart no_roof{"access: roofline",
                                 {},
                                 {{"plain on pthread-cpu", "#1b9e77", {{"plain OpenCL (PoCL)", 0, 0}}}},
                                 {"no roof for opencl:0: pthread-cpu is not a GPU"}};
    const std::string svg = chart::roofline(no_roof);
    EXPECT_THAT(svg, HasSubstr("no roof and no kernel to draw"));
    EXPECT_THAT(svg, HasSubstr("no roof for opencl:0: pthread-cpu is not a GPU"));
    EXPECT_THAT(svg, HasSubstr("plain OpenCL (PoCL) (plain on pthread-cpu) is not drawn"));
    EXPECT_THAT(svg, ::testing::Not(HasSubstr("<circle")));
}

} // namespace
} // namespace duet::cli
