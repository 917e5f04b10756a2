// Opening output files up front.
#include "output.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>

namespace duet::cli {

std::optional<Output> Output::from(const Arguments& arguments, std::string_view option)
{
    const auto value = arguments.value(option);
    if (!value) {
        return std::nullopt;
    }
    if (value->empty() || *value == "-") {
        return Output{};
    }
    return file(*value);
}

Output Output::file(const std::filesystem::path& path)
{
    Output output;
    output.file_ = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
    if (!*output.file_) {
        throw UsageError("cannot write " + path.string() + ": " + std::strerror(errno));
    }
    return output;
}

std::ostream& Output::stream()
{
    return file_ ? *file_ : std::cout;
}

void Output::write_json(const json::Value& value)
{
    value.write(stream());
    stream() << '\n';
}

bool table_wanted(std::initializer_list<const std::optional<Output>*> outputs)
{
    int to_stdout = 0;
    for (const auto* output : outputs) {
        to_stdout += *output && (*output)->is_stdout() ? 1 : 0;
    }
    if (to_stdout > 1) {
        throw UsageError("only one of --json and --csv can go to standard output; give the other a FILE");
    }
    return to_stdout == 0;
}

} // namespace duet::cli
