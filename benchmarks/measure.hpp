// What every benchmark here shares: host time per item, the median of repeated rounds, and
// failing fast.
#pragma once

#include <duet/queue.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace duet::bench {

/// Host microseconds per item of `work`, which enqueues `items` of them, the queue drained.
inline double host_us_per_item(int items, const std::function<void()>& work, duet::Queue& queue)
{
    const auto start = std::chrono::steady_clock::now();
    work();
    queue.finish();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / items;
}

inline double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

/// Half the interquartile range: the spread a median is reported with.
inline double half_iqr(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return (values[values.size() * 3 / 4] - values[values.size() / 4]) / 2;
}

/// Raw-API failures end a benchmark at once: its numbers would mean nothing.
inline void require(bool ok, const char* call, long code)
{
    if (!ok) {
        std::fprintf(stderr, "%s failed: %ld\n", call, code);
        std::exit(1);
    }
}

} // namespace duet::bench
