// Text for messages that the core shares with duet's own libraries built on it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace duet::detail {

/// `text` without the leading and trailing characters of `blanks`.
inline std::string_view trimmed(std::string_view text, std::string_view blanks = " \t\r\n")
{
    const auto first = text.find_first_not_of(blanks);
    return first == std::string_view::npos ? std::string_view()
                                           : text.substr(first, text.find_last_not_of(blanks) + 1 - first);
}

/// "4096 bytes", or "6133940224 bytes (5.7 GiB)": exact, and readable where large.
inline std::string bytes_text(std::uint64_t n)
{
    std::string text = std::to_string(n) + (n == 1 ? " byte" : " bytes");
    if (n >= (1u << 20)) {
        const bool gib = n >= (1u << 30);
        char readable[32];
        std::snprintf(readable, sizeof readable, " (%.1f %s)", static_cast<double>(n) / (gib ? 1 << 30 : 1 << 20),
                      gib ? "GiB" : "MiB");
        text += readable;
    }
    return text;
}

} // namespace duet::detail
