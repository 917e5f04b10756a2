// Opening output files up front, refusing two outputs that would overwrite each other, and
// writes whose every failure is reported.
#include "commands/output.hpp"
#include "model/ranks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace duet::cli {

namespace fs = std::filesystem;

/// An open file descriptor, closed when the last Output sharing it goes.
struct Output::File {
    int descriptor;
    ~File() { ::close(descriptor); }
};

namespace {

/// Writes all of `text` to `descriptor`, resuming after partial writes and signals; the errno of a
/// failure, else 0.
int write_through(int descriptor, std::string_view text)
{
    while (!text.empty()) {
        const ssize_t written = ::write(descriptor, text.data(), text.size());
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        text.remove_prefix(static_cast<std::size_t>(written));
    }
    return 0;
}

/// `path` made absolute, with every symbolic link resolved, a dangling one too (opening it creates
/// its target), and ".", ".." and links resolved as far as the path exists: two spellings of one
/// file that does not exist yet compare equal.
fs::path resolved(const std::string& path)
{
    std::error_code error;
    fs::path resolved = fs::absolute(path, error).lexically_normal();
    for (int hop = 0; hop < 40 && fs::is_symlink(fs::symlink_status(resolved, error)); ++hop) { // 40: Linux's ELOOP
        const fs::path target = fs::read_symlink(resolved, error);
        if (error) {
            break;
        }
        resolved = (target.is_absolute() ? target : resolved.parent_path() / target).lexically_normal();
    }
    const auto canonical = fs::weakly_canonical(resolved, error);
    return error ? resolved : canonical;
}

/// The file an output names, told apart by what it is rather than how it is spelled.
struct Target {
    bool standard_output = false; ///< "-", no value, or a name of standard output (/dev/stdout, /dev/fd/1)
    std::optional<std::pair<dev_t, ino_t>> file; ///< an existing regular file, hard links included
    bool other = false;                          ///< an existing device or pipe, which no output overwrites
    fs::path path;                               ///< where a file yet to be created will be
};

bool is_stdout_value(const std::string& value)
{
    return value.empty() || value == "-";
}

Target target_of(const std::string& value)
{
    Target target;
    if (is_stdout_value(value)) {
        target.standard_output = true;
        return target;
    }
    struct stat out {};
    struct stat named {};
    if (::stat(value.c_str(), &named) == 0) {
        // /dev/stdout, /dev/fd/1, /proc/self/fd/1, a link to one of them, or the file standard output
        // was sent to: all of them are standard output.
        target.standard_output =
            ::fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == named.st_dev && out.st_ino == named.st_ino;
        if (S_ISREG(named.st_mode)) {
            target.file = std::pair{named.st_dev, named.st_ino};
        } else {
            target.other = true;
        }
    }
    target.path = resolved(value);
    return target;
}

/// Whether writing one of the two would overwrite what the other wrote.
bool same_file(const Target& a, const Target& b)
{
    if (a.other || b.other) {
        return false;
    }
    return a.file && b.file ? *a.file == *b.file : a.path == b.path;
}

} // namespace

