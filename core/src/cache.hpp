// The on-disk program cache as builds use it: one file per key, holding the key itself (so a hash
// collision is a miss, never a wrong binary), its length and a checksum, and the binary.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace duet::detail {

/// The cache directory, opened and checked once per build through its descriptor (so it cannot be
/// swapped between the check and the use); entries are opened relative to it.
class CacheDirectory {
public:
    /// Nothing when the cache is off or unusable: the build goes on without it. Creates the
    /// directory (mode 0700) when missing. Throws InvalidArgument for a bad DUET_CACHE.
    static std::optional<CacheDirectory> open();

    CacheDirectory(CacheDirectory&& other) noexcept;
    CacheDirectory& operator=(CacheDirectory&&) = delete;
    ~CacheDirectory();

    /// The binary stored for `key`, only when its entry is a regular file of ours that verifies.
    std::optional<std::string> load(std::string_view key) const;
    /// Best effort, atomic (temporary file, then rename) and replacing whatever is in the way: a
    /// cache that cannot be written never fails a build.
    void store(std::string_view key, std::string_view binary) const;

private:
    explicit CacheDirectory(int descriptor) : descriptor_(descriptor) {}
    int descriptor_;
};

} // namespace duet::detail
