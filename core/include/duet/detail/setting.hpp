// A whole number from an environment variable within limits (DUET_PEER_CHUNK_BYTES and the like),
// read the same way by the core and by the backends, which each refuse a bad one their own way.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>

namespace duet::detail {

/// `name`'s value: `fallback` where it is unset or empty; nullopt where it is not a whole number
/// from `low` to `high` (setting_refusal says so).
inline std::optional<std::size_t> whole_number_setting(const char* name, std::size_t fallback, std::size_t low,
                                                       std::size_t high)
{
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') {
        return fallback;
    }
    const std::string text = value;
    std::size_t number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error != std::errc{} || end != text.data() + text.size() || number < low || number > high) {
        return std::nullopt;
    }
    return number;
}

/// "DUET_PEER_CHUNKS='x' is not a whole number from 2 to 16"
inline std::string setting_refusal(const char* name, std::size_t low, std::size_t high)
{
    const char* value = std::getenv(name);
    return std::string(name) + "='" + (value == nullptr ? "" : value) + "' is not a whole number from " +
           std::to_string(low) + " to " + std::to_string(high);
}

} // namespace duet::detail
