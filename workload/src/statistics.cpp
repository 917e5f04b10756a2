// Medians with distribution-free intervals, and the ratio of two.
#include <duet/workload/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace duet::workload {

Timing Timing::exactly(unsigned runs, unsigned warmup)
{
    return {warmup, runs, runs, 0, 0, {}};
}

Timing Timing::once()
{
    return {0, 1, 1, 0, 0, {}};
}

double Summary::relative_half_width() const
{
    return median > 0 ? std::max(median - low, high - median) / median : 0;
}

namespace {

/// The largest j with P(X < j) <= 2.5% for X ~ Binomial(n, 1/2): the sorted samples' j-th
/// smallest and j-th largest (0-based) then bound the median with at least 95% confidence.
std::size_t interval_rank(std::size_t n)
{
    double below = 0;                                    // P(X <= k)
    double term = std::pow(0.5, static_cast<double>(n)); // P(X = 0)
    std::size_t rank = 0;
    for (std::size_t k = 0; k < n / 2; ++k) {
        below += term;
        if (below > 0.025) {
            break;
        }
        rank = k + 1;
        term *= static_cast<double>(n - k) / static_cast<double>(k + 1);
    }
    return rank;
}

} // namespace

double Summary::noise() const
{
    return median > 0 ? (q3 - q1) / 2 / median : 0;
}

Summary summarize(std::span<const double> samples)
{
    Summary summary;
    summary.count = samples.size();
    if (samples.empty()) {
        return summary;
    }
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    summary.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    const std::size_t rank = interval_rank(n);
    summary.low = sorted[rank];
    summary.high = sorted[n - 1 - rank];
    summary.min = sorted.front();
    summary.max = sorted.back();
    // Linear interpolation between the closest ranks, as numpy's default percentile.
    const auto quantile = [&](double q) {
        const double position = q * static_cast<double>(n - 1);
        const auto below = static_cast<std::size_t>(position);
        const std::size_t above = std::min(below + 1, n - 1);
        return sorted[below] + (sorted[above] - sorted[below]) * (position - static_cast<double>(below));
    };
    summary.q1 = quantile(0.25);
    summary.q3 = quantile(0.75);
    return summary;
}

Ratio ratio(const Summary& numerator, const Summary& denominator)
{
    if (numerator.count == 0 || denominator.count == 0 || !(numerator.median > 0) || !(denominator.median > 0) ||
        !(denominator.q1 > 0)) {
        return {};
    }
    return {numerator.median / denominator.median, numerator.q1 / denominator.q3, numerator.q3 / denominator.q1};
}

} // namespace duet::workload
