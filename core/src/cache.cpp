// Program cache files: "duet-program-cache 2\n<key bytes> <binary bytes> <FNV-1a 64 of key and
// binary, 16 hex digits>\n<key><binary>", named by a hash of the key. The cache is untrusted input
// (a PoCL binary carries a shared object that PoCL loads): an entry reaches a driver only when it
// is a regular file of ours, within the size limit, whose lengths and checksum match; anything else
// is a miss, rebuilt and replaced. Writes go to a temporary file renamed into place.
#include "cache.hpp"

#include <duet/cache.hpp>

#include "state.hpp"

#include <duet/detail/c_tokens.hpp>
#include <duet/detail/file.hpp>
#include <duet/device.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <system_error>
#include <utility>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace duet {

namespace fs = std::filesystem;
using detail::error_text;

namespace {

using detail::bytes_text;
using detail::Descriptor;

constexpr std::string_view magic_prefix = "duet-program-cache ";
constexpr std::string_view format_version = "2";
/// Far above any kernel binary seen (PoCL's are kilobytes, cubins megabytes), and a bound on what
/// a listing or a build reads from a file someone else may have grown.
constexpr std::uint64_t max_entry_bytes = 256ull << 20;
constexpr std::string_view entry_suffix = ".bin";
constexpr std::string_view temporary_marker = ".tmp.";

std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 14695981039346656037ull)
{
    for (const unsigned char c : text) {
        hash = (hash ^ c) * 1099511628211ull;
    }
    return hash;
}

std::string hex16(std::uint64_t value)
{
    std::string text(16, '0');
    for (auto digit = text.rbegin(); digit != text.rend(); ++digit, value >>= 4) {
        *digit = "0123456789abcdef"[value & 0xf];
    }
    return text;
}

std::string entry_name(std::string_view key)
{
    return hex16(fnv1a(key)) + std::string(entry_suffix);
}

std::string temporary_name(const std::string& entry)
{
    return entry + std::string(temporary_marker) + std::to_string(::getpid()) + "." +
           std::to_string(std::random_device{}());
}

std::string octal_mode(mode_t mode)
{
    char text[8];
    std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
    return text;
}

/// Why a file or directory may not be trusted to hold code duet loads, as ssh judges ~/.ssh: it
/// must be the current user's and writable by no one else. Empty when it may.
std::string trust_problem(const struct stat& info)
{
    if (info.st_uid != ::geteuid()) {
        return "owned by uid " + std::to_string(info.st_uid) + ", not by you (uid " + std::to_string(::geteuid()) + ")";
    }
    if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return std::string("writable by ") + ((info.st_mode & S_IWOTH) != 0 ? "others" : "its group") + " (mode " +
               octal_mode(info.st_mode) + ")";
    }
    return "";
}

/// Why `directory`, as fstat or stat described it, cannot hold the cache; empty when it can.
std::string directory_problem(const fs::path& directory, const struct stat& info)
{
    if (!S_ISDIR(info.st_mode)) {
        return directory.string() + " is not a directory";
    }
    if (const auto problem = trust_problem(info); !problem.empty()) {
        return directory.string() + " is " + problem +
               "; duet loads kernel binaries only from a directory no one else can write";
    }
    return "";
}

/// Why `directory`, which does not exist, could not be created; empty when it could.
std::string creation_problem(const fs::path& directory)
{
    for (fs::path ancestor = directory.parent_path();; ancestor = ancestor.parent_path()) {
        const fs::path existing = ancestor.empty() ? fs::path(".") : ancestor;
        struct stat info {};
        if (::stat(existing.c_str(), &info) == 0) {
            if (!S_ISDIR(info.st_mode)) {
                return directory.string() + " cannot be created: " + existing.string() + " is not a directory";
            }
            if (::access(existing.c_str(), W_OK | X_OK) != 0) {
                return directory.string() + " cannot be created in " + existing.string() + ": " + error_text(errno);
            }
            return "";
        }
        if ((errno != ENOENT && errno != ENOTDIR) || ancestor.empty() || ancestor == ancestor.parent_path()) {
            return directory.string() + " cannot be created: " + existing.string() + ": " + error_text(errno);
        }
    }
}

/// Creates `directory` and its missing parents, each readable and writable by the user alone.
void create_private_directories(const fs::path& directory)
{
    fs::path partial;
    for (const auto& part : directory) {
        partial /= part;
        if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
            return;
        }
    }
}

