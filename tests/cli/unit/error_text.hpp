// The message of the exception a call throws, for tests that check what an error says.
#pragma once

#include <functional>
#include <string>

namespace duet::test {

/// What the E that `call` throws says, or a text no expectation matches where it throws none:
/// one assertion on the message then checks both.
template <class E> std::string error_text(const std::function<void()>& call)
{
    try {
        call();
    } catch (const E& error) {
        return error.what();
    }
    return "no exception of the expected type";
}

} // namespace duet::test
