// The CPU reference matmul is checked against (the i-k-j loop, accumulated in double), and the
// check itself: each element's error relative to the sum of its products' magnitudes.
#include "matmul.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace duet::matmul {
namespace {

// One row of C in i-k-j order: the innermost loop runs along a row of B and of C, so it streams
// through memory and vectorizes, where the textbook i-j-k order strides down B's columns.
// `value` maps each input first (std::abs gives the error bound's scale).
template <class Value>
void ikj_row(std::span<const float> a, std::span<const float> b, std::size_t row, double* c_row, const Shape& shape,
             Value value)
{
    std::fill(c_row, c_row + shape.n, 0.0);
    for (std::size_t i = 0; i < shape.k; ++i) {
        const double a_ri = value(a[row * shape.k + i]);
        const float* b_row = b.data() + i * shape.n;
        for (std::size_t j = 0; j < shape.n; ++j) {
            c_row[j] += a_ri * value(b_row[j]);
        }
    }
}

double same(float value)
{
    return value;
}
double magnitude(float value)
{
    return std::abs(value);
}

} // namespace

void reference(std::span<const float> a, std::span<const float> b, std::span<double> c, const Shape& shape)
{
    for (std::size_t row = 0; row < shape.m; ++row) {
        ikj_row(a, b, row, c.data() + row * shape.n, shape, same);
    }
}

void reference_rows(std::span<const float> a, std::span<const float> b, std::span<const std::size_t> rows,
                    std::span<double> c, const Shape& shape)
{
    for (std::size_t r = 0; r < rows.size(); ++r) {
        ikj_row(a, b, rows[r], c.data() + r * shape.n, shape, same);
    }
}

std::vector<std::size_t> rows_to_check(const Shape& shape, std::size_t batch, std::uint64_t seed)
{
    std::vector<std::size_t> rows(shape.m);
    std::iota(rows.begin(), rows.end(), std::size_t{0});
    const double row_work = static_cast<double>(shape.n) * shape.k * batch;
    if (row_work * shape.m < full_check_limit) {
        return rows;
    }
    // The first and last rows hold the edge tiles, where a kernel's guards are tested.
    const auto count = static_cast<std::size_t>(std::max(2.0, std::floor(full_check_limit / row_work)));
    if (count >= shape.m) {
        return rows;
    }
    std::vector<std::size_t> sample{0, shape.m - 1};
    std::sample(rows.begin() + 1, rows.end() - 1, std::back_inserter(sample), count - 2, std::mt19937_64(seed));
    std::sort(sample.begin(), sample.end());
    return sample;
}

double max_error(std::span<const float> c, std::span<const double> want, std::span<const float> a,
                 std::span<const float> b, std::span<const std::size_t> rows, const Shape& shape)
{
    std::vector<double> scale(shape.n);
    double worst = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        ikj_row(a, b, rows[r], scale.data(), shape, magnitude);
        for (std::size_t j = 0; j < shape.n; ++j) {
            const double difference = std::abs(c[rows[r] * shape.n + j] - want[r * shape.n + j]);
            const double error = difference == 0 ? 0 : difference / scale[j];
            if (!(error <= worst)) { // also true for NaN
                worst = std::isnan(error) ? std::numeric_limits<double>::infinity() : error;
            }
        }
    }
    return worst;
}

double tolerance(const Shape& shape)
{
    return 4.0 * static_cast<double>(shape.k) * std::ldexp(1.0, -24);
}

std::string tolerance_reason(bool sampled)
{
    std::string reason =
        "error relative to sum_k |a_ik*b_kj|, against a double-precision i-k-j reference: float accumulation of K "
        "products, in any order, with or without fused multiply-adds, errs by at most about K*2^-24 of that sum "
        "(Higham, Accuracy and Stability of Numerical Algorithms, 3.1); 4*K*2^-24 is allowed, so that two devices "
        "summing in different orders (the BLAS libraries block K each their own way) also agree where devices are "
        "compared element by element relative to |c|, which can be far smaller than that sum";
    if (sampled) {
        reason += "; above 2^30 multiply-adds only a sample of rows is checked (the first, the last and random ones)";
    }
    return reason;
}

} // namespace duet::matmul