/// Opens `directory` and checks it through the descriptor; on failure returns nothing and says why.
std::optional<Descriptor> open_directory(const fs::path& directory, std::string& problem)
{
    Descriptor fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    struct stat info {};
    if (!fd || ::fstat(fd.get(), &info) != 0) {
        problem = directory.string() + " cannot be opened: " + error_text(errno);
        return std::nullopt;
    }
    problem = directory_problem(directory, info);
    if (!problem.empty()) {
        return std::nullopt;
    }
    return std::optional<Descriptor>(std::in_place, fd.release());
}

/// Reads entry `name` into `content` without following a link, blocking on a FIFO or reading more
/// than max_entry_bytes, and only when it is the user's own. Returns why it cannot be used; empty
/// when it was read.
std::string read_entry(int directory, const std::string& name, std::string& content)
{
    return detail::read_regular_file(name, max_entry_bytes, content, detail::Oversize::refuse,
                                     {directory, false, trust_problem});
}

/// An entry's parts, as far as they could be read.
struct Verified {
    std::string problem; ///< empty when the entry is sound
    std::string_view key;
    std::string_view binary;
};

bool parse_length(std::string_view text, std::uint64_t& value)
{
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size() && !text.empty() && value <= max_entry_bytes;
}

Verified verify(std::string_view content)
{
    Verified entry;
    if (content.empty()) {
        entry.problem = "empty";
        return entry;
    }
    const auto truncated_header = [&] {
        entry.problem = "truncated inside its header (" + bytes_text(content.size()) + ")";
        return entry;
    };
    if (!content.starts_with(magic_prefix)) {
        if (magic_prefix.starts_with(content)) {
            return truncated_header();
        }
        entry.problem = "not a duet cache entry (no duet-program-cache header)";
        return entry;
    }
    const std::size_t version_end = content.find('\n');
    if (version_end == std::string_view::npos) {
        return truncated_header();
    }
    const std::string_view version = content.substr(magic_prefix.size(), version_end - magic_prefix.size());
    if (version != format_version) {
        entry.problem = "cache format " + std::string(version.substr(0, 16)) + ", where this duet reads format " +
                        std::string(format_version);
        return entry;
    }
    const std::size_t header_end = content.find('\n', version_end + 1);
    if (header_end == std::string_view::npos) {
        return truncated_header();
    }
    const std::string_view fields = content.substr(version_end + 1, header_end - version_end - 1);
    const std::size_t first = fields.find(' '), second = fields.find(' ', first + 1);
    std::uint64_t key_bytes = 0, binary_bytes = 0;
    if (first == std::string_view::npos || second == std::string_view::npos ||
        !parse_length(fields.substr(0, first), key_bytes) ||
        !parse_length(fields.substr(first + 1, second - first - 1), binary_bytes) ||
        fields.substr(second + 1).size() != 16) {
        entry.problem = "damaged header";
        return entry;
    }
    const std::string_view checksum = fields.substr(second + 1);
    const std::uint64_t expected = header_end + 1 + key_bytes + binary_bytes;
    const std::string_view body = content.substr(header_end + 1);
    entry.key = body.substr(0, key_bytes);
    if (content.size() < expected) {
        entry.problem = "truncated: " + bytes_text(expected - content.size()) + " short";
        return entry;
    }
    if (content.size() > expected) {
        entry.problem = bytes_text(content.size() - expected) + " longer than its header says";
        return entry;
    }
    if (hex16(fnv1a(body)) != checksum) {
        entry.problem = "checksum mismatch: the key or binary is damaged";
        return entry;
    }
    entry.binary = body.substr(key_bytes);
    return entry;
}

bool write_all(int fd, std::string_view data)
{
    while (!data.empty()) {
        const ssize_t count = ::write(fd, data.data(), data.size());
        if (count < 0 && errno == EINTR) {
            continue;
        }
        if (count <= 0) {
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(count));
    }
    return true;
}

std::string setting_value()
{
    const char* value = std::getenv("DUET_CACHE");
    return value != nullptr ? value : "";
}

