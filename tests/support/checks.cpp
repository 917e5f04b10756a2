#include "checks.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <memory>

#include <cxxabi.h>

namespace duet::test {

std::string type_name(const std::type_info& type)
{
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
    return status == 0 && name ? std::string(name.get()) : std::string(type.name());
}

namespace {
std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}
} // namespace

bool mentions_any(const std::string& text, std::initializer_list<std::string> needles)
{
    const std::string haystack = lower(text);
    return std::any_of(needles.begin(), needles.end(),
                       [&](const std::string& needle) { return haystack.find(lower(needle)) != std::string::npos; });
}

::testing::AssertionResult mentions(const std::string& text, std::initializer_list<std::string> needles)
{
    if (mentions_any(text, needles)) {
        return ::testing::AssertionSuccess();
    }
    auto failure = ::testing::AssertionFailure() << "the message names none of {";
    const char* separator = "";
    for (const std::string& needle : needles) {
        failure << separator << '"' << needle << '"';
        separator = ", ";
    }
    return failure << "}; message: \"" << text << '"';
}

::testing::AssertionResult within_ulps(std::span<const float> expected, std::span<const float> actual,
                                       std::uint32_t ulps)
{
    if (expected.size() != actual.size()) {
        return ::testing::AssertionFailure() << "sizes differ: " << expected.size() << " vs " << actual.size();
    }
    std::size_t bad = 0;
    auto failure = ::testing::AssertionFailure();
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto e = std::bit_cast<std::int32_t>(expected[i]);
        const auto a = std::bit_cast<std::int32_t>(actual[i]);
        // Map the sign-magnitude floats onto a monotonic integer line; NaNs never match.
        const auto line = [](std::int32_t bits) -> std::int64_t {
            return bits < 0 ? -static_cast<std::int64_t>(bits & 0x7fffffff) : bits;
        };
        const bool nan = expected[i] != expected[i] || actual[i] != actual[i];
        const std::int64_t distance = line(e) - line(a);
        const bool ok = ulps == 0 ? e == a : !nan && (distance < 0 ? -distance : distance) <= ulps;
        if (!ok) {
            if (bad < 5) {
                failure << "\n  [" << i << "] expected " << expected[i] << " (0x" << std::hex << e << "), got "
                        << actual[i] << " (0x" << a << std::dec << ")";
            }
            ++bad;
        }
    }
    if (bad == 0) {
        return ::testing::AssertionSuccess();
    }
    return failure << "\n  " << bad << " of " << expected.size() << " elements differ by more than " << ulps << " ulp";
}

::testing::AssertionResult bitwise_equal(std::span<const float> expected, std::span<const float> actual)
{
    return within_ulps(expected, actual, 0);
}

std::vector<unsigned char> download_bytes(Queue& queue, const RawBuffer& buffer)
{
    std::vector<unsigned char> out(buffer.bytes());
    queue.read_bytes(out.data(), buffer, 0, out.size());
    queue.finish();
    return out;
}

float poison()
{
    return std::bit_cast<float>(0x7fc0deadu);
}

} // namespace duet::test