std::optional<Output> Output::from(const Arguments& arguments, std::string_view option)
{
    const auto value = arguments.value(option);
    // Under mpirun rank 0 alone writes what the command reports.
    if (!value || !reporting()) {
        return std::nullopt;
    }
    Output output;
    if (target_of(*value).standard_output) {
        return output;
    }
    const int descriptor = ::open(value->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (descriptor < 0) {
        throw UsageError("--" + std::string(option) + ": cannot write " + *value + ": " + std::strerror(errno));
    }
    output.name_ = *value;
    output.file_ = std::make_shared<File>(descriptor);
    return output;
}

void Output::write(std::string_view text)
{
    int error = 0;
    if (file_) {
        error = write_through(file_->descriptor, text);
    } else {
        // The table, notes and this text share standard output; what std::cout holds goes first.
        std::cout.flush();
        error = std::fflush(stdout) != 0 ? errno : write_through(STDOUT_FILENO, text);
    }
    if (error != 0) {
        throw WriteError("cannot write " + name_ + ": " + std::strerror(error));
    }
}

void Output::write_json(const json::Value& value)
{
    write(json::document(value));
}

std::optional<OutputFolder> OutputFolder::from(const Arguments& arguments, std::string_view option)
{
    const auto value = arguments.value(option);
    if (!value || !reporting()) {
        return std::nullopt;
    }
    const auto refuse = [&](const std::string& why) {
        throw UsageError("--" + std::string(option) + ": cannot write files in " + *value + ": " + why);
    };
    if (value->empty()) {
        refuse("no folder named");
    }
    std::error_code error;
    fs::create_directories(*value, error);
    if (error) {
        refuse(error.message());
    }
    if (!fs::is_directory(*value, error)) {
        refuse("not a folder");
    }
    OutputFolder folder;
    folder.path_ = *value;
    // A file written and removed: permissions, a read-only mount and a full disk all show here.
    std::string probe = (folder.path_ / ".duet-write-test-XXXXXX").string();
    const int descriptor = ::mkstemp(probe.data());
    if (descriptor < 0) {
        refuse(std::strerror(errno));
    }
    const int written = write_through(descriptor, "duet\n");
    ::close(descriptor);
    ::unlink(probe.c_str());
    if (written != 0) {
        refuse(std::strerror(written));
    }
    return folder;
}

fs::path OutputFolder::write(const std::string& name, std::string_view text) const
{
    const fs::path path = path_ / name;
    const int descriptor = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    const int error = descriptor < 0 ? errno : write_through(descriptor, text);
    if (descriptor >= 0 && ::close(descriptor) != 0 && error == 0) {
        throw WriteError("cannot write " + path.string() + ": " + std::strerror(errno));
    }
    if (error != 0) {
        throw WriteError("cannot write " + path.string() + ": " + std::strerror(error));
    }
    return path;
}

Outputs Outputs::open(const Arguments& arguments)
{
    struct Asked {
        const char* option;
        std::string value;
    };
    std::vector<Asked> asked;
    for (const char* option : {"json", "csv", "report"}) {
        if (const auto value = arguments.value(option)) {
            asked.push_back({option, *value});
        }
    }
    std::vector<Target> targets;
    for (const auto& one : asked) {
        targets.push_back(target_of(one.value));
    }
    for (std::size_t i = 0; i < asked.size(); ++i) {
        for (std::size_t j = i + 1; j < asked.size(); ++j) {
            const auto option = [&](std::size_t k) { return "--" + std::string(asked[k].option); };
            // "--csv /dev/stdout", not "--csv", where standard output was spelled as a file.
            const auto spelled = [&](std::size_t k) {
                return option(k) + (is_stdout_value(asked[k].value) ? "" : " " + asked[k].value);
            };
            if (targets[i].standard_output && targets[j].standard_output) {
                throw UsageError("only one of " + spelled(i) + " and " + spelled(j) +
                                 " can go to standard output; give the other a FILE");
            }
            if (!targets[i].standard_output && !targets[j].standard_output && same_file(targets[i], targets[j])) {
                throw UsageError(option(i) + " " + asked[i].value + " and " + option(j) + " " + asked[j].value +
                                 " are the same file (" + targets[i].path.string() +
                                 "); one would overwrite the other");
            }
        }
    }
    Outputs outputs;
    outputs.json = Output::from(arguments, "json");
    outputs.csv = Output::from(arguments, "csv");
    outputs.report = Output::from(arguments, "report");
    for (const auto* output : {&outputs.json, &outputs.csv, &outputs.report}) {
        outputs.table = outputs.table && !(*output && (*output)->is_stdout());
    }
    return outputs;
}

void Outputs::write(const std::function<std::string()>& json_text, const std::function<std::string()>& csv_text,
                    const std::function<std::string()>& report_text)
{
    std::string failures;
    using Item = std::pair<std::optional<Output>*, const std::function<std::string()>*>;
    for (const auto& [output, text] :
         std::initializer_list<Item>{{&json, &json_text}, {&csv, &csv_text}, {&report, &report_text}}) {
        if (!*output) {
            continue;
        }
        try {
            (*output)->write((*text)());
        } catch (const WriteError& error) {
            failures += (failures.empty() ? "" : "\n") + std::string(error.what());
        }
    }
    if (!failures.empty()) {
        throw WriteError(failures);
    }
}

} // namespace duet::cli