/// DUET_CACHE: on or 1 (or unset, or empty) keeps programs on disk, off or 0 does not.
bool cache_turned_off()
{
    const std::string value = setting_value();
    if (value.empty() || value == "on" || value == "1") {
        return false;
    }
    if (value == "off" || value == "0") {
        return true;
    }
    detail::fail<InvalidArgument>("duet", "DUET_CACHE",
                                  "DUET_CACHE='" + value +
                                      "' is not a setting duet knows; accepted values: on or 1 "
                                      "(the default), off or 0");
}

/// DUET_CACHE_DIR, else $XDG_CACHE_HOME/duet, else $HOME/.cache/duet; empty when none is set.
fs::path named_directory()
{
    const auto env = [](const char* name) -> std::string {
        const char* value = std::getenv(name);
        return value ? value : "";
    };
    if (const auto dir = env("DUET_CACHE_DIR"); !dir.empty()) {
        return dir;
    }
    if (const auto dir = env("XDG_CACHE_HOME"); !dir.empty()) {
        return fs::path(dir) / "duet";
    }
    if (const auto home = env("HOME"); !home.empty()) {
        return fs::path(home) / ".cache" / "duet";
    }
    return {};
}

KernelCacheFile::Kind kind_of(std::string_view name)
{
    const std::size_t suffix = name.find(entry_suffix);
    const std::string_view hash = name.substr(0, suffix);
    if (suffix == std::string_view::npos || hash.empty() || hash.size() > 16 ||
        hash.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
        return KernelCacheFile::Kind::other;
    }
    const std::string_view rest = name.substr(suffix + entry_suffix.size());
    if (rest.empty()) {
        return KernelCacheFile::Kind::entry;
    }
    return rest.starts_with(temporary_marker) ? KernelCacheFile::Kind::temporary : KernelCacheFile::Kind::other;
}

/// The backend, device, format and kernels a key names (core/src/program.cpp writes keys as
/// "<field> <value>" lines, then "source" and the source).
void describe(KernelCacheFile& file, std::string_view key)
{
    std::size_t line_start = 0;
    while (line_start < key.size()) {
        const std::size_t line_end = std::min(key.find('\n', line_start), key.size());
        const std::string_view line = key.substr(line_start, line_end - line_start);
        line_start = line_end + 1;
        if (line == "source") {
            file.kernels = declared_kernels(key.substr(std::min(line_start, key.size())));
            return;
        }
        const std::size_t space = line.find(' ');
        const std::string_view field = line.substr(0, space);
        const std::string value(space == std::string_view::npos ? "" : line.substr(space + 1));
        if (field == "backend") {
            file.backend = value.substr(0, value.find(' '));
        } else if (field == "device") {
            file.device = value;
        } else if (field == "format") {
            file.format = value;
        } else if (field == "tuned") {
            file.tuning = value;
        }
    }
}

std::chrono::system_clock::time_point modified_time(const struct stat& info)
{
    return std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
        std::chrono::seconds(info.st_mtim.tv_sec) + std::chrono::nanoseconds(info.st_mtim.tv_nsec)));
}

/// The cache directory of a listing, opened; Error naming it and the reason when it cannot be used.
Descriptor open_for_listing(const KernelCacheStatus& status)
{
    std::string problem = status.reason;
    if (status.state == KernelCacheStatus::State::on) {
        if (auto directory = open_directory(status.directory, problem)) {
            return Descriptor(directory->release());
        }
    }
    detail::fail<Error>("duet", "list_kernel_cache", "cannot use the kernel cache: " + problem);
}

} // namespace

KernelCacheStatus kernel_cache_status()
{
    KernelCacheStatus status;
    if (cache_turned_off()) {
        status.reason = "DUET_CACHE=" + setting_value();
        return status;
    }
    status.directory = named_directory();
    if (status.directory.empty()) {
        status.state = KernelCacheStatus::State::unusable;
        status.reason = "no directory to keep it in (set DUET_CACHE_DIR, XDG_CACHE_HOME or HOME)";
        return status;
    }
    struct stat info {};
    if (::stat(status.directory.c_str(), &info) == 0) {
        status.exists = true;
        status.reason = directory_problem(status.directory, info);
        if (status.reason.empty() && ::access(status.directory.c_str(), R_OK | W_OK | X_OK) != 0) {
            status.reason = status.directory.string() + " cannot be read and written: " + error_text(errno);
        }
    } else if (errno == ENOENT || errno == ENOTDIR) {
        status.reason = creation_problem(status.directory);
    } else {
        status.reason = status.directory.string() + ": " + error_text(errno);
    }
    status.state = status.reason.empty() ? KernelCacheStatus::State::on : KernelCacheStatus::State::unusable;
    return status;
}

