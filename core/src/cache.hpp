// The on-disk cache of built programs: one file per key, holding the key itself (so a hash
// collision is a miss, never a wrong binary) and the binary. Writes are atomic.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace duet::detail {

/// DUET_CACHE_DIR, else $XDG_CACHE_HOME/duet, else $HOME/.cache/duet; empty when DUET_CACHE is
/// "off" or "0", or no directory can be named.
std::filesystem::path cache_directory();

std::optional<std::string> cache_load(const std::filesystem::path& directory, std::string_view key);
/// Best effort: a cache that cannot be written never fails a build.
void cache_store(const std::filesystem::path& directory, std::string_view key, std::string_view binary);

} // namespace duet::detail
