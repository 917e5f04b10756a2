// Sweeps: ranges expanded, points counted before they are listed, combinations, and one point
// measured with its repeats.
#include "model/sweep.hpp"

#include "model/usage_error.hpp"

#include <charconv>

namespace duet::cli {

namespace {

void add_samples(Point& point, const Measurement& m)
{
    for (const auto& sample : m.samples) {
        point.h2d_ms.push_back(sample.h2d_ms);
        point.kernel_ms.push_back(sample.kernel_ms);
        point.d2h_ms.push_back(sample.d2h_ms);
        point.total_ms.push_back(sample.total_ms);
        const double ms = sample.rate_basis_ms();
        point.rate.push_back(ms > 0 ? m.work() / (ms * 1e-3) / 1e9 : 0);
    }
    for (const auto& [name, value] : m.extras) {
        point.extras.push_back({name, {value}});
    }
}

} // namespace

std::vector<std::string> expand_range(const std::string& parameter, const std::string& item)
{
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
        return {item};
    }
    const auto bad = [&]() -> UsageError {
        return UsageError("--sweep " + parameter + ": '" + item +
                          "' is not a range: write lo..hi, lo..hi+step or lo..hi*factor with whole numbers");
    };
    const auto whole = [&](const std::string& text) {
        std::int64_t value = 0;
        const auto [rest, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || rest != text.data() + text.size()) {
            throw bad();
        }
        return value;
    };
    const std::string rest = item.substr(dots + 2);
    const auto op = rest.find_first_of("*+");
    const std::int64_t low = whole(item.substr(0, dots));
    const std::int64_t high = whole(rest.substr(0, op));
    const std::int64_t step = op == std::string::npos ? 1 : whole(rest.substr(op + 1));
    const bool geometric = op != std::string::npos && rest[op] == '*';
    if (high < low || step < 1 || (geometric && (step < 2 || low < 1))) {
        throw bad();
    }
    std::vector<std::string> values;
    for (std::int64_t value = low;;) {
        values.push_back(std::to_string(value));
        if (values.size() > max_sweep_values) {
            throw UsageError("--sweep " + parameter + ": '" + item + "' gives more than " +
                             std::to_string(max_sweep_values) + " values");
        }
        // Stops before the next value would pass `high`, so the arithmetic never overflows.
        if (geometric ? value > high / step : high - value < step) {
            return values;
        }
        value = geometric ? value * step : value + step;
    }
}

std::uint64_t count_points(const std::vector<Sweep>& sweeps, std::size_t variants, std::size_t devices)
{
    std::string factors;
    std::uint64_t points = 1;
    bool overflow = false;
    const auto times = [&](std::uint64_t factor, const std::string& what) {
        factors += (factors.empty() ? "" : " x ") + std::to_string(factor) + " " + what;
        overflow = overflow || __builtin_mul_overflow(points, factor, &points);
    };
    for (const auto& sweep : sweeps) {
        times(sweep.values.size(), sweep.parameter + " values");
    }
    times(variants, variants == 1 ? "variant" : "variants");
    times(devices, devices == 1 ? "device" : "devices");
    if (overflow || points > max_bench_points) {
        throw UsageError("bench would measure " + factors + " = " +
                         (overflow ? "more than " + std::to_string(UINT64_MAX) : std::to_string(points)) +
                         " points; the most one bench may measure is " + std::to_string(max_bench_points) +
                         ": sweep fewer values, or run several benches");
    }
    return points;
}

std::vector<std::map<std::string, std::string>> combinations(const std::vector<Sweep>& sweeps,
                                                             const std::map<std::string, std::string>& fixed)
{
    std::vector<std::map<std::string, std::string>> all{fixed};
    for (const auto& sweep : sweeps) {
        std::vector<std::map<std::string, std::string>> next;
        for (const auto& partial : all) {
            for (const auto& value : sweep.values) {
                auto extended = partial;
                extended[sweep.parameter] = value;
                next.push_back(std::move(extended));
            }
        }
        all = std::move(next);
    }
    return all;
}

Point point_of(const Run& run)
{
    Point point(run.job);
    point.status = run.status;
    point.reason = run.reason;
    point.cross_checked = run.cross_checked();
    if (!run.measured()) {
        return point;
    }
    const auto& m = run.measurement;
    point.verified = m.verified;
    point.max_error = m.max_error;
    point.tolerance = m.tolerance;
    point.unit = m.unit;
    point.rate_name = rate_name(m);
    point.overlapped = phases_overlap(m);
    add_samples(point, m);
    return point;
}

} // namespace duet::cli
