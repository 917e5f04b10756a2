// The one error every layer may raise for a request that cannot be carried out as asked: main turns
// it into exit code 2, with its message.
#pragma once

#include <stdexcept>

namespace duet::cli {

/// The command cannot be carried out as asked (exit code 2); the message says what to change.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace duet::cli
