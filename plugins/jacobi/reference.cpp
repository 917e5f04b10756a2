// The system jacobi solves and the CPU reference it is checked against: the kernels' iteration,
// the dot products summed segment by segment and the segments added in order, as on the device.
#include "jacobi.hpp"

#include <algorithm>
#include <cmath>

#include <duet/workload/kit.hpp>

namespace duet::jacobi {
namespace {

/// The floats a system of n equations is made of: A's n · n entries (the diagonal's replaced), x*'s n.
std::size_t drawn_floats(std::size_t n)
{
    return n * n + n;
}

} // namespace

template <class T> System<T> make_system(std::size_t n, std::uint64_t seed)
{
    System<T> system;
    system.n = n;
    const std::vector<float> drawn = workload::random_floats(drawn_floats(n), seed);
    system.a.assign(drawn.begin(), drawn.begin() + static_cast<std::ptrdiff_t>(n * n));
    system.solution.assign(drawn.begin() + static_cast<std::ptrdiff_t>(n * n), drawn.end());
    system.f.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        T* row = system.a.data() + k * n;
        long double magnitudes = 0;
        for (std::size_t j = 0; j < n; ++j) {
            magnitudes += j == k ? 0 : std::fabs(row[j]);
        }
        // Twice the off-diagonal magnitudes: the iteration matrix's max norm is at most 1/2. For
        // n = 1, any non-zero diagonal.
        row[k] = n == 1 ? T(1) : static_cast<T>(2 * magnitudes);
        long double f = 0;
        for (std::size_t j = 0; j < n; ++j) {
            f += static_cast<long double>(row[j]) * system.solution[j];
        }
        system.f[k] = static_cast<T>(f);
    }
    return system;
}

template <class T> std::uint64_t system_bytes(std::size_t n)
{
    return drawn_floats(n) * sizeof(float) + (n * n + 2 * n) * sizeof(T);
}

template <class T> void lay_out(std::span<const T> a, std::size_t n, Variant variant, std::span<T> stored, int ranks)
{
    if (!transposed_layout(variant)) {
        std::ranges::copy(a, stored.begin());
        return;
    }
    for (int rank = 0; rank < ranks; ++rank) {
        const workload::Part block = workload::part_of(n, n, 0, rank, ranks);
        const std::size_t m = block.rows;
        T* transposed = stored.data() + block.first_row * n;
        // In tiles, so that reads and writes both go along cache lines: element by element, each
        // write (a stride of m apart) missed the cache, 5.3 s against 0.3 s for n = 16384 here.
        constexpr std::size_t tile = 16;
        for (std::size_t k0 = 0; k0 < m; k0 += tile) {
            for (std::size_t j0 = 0; j0 < n; j0 += tile) {
                for (std::size_t j = j0; j < std::min(n, j0 + tile); ++j) {
                    for (std::size_t k = k0; k < std::min(m, k0 + tile); ++k) {
                        transposed[j * m + k] = a[(block.first_row + k) * n + j];
                    }
                }
            }
        }
    }
}

template <class T> double max_distance(std::span<const T> x, std::span<const T> y)
{
    double largest = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
        largest = std::max(largest, static_cast<double>(std::fabs(x[k] - y[k])));
    }
    return largest;
}

template <class T>
Convergence reference(const System<T>& system, double eps, std::size_t max_iterations, std::span<T> x)
{
    const std::size_t n = system.n;
    std::vector<T> x0(n, T(0));
    std::vector<T> partial(segments(n));
    Convergence convergence;
    for (bool stop = false; !stop;) {
        double largest = 0;
        for (std::size_t k = 0; k < n; ++k) {
            const T* row = system.a.data() + k * n;
            for (std::size_t s = 0; s < partial.size(); ++s) {
                T sum = 0;
                for (std::size_t j = s * segment_columns; j < std::min((s + 1) * segment_columns, n); ++j) {
                    sum += row[j] * x0[j];
                }
                partial[s] = sum;
            }
            T sum = partial[0];
            for (std::size_t s = 1; s < partial.size(); ++s) {
                sum += partial[s];
            }
            x[k] = x0[k] + (system.f[k] - sum) / row[k];
            largest = std::max(largest, static_cast<double>(std::fabs(x[k] - x0[k])));
        }
        std::copy_n(x.begin(), n, x0.begin());
        stop = convergence.record(largest, eps, max_iterations);
    }
    return convergence;
}

template System<float> make_system(std::size_t, std::uint64_t);
template System<double> make_system(std::size_t, std::uint64_t);
template std::uint64_t system_bytes<float>(std::size_t);
template std::uint64_t system_bytes<double>(std::size_t);
template double max_distance(std::span<const float>, std::span<const float>);
template double max_distance(std::span<const double>, std::span<const double>);
template void lay_out(std::span<const float>, std::size_t, Variant, std::span<float>, int);
template void lay_out(std::span<const double>, std::size_t, Variant, std::span<double>, int);
template Convergence reference(const System<float>&, double, std::size_t, std::span<float>);
template Convergence reference(const System<double>&, double, std::size_t, std::span<double>);

} // namespace duet::jacobi
