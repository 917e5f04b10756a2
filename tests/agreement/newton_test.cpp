// newton beyond what the generic workload test can see: a solve that reaches a cap, or whose check
// is not a number, is a failure rather than a result (the original program's `while (eps > EPS)`
// took a NaN for convergence and had no cap); the result approaches the exact solution as the
// method says it should, not merely the reference's; Newton's own step (tau = 1) converges
// quadratically, which a derivative that is not phi's would not; and sizes the kernels cannot
// index are refused.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "duet_test.hpp"
#include "newton.hpp"
#include <duet/workload/check.hpp>
#include <duet/workload/kit.hpp>

namespace duet::test {
namespace {

class NewtonWorkload : public DeviceTest {
protected:
    void SetUp() override
    {
        DeviceTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        if (const auto reason = newton::Solver::refusal(device(), 256)) {
            GTEST_SKIP() << *reason;
        }
    }

    workload::Run run(const std::map<std::string, std::string>& values, bool verify = true)
    {
        const auto workload = WorkloadRegistry::global().find("newton");
        const auto info = workload->info();
        return workload::execute(
            {workload, info, "band", Settings(info, values), device(), "device", test_seed(), workload::Timing::once()},
            verify);
    }

    static std::map<std::string, double> figures(const workload::Run& run)
    {
        return {run.measurement.extras.begin(), run.measurement.extras.end()};
    }
};

TEST_P(NewtonWorkload, ReachingTheOuterCapIsAFailureNamingIt)
{
    const auto result = run({{"n", "100"}, {"max_outer", "3"}});
    EXPECT_EQ(result.status, workload::Status::failed);
    for (const char* needle : {"did not converge", "max_outer = 3", "eps_G"}) {
        EXPECT_TRUE(mentions(result.reason, {needle}));
    }
}

TEST_P(NewtonWorkload, ReachingTheInnerCapIsAFailureNamingIt)
{
    const auto result = run({{"n", "100"}, {"max_inner", "2"}});
    EXPECT_EQ(result.status, workload::Status::failed);
    for (const char* needle : {"did not converge", "max_inner = 2", "eps_L"}) {
        EXPECT_TRUE(mentions(result.reason, {needle}));
    }
}

TEST_P(NewtonWorkload, ANaNIsAFailureNotConvergence)
{
    const std::size_t n = 33;
    newton::Solver solver(device(), n, 32);
    const Buffer<double> x = make_buffer(device(), queue(), std::vector<double>(n, newton::start_value));
    std::vector<double> f(n, 1.0);
    f[n / 2] = std::numeric_limits<double>::quiet_NaN();
    const newton::Problem problem{n, 0.5, 1e-6, 1e-15, 100, 100};
    const newton::Convergence convergence = solver.solve(queue(), x, make_buffer(device(), queue(), f), problem);
    EXPECT_EQ(convergence.end, newton::Convergence::End::not_finite);
    EXPECT_FALSE(convergence.converged());
    EXPECT_TRUE(mentions(convergence.failure(problem, "this solve"), {"diverged"}));
}

// Near x*, Newton's step leaves a second-order error: x1 - x* = (1 - tau)(x - x*) + O(|x - x*|²)
// and x1 - x = -tau (x - x*) + O(|x - x*|²), so the result's error is (1 - tau)/tau times the last
// step, element by element, up to terms of the order of the step squared (below 1e-11 here, a
// millionth of it) and the linear solves' n eps_l.
TEST_P(NewtonWorkload, TheResultIsWhereTheLastStepSaysXStarIs)
{
    for (const char* tau : {"0.5", "0.25"}) {
        SCOPED_TRACE(std::string("tau = ") + tau);
        const auto result = run({{"n", "257"}, {"tau", tau}});
        ASSERT_EQ(result.status, workload::Status::ok) << result.reason;
        auto figure = figures(result);
        const double t = std::stod(tau);
        const double predicted = (1 - t) / t * figure["last_step_max"];
        EXPECT_NEAR(figure["error_max"], predicted, 1e-3 * predicted + 257 * 1e-15);
        EXPECT_EQ(figure["outer_iterations"], figure["reference_outer_iterations"]);
    }
}

// With tau = 1 the error squares each outer iteration from about 1 at x0 = 0: 1e-15 within five.
// The original program's A(x)ᵀ in phi against the derivative of A(x) x would make it linear.
TEST_P(NewtonWorkload, NewtonsOwnStepConvergesQuadratically)
{
    const auto result = run({{"n", "257"}, {"tau", "1"}});
    ASSERT_EQ(result.status, workload::Status::ok) << result.reason;
    auto figure = figures(result);
    EXPECT_LE(figure["outer_iterations"], 5.0);
    const newton::Problem problem{257, 1.0, 1e-6, 1e-15, 1000, 1000};
    EXPECT_LE(figure["error_max"], newton::tolerance(problem, 0, 1.5));
}

// The figures come in one order, the device's x before the reference's, whichever step of the
// run adds them; and the tolerance comes from the reference's last step, or without a reference
// from the device's own, saying so.
TEST_P(NewtonWorkload, TheFiguresAndTheToleranceSayWhereTheyComeFrom)
{
    const std::vector<std::string> device_figures = {"outer_iterations",       "inner_iterations",      "eps_g_final",
                                                     "last_step_max",          "residual_max",          "error_max",
                                                     "ms_per_outer_iteration", "us_per_inner_iteration"};
    const newton::Problem problem{100, 0.5, 1e-6, 1e-15, 1000, 1000};
    for (const bool verify : {true, false}) {
        SCOPED_TRACE(verify ? "with the reference" : "without it");
        const auto result = run({{"n", "100"}}, verify);
        ASSERT_EQ(result.status, workload::Status::ok) << result.reason;
        const auto& m = result.measurement;
        std::vector<std::string> names;
        for (const auto& [name, value] : m.extras) {
            names.push_back(name);
        }
        std::vector<std::string> expected = device_figures;
        if (verify) {
            expected.insert(expected.end(),
                            {"reference_outer_iterations", "reference_inner_iterations", "cpu_speedup"});
        }
        EXPECT_EQ(names, expected);
        auto figure = figures(result);
        const double products = figure["outer_iterations"] + figure["inner_iterations"];
        EXPECT_EQ(m.flops, 2 * newton::nonzeros(100) * products);
        EXPECT_EQ(m.bytes, sizeof(double) * newton::nonzeros(100) * (2 * figure["outer_iterations"] + products));
        double largest = 0;
        for (const double x : m.output.as<double>()) {
            largest = std::max(largest, std::fabs(x));
        }
        if (verify) {
            EXPECT_FALSE(mentions(m.tolerance_reason, {"no reference ran"})) << m.tolerance_reason;
            continue;
        }
        EXPECT_EQ(m.tolerance, newton::tolerance(problem, figure["last_step_max"], largest));
        EXPECT_EQ(m.tolerance_reason, "no reference ran: from this device's own last step; " +
                                          newton::tolerance_reason(problem, figure["last_step_max"]));
    }
}

TEST_P(NewtonWorkload, SizesTheKernelsCannotIndexAreRefused)
{
    for (const std::size_t n : {std::size_t{0}, newton::max_n + 1}) {
        const auto error = expect_error<InvalidArgument>([&] { newton::Solver(device(), n, 256); });
        ASSERT_TRUE(error) << "n = " << n;
        EXPECT_TRUE(mentions(error->message(), {dec(newton::max_n)}));
        EXPECT_TRUE(mentions(error->message(), {"32-bit"}));
    }
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(NewtonWorkload);

} // namespace
} // namespace duet::test
