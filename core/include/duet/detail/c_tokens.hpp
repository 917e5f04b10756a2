// C source as tokens, each with its place and line: enough of C for duet to find the kernels a
// source declares (the kernel cache's listing) and read their parameters (a manifest's signature
// check). A detail of duet's own libraries.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace duet::detail {

struct CToken {
    /// A name or number ("float4", "0x1f"), a string or character literal with its quotes, or one
    /// punctuation character; it views the source.
    std::string_view text;
    std::size_t offset = 0; ///< of its first character in the source
    std::size_t line = 1;   ///< counted from 1, backslash continuations and comments' lines included
};

/// The tokens of `source`, which must outlive them. Comments and preprocessor lines (a '#' that
/// begins a line, with its backslash continuations) are dropped; an unterminated literal or
/// comment ends at the end of its line or of the source.
std::vector<CToken> c_tokens(std::string_view source);

/// Whether `token` is a name (an identifier or a keyword), not a number, literal or punctuation.
bool is_c_name(std::string_view token);

/// The index of the token that closes the bracket ('(', '[' or '{') at `open`, brackets of every
/// kind nested within; tokens.size() when none does.
std::size_t closing_bracket(const std::vector<CToken>& tokens, std::size_t open);

} // namespace duet::detail
