#include "random.hpp"

#include <string>

#include <gtest/gtest.h>

namespace duet::test {

std::uint64_t test_seed()
{
    std::string name = "duet";
    if (const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
        name = std::string(info->test_suite_name()) + "." + info->name();
    }
    std::uint64_t hash = 1469598103934665603ull; // FNV-1a
    for (const char c : name) {
        hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    return hash;
}

std::vector<float> random_integral_floats(std::size_t n, std::uint64_t seed, int lo, int hi)
{
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    std::vector<float> out(n);
    for (float& value : out) {
        value = static_cast<float>(dist(engine));
    }
    return out;
}

} // namespace duet::test
