// Text for messages that the core shares with duet's own libraries built on it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace duet::detail {

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
