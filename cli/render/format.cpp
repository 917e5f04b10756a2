// Number formatting shared by the tables, CSV, JSON and the HTML report.
#include "render/format.hpp"

#include <duet/workload/agreement.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>

namespace duet::cli::format {

namespace {
std::string printf_text(const char* pattern, double value)
{
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}
} // namespace

std::string exact(double value)
{
    if (std::isnan(value)) {
        return "nan";
    }
    if (std::isinf(value)) {
        return value > 0 ? "inf" : "-inf";
    }
    // Whole numbers in full ("100000", not the shorter "1e+05"), up to where doubles stay exact.
    if (value == std::floor(value) && std::abs(value) < 9007199254740992.0) {
        return printf_text("%.0f", value);
    }
    char text[64];
    const auto result = std::to_chars(text, text + sizeof text, value);
    return std::string(text, result.ptr);
}

std::string milliseconds(double ms)
{
    if (ms == 0) {
        return "0";
    }
    const double size = std::abs(ms);
    return printf_text(size < 0.01   ? "%.4f"
                       : size < 10   ? "%.3f"
                       : size < 100  ? "%.2f"
                       : size < 1000 ? "%.1f"
                                     : "%.0f",
                       ms);
}

std::string milliseconds(double ms, const workload::Summary& summary)
{
    const std::string noise = spread(summary);
    return milliseconds(ms) + (noise.empty() ? "" : " " + noise);
}

std::string rate(double value)
{
    const double size = std::abs(value);
    return printf_text(size < 10 ? "%.2f" : size < 1000 ? "%.1f" : "%.0f", value);
}

std::string rate(const std::optional<double>& value)
{
    return value ? rate(*value) : "-";
}

std::string error(double value)
{
    return workload::error_text(value);
}

std::string ulps(std::uint64_t value)
{
    return value == UINT64_MAX ? "NaN" : std::to_string(value);
}

std::string figure(double value)
{
    if (!std::isfinite(value)) {
        return exact(value);
    }
    // Whole numbers, and any value of four digits or more before the point, read best in full
    // ("8192", "12346"); "%g" alone would write "8192." or "1.235e+04".
    if (std::abs(value) < 1e15 && (value == std::floor(value) || std::abs(value) >= 1000)) {
        return printf_text("%.0f", value);
    }
    return printf_text("%.4g", value);
}

std::string ratio(double value)
{
    return std::isfinite(value) ? printf_text("%.2f", value) + "x" : "-";
}

std::string ratio(const workload::Ratio& ratio)
{
    if (!ratio.valid()) {
        return "-";
    }
    return printf_text("%.2fx", ratio.value) + printf_text(" [%.2f, ", ratio.low) + printf_text("%.2f]", ratio.high);
}

std::string ratio_verdict(const workload::Ratio& ratio)
{
    if (!ratio.valid()) {
        return "-";
    }
    return ratio.parity() ? "parity" : ratio.value > 1 ? "OpenCL slower" : "OpenCL faster";
}

std::string spread(const workload::Summary& summary)
{
    if (summary.count < 2 || !(summary.median > 0)) {
        return "";
    }
    const double percent = 100 * summary.noise();
    return printf_text(percent < 10 ? "±%.1f%%" : "±%.0f%%", percent);
}

std::string percent(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
    return text;
}

std::string percent(const std::optional<double>& fraction)
{
    return fraction ? percent(*fraction) : "-";
}

std::string count(std::size_t number, const std::string& noun)
{
    return std::to_string(number) + " " + noun + (number == 1 ? "" : "s");
}

std::string bytes(std::uint64_t count)
{
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(count);
    std::size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(units)) {
        value /= 1024;
        ++unit;
    }
    const bool whole = value == std::floor(value);
    return printf_text(whole ? "%.0f" : "%.1f", value) + " " + units[unit];
}

std::string compact(double value)
{
    static const char* suffixes[] = {"", "Ki", "Mi", "Gi", "Ti"};
    if (value != 0 && value == std::floor(value) && std::abs(value) >= 1024) {
        double scaled = value;
        std::size_t suffix = 0;
        while (std::fmod(scaled, 1024) == 0 && std::abs(scaled) >= 1024 && suffix + 1 < std::size(suffixes)) {
            scaled /= 1024;
            ++suffix;
        }
        if (suffix > 0) {
            return printf_text("%.0f", scaled) + suffixes[suffix];
        }
    }
    const bool whole = value == std::floor(value) && std::abs(value) < 1e6;
    return printf_text(whole ? "%.0f" : "%.3g", value);
}

} // namespace duet::cli::format
