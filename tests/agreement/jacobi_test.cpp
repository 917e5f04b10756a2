// jacobi beyond what the generic workload test sees: the convergence check (on the device, or the
// whole delta vector on the host) decides only when to stop, never what is computed; an iteration
// cap is reported as such, not as convergence; and arrays too small for the system are refused.

#include <limits>

#include "duet_test.hpp"
#include "jacobi.hpp"

namespace duet::test {
namespace {

class JacobiSolver : public DeviceTest {
protected:
    /// Solves a fresh system of n equations; the solution read back.
    std::vector<float> solve(jacobi::Check check, std::size_t n, double eps, std::size_t max_iterations,
                             jacobi::Convergence& convergence)
    {
        const jacobi::Arrays<float> arrays = system_arrays(n);
        jacobi::Solver<float> solver(device(), jacobi::Variant::transposed, check, n, 64);
        convergence = solver.solve(queue(), arrays, eps, max_iterations);
        return download(queue(), jacobi::ends_in_other(convergence) ? arrays.other : arrays.x);
    }

    /// A fresh system of n equations, Aᵀ stored, and the iteration's arrays; `partial` as given.
    jacobi::Arrays<float> system_arrays(std::size_t n, std::size_t partial = 0)
    {
        const jacobi::System<float> system = jacobi::make_system<float>(n, test_seed());
        std::vector<float> at(n * n);
        jacobi::lay_out<float>(system.a, n, jacobi::Variant::transposed, at);
        return {make_buffer(device(), queue(), at),
                make_buffer(device(), queue(), system.f),
                device().alloc<float>(n),
                device().alloc<float>(n),
                device().alloc<float>(partial != 0 ? partial : jacobi::partial_elements(n)),
                device().alloc<float>(n)};
    }
};

TEST_P(JacobiSolver, TheCheckDecidesOnlyWhenToStop)
{
    const std::size_t n = 700; // two segments, not a multiple of the block
    jacobi::Convergence on_device;
    jacobi::Convergence on_host;
    const std::vector<float> device_checked = solve(jacobi::Check::device, n, 1e-6, 100, on_device);
    const std::vector<float> host_checked = solve(jacobi::Check::host, n, 1e-6, 100, on_host);
    EXPECT_EQ(on_device.iterations, on_host.iterations);
    EXPECT_EQ(on_device.last_delta, on_host.last_delta);
    EXPECT_TRUE(bitwise_equal(host_checked, device_checked));
}

TEST_P(JacobiSolver, AnIterationCapIsNotConvergence)
{
    jacobi::Convergence convergence;
    solve(jacobi::Check::device, 300, 0, 2, convergence);
    EXPECT_EQ(convergence.iterations, 2u);
    EXPECT_FALSE(convergence.converged);
    EXPECT_FALSE(convergence.stalled) << "the first steps of a contraction by 1/2 still make progress";
    EXPECT_GT(convergence.last_delta, 0.0);
}

TEST_P(JacobiSolver, AnArrayTooSmallIsRefusedNamingIt)
{
    const std::size_t n = 600; // two segments: 1200 partial sums
    const jacobi::Arrays<float> arrays = system_arrays(n, 1199);
    jacobi::Solver<float> solver(device(), jacobi::Variant::transposed, jacobi::Check::device, n, 64);
    const auto error = expect_error<InvalidArgument>([&] { solver.solve(queue(), arrays, 1e-6, 10); });
    ASSERT_TRUE(error);
    EXPECT_NE(error->message().find("array 'partial' holds 1199 elements; 600 equations need 1200"), std::string::npos)
        << error->message();
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(JacobiSolver);

// NaN deltas read -inf through reduce's max (fmax ignores NaN), and NaN on the host: neither is convergence.
TEST(JacobiConvergence, ANonFiniteDeltaStopsWithoutConverging)
{
    for (const double delta : {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity()}) {
        jacobi::Convergence convergence;
        EXPECT_FALSE(convergence.record(1.0, 1e-6, 100));
        EXPECT_TRUE(convergence.record(delta, 1e-6, 100)) << delta;
        EXPECT_FALSE(convergence.converged) << delta;
        EXPECT_FALSE(convergence.stalled) << delta;
    }
}

} // namespace
} // namespace duet::test
