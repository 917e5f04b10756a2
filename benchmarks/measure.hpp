// What every benchmark here shares: the median of repeated rounds, and failing fast.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace duet::bench {

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
