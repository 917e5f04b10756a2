// Timing statistics: how many times a run's timed pass repeats, and what the repeats say (the
// median with a distribution-free interval, the spread, and the ratio of two medians with its
// interval). The rule follows NVBench: a floor of samples, then more until the noise is small
// or a time budget is spent.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

namespace duet::workload {

class Turn;

/// How often a run repeats its timed pass. The pass is repeated `warmup` times untimed, then at
/// least `min_runs` times; while the median's interval is wider than ±`precision` of it, more
/// passes follow, up to `max_runs` or until the timed passes have taken `budget_ms` of host time
/// (their own: not the time spent waiting for a turn). The defaults keep `duet compare all` on two
/// CPU cores near two minutes while a GPU run, whose passes take milliseconds, reaches the precision.
struct Timing {
    unsigned warmup = 1;
    unsigned min_runs = 5;
    unsigned max_runs = 100;
    double budget_ms = 1000;
    double precision = 0.01;
    /// The run's place among runs that take their passes in turn (turns.hpp), handed on before
    /// each pass, warm-ups included; null for a run whose passes follow one another.
    std::shared_ptr<const Turn> turn;

    /// Exactly `runs` timed passes after `warmup` untimed ones: what `bench --repeats` asks for.
    static Timing exactly(unsigned runs, unsigned warmup);
    /// One pass, untimed passes none: what the agreement tests and `duet test` need.
    static Timing once();
};

/// The samples of one quantity. `low` and `high` bound the median with at least 95% confidence
/// where the count allows (from order statistics: no assumption about the distribution; with
/// fewer than 6 samples, the smallest and largest, 94% for 5): how precisely the median is known,
/// what the timing rule waits for. `q1` and `q3`, the quartiles, say how much one pass varies:
/// the noise that ratios are judged against.
struct Summary {
    std::size_t count = 0;
    double median = 0;
    double low = 0;
    double high = 0;
    double min = 0;
    double max = 0;
    double q1 = 0;
    double q3 = 0;

    /// The median interval's larger half-width over the median; 0 for a median of 0.
    double relative_half_width() const;
    /// Half the interquartile range over the median; 0 for a median of 0.
    double noise() const;
};

/// The summary of `samples` (any order). An empty span gives a summary of count 0.
Summary summarize(std::span<const double> samples);

/// numerator.median / denominator.median, with an interval from the two sides' quartiles
/// ([q1 / q3', q3 / q1']): a difference within the passes' own noise is no difference, as
/// NVBench's comparison judges it. Two runs of one comparison then give overlapping intervals
/// even where something outside a run (placement, clocks) moves each run's median.
struct Ratio {
    double value = 0;
    double low = 0;
    double high = 0;

    /// The interval holds 1: neither side is faster, as far as the samples can tell.
    bool parity() const { return low <= 1 && 1 <= high; }
    bool valid() const { return value > 0; }
};
/// An invalid Ratio (value 0) when either side has no samples or a median of 0.
Ratio ratio(const Summary& numerator, const Summary& denominator);

} // namespace duet::workload
