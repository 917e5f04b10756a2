// newton's CPU reference: the method of newton.cu on the host, in double, each kernel's formula in
// its order over the same band storage. It exploits what the kernels cannot share between
// threads: each sine and cosine is taken once per element of x, not once per matrix element.
#include "newton.hpp"

#include <algorithm>
#include <cmath>

namespace duet::newton {
namespace {

/// The band of an n × n matrix by diagonals, as the kernels store it: (i, i + d - nd) at d n + i.
struct Band {
    std::size_t n, nd;
    std::vector<double> values;

    explicit Band(std::size_t n) : n(n), nd(half_band(n)), values(band_width(n) * n, 0.0) {}

    /// The diagonals of row i whose column lies in [0, n): first(i) <= d < end(i).
    std::size_t first(std::size_t i) const { return i < nd ? nd - i : 0; }
    std::size_t end(std::size_t i) const { return std::min(2 * nd + 1, n - i + nd); }
    double& at(std::size_t d, std::size_t i) { return values[d * n + i]; }
    double at(std::size_t d, std::size_t i) const { return values[d * n + i]; }
};

/// The sines and cosines the kernels take of each element of x.
struct Trig {
    std::vector<double> sin_squared, cos_squared, sin_double; ///< sin²(x_i), cos²(x_i), sin(2 x_i)

    explicit Trig(std::span<const double> x)
    {
        for (const double value : x) {
            const double s = std::sin(value);
            const double c = std::cos(value);
            sin_squared.push_back(s * s);
            cos_squared.push_back(c * c);
            sin_double.push_back(std::sin(2.0 * value));
        }
    }
};

// Matrix_A
void matrix_a(const Trig& trig, Band& a)
{
    for (std::size_t i = 0; i < a.n; ++i) {
        for (std::size_t d = a.first(i); d < a.end(i); ++d) {
            const std::size_t j = i + d - a.nd;
            a.at(d, i) = trig.sin_squared[i] * trig.cos_squared[j] + (d == a.nd ? static_cast<double>(a.n) : 0.0);
        }
    }
}

// AX, and Solve_L's sum: the band's terms left to right.
double row_product(const Band& m, std::span<const double> v, std::size_t i)
{
    double sum = 0.0;
    for (std::size_t d = m.first(i); d < m.end(i); ++d) {
        sum += m.at(d, i) * v[i + d - m.nd];
    }
    return sum;
}

// D_PHI
void d_phi(std::span<const double> x, const Trig& trig, Band& l)
{
    for (std::size_t i = 0; i < l.n; ++i) {
        for (std::size_t d = l.first(i); d < l.end(i); ++d) {
            const std::size_t j = i + d - l.nd;
            double value =
                trig.sin_squared[i] * trig.cos_squared[j] - trig.sin_squared[i] * (trig.sin_double[j] * x[j]);
            if (d == l.nd) {
                double sum = 0.0;
                for (std::size_t e = l.first(i); e < l.end(i); ++e) {
                    sum += trig.cos_squared[i + e - l.nd] * x[i + e - l.nd];
                }
                value += static_cast<double>(l.n) + trig.sin_double[i] * sum;
            }
            l.at(d, i) = value;
        }
    }
}

/// The mean of |new - old| over the elements, then old = new: Eps_L and Eps_G with their check.
double step_and_mean(std::span<double> old_values, std::span<const double> new_values)
{
    double sum = 0.0;
    for (std::size_t i = 0; i < old_values.size(); ++i) {
        sum += std::fabs(new_values[i] - old_values[i]);
        old_values[i] = new_values[i];
    }
    return sum / static_cast<double>(old_values.size());
}

} // namespace

std::vector<double> right_hand_side(std::size_t n)
{
    std::vector<double> x_star(n);
    for (std::size_t i = 0; i < n; ++i) {
        x_star[i] = exact_solution(i);
    }
    Band a(n);
    matrix_a(Trig(x_star), a);
    std::vector<double> f(x_star.size());
    for (std::size_t i = 0; i < f.size(); ++i) {
        f[i] = row_product(a, x_star, i);
    }
    return f;
}

double residual(std::span<const double> x, std::span<const double> f)
{
    Band a(x.size());
    matrix_a(Trig(x), a);
    long double largest = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        long double sum = 0;
        for (std::size_t d = a.first(i); d < a.end(i); ++d) {
            sum += static_cast<long double>(a.at(d, i)) * x[i + d - a.nd];
        }
        largest = std::max(largest, std::fabs(sum - f[i]));
    }
    return static_cast<double>(largest);
}

double error(std::span<const double> x)
{
    double largest = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        largest = std::max(largest, std::fabs(x[i] - exact_solution(i)));
    }
    return largest;
}

std::uint64_t reference_bytes(std::size_t n)
{
    // The bands A and L, phi, v0, v1 and x1, and Trig's three, as reference() below makes them.
    return (2 * band_width(n) * n + 7 * n) * sizeof(double);
}

Convergence reference(const Problem& problem, std::span<const double> f, std::span<double> x)
{
    const std::size_t n = problem.n;
    Band a(n), l(n);
    std::vector<double> phi(n), v0(n), v1(n), x1(n);
    Convergence result;
    for (;;) {
        ++result.outer;
        const Trig trig(x);
        matrix_a(trig, a);
        for (std::size_t i = 0; i < n; ++i) {
            phi[i] = row_product(a, x, i) - f[i];
        }
        d_phi(x, trig, l);
        std::ranges::fill(v0, 0.0);
        for (std::size_t k = 1;; ++k) {
            ++result.inner;
            for (std::size_t i = 0; i < n; ++i) {
                v1[i] = v0[i] + (-phi[i] - row_product(l, v0, i)) / l.at(l.nd, i);
            }
            result.eps_l = step_and_mean(v0, v1);
            if (!std::isfinite(result.eps_l)) {
                result.end = Convergence::End::not_finite;
                return result;
            }
            if (result.eps_l <= problem.eps_l) {
                break;
            }
            if (k >= problem.max_inner) {
                result.end = Convergence::End::inner_cap;
                return result;
            }
        }
        result.last_step = 0;
        for (std::size_t i = 0; i < n; ++i) {
            x1[i] = x[i] + problem.tau * v0[i];
            result.last_step = std::max(result.last_step, std::fabs(x1[i] - x[i]));
        }
        result.eps_g = step_and_mean(x, x1);
        if (!std::isfinite(result.eps_g)) {
            result.end = Convergence::End::not_finite;
            return result;
        }
        if (result.eps_g <= problem.eps_g) {
            result.end = Convergence::End::converged;
            return result;
        }
        if (result.outer >= problem.max_outer) {
            result.end = Convergence::End::outer_cap;
            return result;
        }
    }
}

} // namespace duet::newton
