// Opened without blocking (O_NONBLOCK makes opening a FIFO return at once), judged by fstat on
// the descriptor it reads (so the file cannot be swapped between the check and the read), read
// no further than the limit.
#include <duet/detail/file.hpp>

#include <duet/detail/text.hpp>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace duet::detail {

std::string error_text(int error)
{
    return std::generic_category().message(error);
}

std::string file_type_name(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return "a regular file";
    case S_IFDIR:
        return "a directory";
    case S_IFIFO:
        return "a FIFO";
    case S_IFLNK:
        return "a symbolic link";
    case S_IFSOCK:
        return "a socket";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    default:
        return "not a regular file";
    }
}

std::string read_regular_file(const std::filesystem::path& path, std::uint64_t limit, std::string& content,
                              Oversize oversize, const FileAccess& how)
{
    const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (how.follow_links ? 0 : O_NOFOLLOW);
    const Descriptor fd(::openat(how.directory, path.c_str(), flags));
    struct stat info {};
    if (!fd) {
        const int error = errno;
        if (::fstatat(how.directory, path.c_str(), &info, how.follow_links ? 0 : AT_SYMLINK_NOFOLLOW) == 0 &&
            !S_ISREG(info.st_mode)) {
            return "not a regular file (" + file_type_name(info.st_mode) + ")";
        }
        return error == ENOENT ? "no such file" : "cannot be opened: " + error_text(error);
    }
    if (::fstat(fd.get(), &info) != 0) {
        return "cannot be examined: " + error_text(errno);
    }
    if (!S_ISREG(info.st_mode)) {
        return "not a regular file (" + file_type_name(info.st_mode) + ")";
    }
    if (how.examine) {
        if (auto problem = how.examine(info); !problem.empty()) {
            return problem;
        }
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    if (size > limit && oversize == Oversize::refuse) {
        return bytes_text(size) + ", over the limit of " + bytes_text(limit);
    }
    content.resize(static_cast<std::size_t>(std::min(size, limit)));
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t count = ::read(fd.get(), content.data() + done, content.size() - done);
        if (count < 0 && errno == EINTR) {
            continue;
        }
        if (count < 0) {
            return "cannot be read: " + error_text(errno);
        }
        if (count == 0) {
            break; // shrunk since fstat: what was there is what it holds
        }
        done += static_cast<std::size_t>(count);
    }
    content.resize(done);
    return "";
}

} // namespace duet::detail
