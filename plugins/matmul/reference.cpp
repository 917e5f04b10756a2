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

std::size_t rows_checked(const Shape& shape, std::size_t batch)
{
    const double row_work = static_cast<double>(shape.n) * shape.k * batch;
    if (row_work * shape.m < full_check_limit) {
        return shape.m;
    }
    return std::min(shape.m, static_cast<std::size_t>(std::max(2.0, std::floor(full_check_limit / row_work))));
}

std::vector<std::size_t> rows_to_check(const Shape& shape, std::size_t batch, std::uint64_t seed)
{
    std::vector<std::size_t> rows(shape.m);
    std::iota(rows.begin(), rows.end(), std::size_t{0});
    const std::size_t count = rows_checked(shape, batch);
    if (count >= shape.m) {
        return rows;
    }
    // The first and last rows hold the edge tiles, where a kernel's guards are tested.
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

BatchCheck::BatchCheck(const Shape& shape, std::size_t products) : shape_(shape), products_(products) {}

std::uint64_t BatchCheck::host_bytes(const Shape& shape, std::size_t products)
{
    return std::uint64_t{rows_checked(shape, products)} * shape.n * products * sizeof(double);
}

void BatchCheck::reference(std::span<const float> a, std::span<const float> b, std::uint64_t seed,
                           std::span<float> expected)
{
    a_ = a;
    b_ = b;
    rows_ = rows_to_check(shape_, products_, seed);
    want_.resize(host_bytes(shape_, products_) / sizeof(double));
    const std::size_t a_size = shape_.m * shape_.k, b_size = shape_.k * shape_.n, c_size = shape_.m * shape_.n;
    const std::size_t want_size = rows_.size() * shape_.n;
    for (std::size_t p = 0; p < products_; ++p) {
        const auto want = std::span<double>(want_).subspan(p * want_size, want_size);
        reference_rows(a.subspan(p * a_size, a_size), b.subspan(p * b_size, b_size), rows_, want, shape_);
        for (std::size_t r = 0; r < rows_.size(); ++r) {
            std::copy_n(want.begin() + r * shape_.n, shape_.n, expected.begin() + p * c_size + rows_[r] * shape_.n);
        }
    }
}

void BatchCheck::fill_unchecked(std::span<const float> c, std::span<float> expected) const
{
    for (std::size_t p = 0; p < products_; ++p) {
        auto checked = rows_.begin(); // rows_to_check lists its rows in order
        for (std::size_t row = 0; row < shape_.m; ++row) {
            if (checked != rows_.end() && *checked == row) {
                ++checked;
                continue;
            }
            const std::size_t from = (p * shape_.m + row) * shape_.n;
            std::copy_n(c.begin() + from, shape_.n, expected.begin() + from);
        }
    }
}

double BatchCheck::max_error(std::span<const float> c) const
{
    const std::size_t a_size = shape_.m * shape_.k, b_size = shape_.k * shape_.n, c_size = shape_.m * shape_.n;
    const std::size_t want_size = rows_.size() * shape_.n;
    double worst = 0;
    for (std::size_t p = 0; p < products_; ++p) {
        worst = std::max(worst, matmul::max_error(c.subspan(p * c_size, c_size),
                                                  std::span<const double>(want_).subspan(p * want_size, want_size),
                                                  a_.subspan(p * a_size, a_size), b_.subspan(p * b_size, b_size), rows_,
                                                  shape_));
    }
    return worst;
}

} // namespace duet::matmul
