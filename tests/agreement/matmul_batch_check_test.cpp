// matmul's check of a batch (BatchCheck): the products lie end to end in A, B and C, and each is
// judged against its own inputs, so a wrong or unwritten element of any product fails the batch.
#include <limits>
#include <vector>

#include "duet_test.hpp"
#include "matmul.hpp"

namespace duet::test {
namespace {

TEST(MatmulBatchCheck, EachProductIsJudgedAgainstItsOwnInputs)
{
    const matmul::Shape shape{9, 13, 21};
    const std::size_t products = 3;
    const std::size_t c_size = shape.m * shape.n;
    const auto a = random_floats(products * shape.m * shape.k, test_seed());
    const auto b = random_floats(products * shape.k * shape.n, test_seed() + 1);
    std::vector<float> expected(products * c_size, poison());
    matmul::BatchCheck check(shape, products);
    check.reference(a, b, test_seed(), expected);
    // Below the sampling limit every row of every product is the reference's, and none is left.
    for (std::size_t p = 0; p < products; ++p) {
        std::vector<double> want(c_size);
        matmul::reference(std::span<const float>(a).subspan(p * shape.m * shape.k, shape.m * shape.k),
                          std::span<const float>(b).subspan(p * shape.k * shape.n, shape.k * shape.n), want, shape);
        for (std::size_t i = 0; i < c_size; ++i) {
            ASSERT_EQ(expected[p * c_size + i], static_cast<float>(want[i])) << "product " << p << ", element " << i;
        }
    }
    std::vector<float> c = expected;
    check.fill_unchecked(std::vector<float>(c.size(), 0.0f), expected);
    EXPECT_EQ(expected, c) << "no row was left out to fill";
    const double tolerance = matmul::tolerance(shape);
    EXPECT_LE(check.max_error(c), tolerance) << "the reference rounded to float";

    // An element of the last product, against its own Σ|a·b| (at most 21 × 4): 0.01 is over 1.1e-4
    // of it, above the tolerance of 5e-6.
    c[2 * c_size + 4 * shape.n + 7] += 0.01f;
    EXPECT_GT(check.max_error(c), tolerance);
    c[2 * c_size + 4 * shape.n + 7] = poison();
    EXPECT_EQ(check.max_error(c), std::numeric_limits<double>::infinity());
}

TEST(MatmulBatchCheck, ItsRowsAreThoseRowsToCheckLists)
{
    for (const matmul::Shape shape : {matmul::Shape{300, 200, 100}, matmul::Shape{4096, 4096, 4096}}) {
        EXPECT_EQ(matmul::rows_checked(shape, 2), matmul::rows_to_check(shape, 2, test_seed()).size());
    }
}

} // namespace
} // namespace duet::test