KernelCacheListing list_kernel_cache()
{
    KernelCacheListing listing;
    listing.status = kernel_cache_status();
    if (listing.status.state == KernelCacheStatus::State::off ||
        (listing.status.state == KernelCacheStatus::State::on && !listing.status.exists)) {
        return listing;
    }
    const Descriptor directory = open_for_listing(listing.status);
    const auto fail = [&](int error) {
        detail::fail<Error>("duet", "list_kernel_cache",
                            "cannot read the kernel cache " + listing.status.directory.string() + ": " +
                                error_text(error));
    };
    const int listed = ::dup(directory.get());
    DIR* stream = listed >= 0 ? ::fdopendir(listed) : nullptr;
    if (stream == nullptr) {
        const int error = errno;
        if (listed >= 0) {
            ::close(listed);
        }
        fail(error);
    }
    const std::unique_ptr<DIR, int (*)(DIR*)> closer(stream, ::closedir);
    for (errno = 0; const dirent* item = ::readdir(stream); errno = 0) {
        const std::string name = item->d_name;
        struct stat info {};
        if (name == "." || name == ".." || ::fstatat(directory.get(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
            continue; // gone since it was listed
        }
        KernelCacheFile file;
        file.path = listing.status.directory / name;
        file.kind = kind_of(name);
        file.bytes = static_cast<std::uint64_t>(info.st_size);
        file.modified = modified_time(info);
        if (file.kind == KernelCacheFile::Kind::entry) {
            std::string content;
            file.problem = read_entry(directory.get(), name, content);
            if (file.problem.empty()) {
                const Verified entry = verify(content);
                file.problem = entry.problem;
                describe(file, entry.key);
                if (!file.tuning.empty()) {
                    file.tuning += ": " + std::string(entry.binary);
                }
                if (file.problem.empty() && entry_name(entry.key) != name) {
                    file.problem = "named for another key (renamed or copied from another entry)";
                }
            }
        }
        listing.bytes += file.bytes;
        listing.files.push_back(std::move(file));
    }
    if (errno != 0) {
        fail(errno);
    }
    std::sort(listing.files.begin(), listing.files.end(),
              [](const KernelCacheFile& a, const KernelCacheFile& b) { return a.modified > b.modified; });
    return listing;
}

KernelCacheClearance clear_kernel_cache()
{
    const KernelCacheListing listing = list_kernel_cache();
    KernelCacheClearance clearance;
    clearance.directory = listing.status.directory;
    for (const auto& file : listing.files) {
        if (file.kind == KernelCacheFile::Kind::other) {
            ++clearance.kept;
            continue;
        }
        std::error_code error;
        fs::remove_all(file.path, error); // an entry's place may hold a directory; links are not followed
        if (error) {
            clearance.failures.push_back(file.path.string() + ": " + error.message());
        } else {
            ++clearance.removed;
            clearance.bytes += file.bytes;
        }
    }
    return clearance;
}

std::vector<std::string> declared_kernels(std::string_view source)
{
    static constexpr std::string_view attributes[] = {"__attribute__", "__launch_bounds__", "__cluster_dims__",
                                                      "__maxnreg__", "__declspec"};
    const auto list = detail::c_tokens(source);
    const auto text = [&](std::size_t i) { return i < list.size() ? list[i].text : std::string_view(); };
    std::vector<std::string> names;
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (text(i) != "__kernel" && text(i) != "kernel" && text(i) != "__global__") {
            continue;
        }
        // Kernels return void: after the qualifier come attributes and other specifiers, void,
        // perhaps more attributes, then the name and its parameter list.
        bool returns_void = false;
        for (std::size_t j = i + 1; j < list.size();) {
            const bool has_group = text(j + 1) == "(" || text(j + 1) == "[";
            if (std::find(std::begin(attributes), std::end(attributes), text(j)) != std::end(attributes) && has_group) {
                j = detail::closing_bracket(list, j + 1) + 1;
            } else if (text(j) == "[" && text(j + 1) == "[") {
                j = detail::closing_bracket(list, j) + 1;
            } else if (!detail::is_c_name(text(j))) {
                break;
            } else if (text(j) == "void" && !returns_void) {
                returns_void = true;
                ++j;
            } else if (returns_void && text(j + 1) == "(") {
                names.emplace_back(text(j));
                break;
            } else {
                ++j;
            }
        }
    }
    return names;
}

namespace {

/// A tuning record's key: the fields a program's key names the device by, then what was tuned
/// and the source it was measured on.
std::string tuning_key(const Device& device, std::string_view tuned, std::string_view source)
{
    const DeviceProperties& p = device.properties();
    return "duet tuning 1\nbackend " + device.backend() + "\nplatform " + p.platform + "\ndevice " + p.name +
           "\nvendor " + p.vendor + "\ndriver " + p.driver_version + "\napi " + p.api_version +
           "\nformat tuning\ntuned " + std::string(tuned) + "\nsource\n" + std::string(source);
}

} // namespace

std::string tuning_source(const ProgramSource& program)
{
    std::string sources;
    for (const auto& image : program.images) {
        if (image.format == ProgramFormat::opencl_c || image.format == ProgramFormat::cuda_c) {
            sources += image.data;
        }
    }
    return sources;
}

std::optional<std::string> load_tuning(const Device& device, std::string_view tuned, std::string_view source)
{
    const auto directory = detail::CacheDirectory::open();
    return directory ? directory->load(tuning_key(device, tuned, source)) : std::nullopt;
}

void store_tuning(const Device& device, std::string_view tuned, std::string_view source, std::string_view choice)
{
    if (const auto directory = detail::CacheDirectory::open()) {
        directory->store(tuning_key(device, tuned, source), choice);
    }
}

namespace detail {

std::optional<CacheDirectory> CacheDirectory::open()
{
    const KernelCacheStatus status = kernel_cache_status();
    if (status.state != KernelCacheStatus::State::on) {
        return std::nullopt;
    }
    if (!status.exists) {
        create_private_directories(status.directory);
    }
    std::string problem;
    auto directory = open_directory(status.directory, problem);
    if (!directory) {
        return std::nullopt;
    }
    return CacheDirectory(directory->release());
}

CacheDirectory::CacheDirectory(CacheDirectory&& other) noexcept : descriptor_(std::exchange(other.descriptor_, -1)) {}

CacheDirectory::~CacheDirectory()
{
    if (descriptor_ >= 0) {
        ::close(descriptor_);
    }
}

std::optional<std::string> CacheDirectory::load(std::string_view key) const
{
    std::string content;
    if (!read_entry(descriptor_, entry_name(key), content).empty()) {
        return std::nullopt;
    }
    const Verified entry = verify(content);
    if (!entry.problem.empty() || entry.key != key) {
        return std::nullopt;
    }
    return std::string(entry.binary);
}

void CacheDirectory::store(std::string_view key, std::string_view binary) const
{
    const std::string header = std::string(magic_prefix) + std::string(format_version) + "\n" +
                               std::to_string(key.size()) + " " + std::to_string(binary.size()) + " " +
                               hex16(fnv1a(binary, fnv1a(key))) + "\n";
    if (header.size() + key.size() + binary.size() > max_entry_bytes) {
        return; // a load would refuse it
    }
    const std::string name = entry_name(key), temporary = temporary_name(name);
    Descriptor file(
        ::openat(descriptor_, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file) {
        return;
    }
    const bool written = write_all(file.get(), header) && write_all(file.get(), key) && write_all(file.get(), binary);
    if (::close(file.release()) != 0 || !written) {
        ::unlinkat(descriptor_, temporary.c_str(), 0);
        return;
    }
    // rename replaces a file, link or FIFO in the entry's place, but not a directory: one that is
    // empty is removed, another moved aside under a temporary name, which `duet cache clear` removes.
    if (::renameat(descriptor_, temporary.c_str(), descriptor_, name.c_str()) == 0) {
        return;
    }
    const bool directory_in_the_way = errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST;
    if (!directory_in_the_way ||
        (::unlinkat(descriptor_, name.c_str(), AT_REMOVEDIR) != 0 &&
         ::renameat(descriptor_, name.c_str(), descriptor_, temporary_name(name).c_str()) != 0) ||
        ::renameat(descriptor_, temporary.c_str(), descriptor_, name.c_str()) != 0) {
        ::unlinkat(descriptor_, temporary.c_str(), 0);
    }
}

} // namespace detail

} // namespace duet
