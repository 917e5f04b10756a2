// Assertion helpers: the exception a call must throw (by exact family), what its message must
// name, bitwise and ulp comparisons, and the upload/download round trips the suites repeat.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>

#include <duet/duet.hpp>

namespace duet::test {

/// The demangled name of a type, for failure messages.
std::string type_name(const std::type_info& type);

/// Runs `call` and returns the exception of type E it threw; records a failure (and returns
/// nullopt) when it threw nothing or something else.
template <class E, class Call> std::optional<E> expect_error(Call&& call)
{
    try {
        call();
    } catch (const E& error) {
        return error;
    } catch (const std::exception& error) {
        ADD_FAILURE() << "expected " << type_name(typeid(E)) << ", got " << type_name(typeid(error)) << ": "
                      << error.what();
        return std::nullopt;
    } catch (...) {
        ADD_FAILURE() << "expected " << type_name(typeid(E)) << ", got a non-std exception";
        return std::nullopt;
    }
    ADD_FAILURE() << "expected " << type_name(typeid(E)) << ", but nothing was thrown";
    return std::nullopt;
}

/// What the E that `call` throws says, "" (with the failure recorded) where it throws none: one
/// assertion on the message then checks both.
template <class E, class Call> std::string error_text(Call&& call)
{
    const auto error = expect_error<E>(std::forward<Call>(call));
    return error ? error->what() : "";
}

/// EXPECT that `statement` throws duet::InvalidArgument, run in a child process (a death test) so
/// that a crash fails this test instead of killing the runner. The child exits 0 on
/// InvalidArgument, 1 when nothing was thrown, 2 on another exception; a signal means it crashed.
#define DUET_EXPECT_REFUSED_WITHOUT_CRASH(statement)                                                                   \
    do {                                                                                                               \
        GTEST_FLAG_SET(death_test_style, "threadsafe");                                                                \
        EXPECT_EXIT(                                                                                                   \
            {                                                                                                          \
                try {                                                                                                  \
                    statement;                                                                                         \
                } catch (const ::duet::InvalidArgument&) {                                                             \
                    std::_Exit(0);                                                                                     \
                } catch (...) {                                                                                        \
                    std::_Exit(2);                                                                                     \
                }                                                                                                      \
                std::_Exit(1);                                                                                         \
            },                                                                                                         \
            ::testing::ExitedWithCode(0), "")                                                                          \
            << #statement << " must throw duet::InvalidArgument (child exit 1: nothing thrown, 2: another "            \
            << "exception, a signal: it crashed)";                                                                     \
    } while (false)

/// Whether `text` contains any of `needles`, ignoring case.
bool mentions_any(const std::string& text, std::initializer_list<std::string> needles);
::testing::AssertionResult mentions(const std::string& text, std::initializer_list<std::string> needles);

/// EXPECT that an exception's what() names one of the given strings.
#define DUET_EXPECT_MENTIONS(error, ...) EXPECT_TRUE(::duet::test::mentions((error).what(), {__VA_ARGS__}))

/// Decimal text of a number, as a message would write a limit.
template <class N> std::string dec(N value)
{
    return std::to_string(value);
}

/// Bit-for-bit equality of two float arrays, naming the first few differing elements.
::testing::AssertionResult bitwise_equal(std::span<const float> expected, std::span<const float> actual);
/// At most `ulps` units in the last place apart, element by element (0: bitwise).
::testing::AssertionResult within_ulps(std::span<const float> expected, std::span<const float> actual,
                                       std::uint32_t ulps);
/// Byte equality of two arrays of trivially copyable values.
template <class T>::testing::AssertionResult same_bytes(const std::vector<T>& expected, const std::vector<T>& actual)
{
    if (expected.size() != actual.size()) {
        return ::testing::AssertionFailure() << "sizes differ: " << expected.size() << " vs " << actual.size();
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (std::memcmp(&expected[i], &actual[i], sizeof(T)) != 0) {
            return ::testing::AssertionFailure() << "first difference at element " << i << " of " << expected.size();
        }
    }
    return ::testing::AssertionSuccess();
}

/// write + finish (the host vector may go away after).
template <class T> void upload(Queue& queue, const Buffer<T>& buffer, const std::vector<T>& values)
{
    queue.write(BufferView<T>{buffer.raw(), 0, values.size()}, std::span<const T>(values));
    queue.finish();
}

/// The whole buffer, read and waited for.
template <class T> std::vector<T> download(Queue& queue, const Buffer<T>& buffer)
{
    std::vector<T> out(buffer.size());
    queue.read(std::span<T>(out), BufferView<T>(buffer));
    queue.finish();
    return out;
}

/// A buffer holding `values`.
template <class T> Buffer<T> make_buffer(const Device& device, Queue& queue, const std::vector<T>& values)
{
    Buffer<T> buffer = device.alloc<T>(values.size());
    upload(queue, buffer, values);
    return buffer;
}

/// The whole buffer as raw bytes.
std::vector<unsigned char> download_bytes(Queue& queue, const RawBuffer& buffer);

/// A quiet NaN with a payload no kernel computes: the poison of outputs that must be written.
float poison();

} // namespace duet::test
