// Opening output files up front, refusing two outputs that would overwrite each other, and
// writes whose every failure is reported.
#include "commands/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
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

/// `path` made absolute with ".", ".." and symbolic links resolved as far as it exists, so that two
/// spellings of one file compare equal.
fs::path normalised(const std::string& path)
{
    std::error_code error;
    const auto resolved = fs::weakly_canonical(fs::absolute(path), error);
    return error ? fs::absolute(path).lexically_normal() : resolved;
}

bool is_stdout_value(const std::string& value)
{
    return value.empty() || value == "-";
}

} // namespace

std::optional<Output> Output::from(const Arguments& arguments, std::string_view option)
{
    const auto value = arguments.value(option);
    if (!value) {
        return std::nullopt;
    }
    Output output;
    if (is_stdout_value(*value)) {
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
    for (std::size_t i = 0; i < asked.size(); ++i) {
        for (std::size_t j = i + 1; j < asked.size(); ++j) {
            const bool both_stdout = is_stdout_value(asked[i].value) && is_stdout_value(asked[j].value);
            if (both_stdout) {
                throw UsageError("only one of --" + std::string(asked[i].option) + " and --" + asked[j].option +
                                 " can go to standard output; give the other a FILE");
            }
            if (!is_stdout_value(asked[i].value) && !is_stdout_value(asked[j].value) &&
                normalised(asked[i].value) == normalised(asked[j].value)) {
                throw UsageError("--" + std::string(asked[i].option) + " " + asked[i].value + " and --" +
                                 asked[j].option + " " + asked[j].value + " are the same file (" +
                                 normalised(asked[i].value).string() + "); one would overwrite the other");
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
