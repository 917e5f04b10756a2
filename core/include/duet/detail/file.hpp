// Reading a file that someone else may have put in duet's way: regular files only (a FIFO or a
// device would block or never end), within a size limit. The kernel cache reads its entries so,
// and the manifest reader its manifests, sources and data. A detail of duet's own libraries.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace duet::detail {

/// A file descriptor, closed when it goes out of scope.
class Descriptor {
public:
    explicit Descriptor(int fd) : fd_(fd) {}
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    ~Descriptor()
    {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    explicit operator bool() const { return fd_ >= 0; }
    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }

private:
    int fd_;
};

/// "a FIFO", "a directory", "a character device", ...: what a file of `mode` is.
std::string file_type_name(mode_t mode);

/// What an errno value says, in the system's words ("Permission denied").
std::string error_text(int error);

/// Where a file is opened, and what else it must be.
struct FileAccess {
    int directory = AT_FDCWD; ///< the open directory a relative path starts from
    bool follow_links = true;
    /// Where given, may refuse the file by what fstat says of it: why, empty when it may be read.
    std::function<std::string(const struct stat&)> examine;
};

/// What to do with a file over the limit: refuse it, or read its first `limit` bytes.
enum class Oversize { refuse, read_head };

/// Reads the regular file at `path` into `content`, never blocking on a FIFO or reading more than
/// `limit` bytes. Returns why it cannot be read, to follow the file's name ("not a regular file
/// (a FIFO)", "no such file", "2147483648 bytes (2.0 GiB), over the limit of ..."); empty when
/// `content` holds it.
std::string read_regular_file(const std::filesystem::path& path, std::uint64_t limit, std::string& content,
                              Oversize oversize = Oversize::refuse, const FileAccess& access = {});

} // namespace duet::detail
