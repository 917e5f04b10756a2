// Reading kernel signatures from source: the core's C tokens with their lines (comments and
// preprocessor lines skipped), then the token after a kernel's `__global__` / `__kernel`
// qualifiers that is followed by `(` is its name, and its parameter list splits at top-level commas.
#include "signature.hpp"

#include <duet/detail/c_tokens.hpp>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace duet::workload::port {

namespace {

using Tokens = std::vector<detail::CToken>;
using detail::closing_bracket;
using detail::is_c_name;

struct Found {
    std::size_t name; ///< token index of the kernel's name
    std::size_t open; ///< token index of its '('
};

/// Each kernel declared in the tokens: after the qualifier, the first name followed by '(' that is
/// not an attribute.
std::vector<Found> find_kernels(const Tokens& tokens, Language language)
{
    std::vector<Found> found;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string_view t = tokens[i].text;
        const bool qualifier = language == Language::cuda ? t == "__global__" : (t == "__kernel" || t == "kernel");
        if (!qualifier) {
            continue;
        }
        for (std::size_t j = i + 1; j + 1 < tokens.size(); ++j) {
            const std::string_view word = tokens[j].text;
            if (word == ";" || word == "{" || word == "}") {
                break;
            }
            if (tokens[j + 1].text != "(" || !is_c_name(word)) {
                continue;
            }
            if (word == "__launch_bounds__" || word == "__attribute__" || word == "__declspec" ||
                word == "__maxnreg__" || word == "__cluster_dims__") {
                j = closing_bracket(tokens, j + 1);
                continue;
            }
            found.push_back({j, j + 1});
            i = j;
            break;
        }
    }
    return found;
}

std::string collapse_spaces(const std::string& text)
{
    std::string out;
    for (const char c : text) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (!out.empty() && out.back() != ' ') {
                out += ' ';
            }
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == ' ') {
        out.pop_back();
    }
    return out;
}

KernelParameter read_parameter(const std::string& source, const Tokens& tokens, std::size_t first, std::size_t last,
                               Language language, const std::string& entry)
{
    KernelParameter parameter;
    parameter.line = tokens[first].line;
    parameter.declaration = collapse_spaces(source.substr(
        tokens[first].offset, tokens[last - 1].offset + tokens[last - 1].text.size() - tokens[first].offset));
    std::vector<std::string> type_words;
    bool seen_pointer = false;
    std::size_t end = last;
    // A parameter may end in brackets: `float x[]` is a pointer.
    if (tokens[end - 1].text == "]") {
        while (end > first && tokens[end - 1].text != "[") {
            --end;
        }
        if (end > first) {
            --end;
        }
        parameter.pointer = true;
    }
    for (std::size_t i = first; i < end; ++i) {
        const std::string_view w = tokens[i].text;
        if (w == "*") {
            parameter.pointer = true;
            seen_pointer = true;
        } else if (w == "const") {
            parameter.is_const |= !seen_pointer;
        } else if (w == "__global" || w == "global") {
            parameter.space = AddressSpace::global;
        } else if (w == "__local" || w == "local") {
            parameter.space = AddressSpace::local;
        } else if (w == "__constant" || w == "constant") {
            parameter.space = AddressSpace::constant;
        } else if (w == "volatile" || w == "restrict" || w == "__restrict__" || w == "__restrict" || w == "__private" ||
                   w == "private" || w == "struct" || w == "__grid_constant__") {
        } else if (is_c_name(w) && i + 1 == end) {
            parameter.name = w;
        } else if (is_c_name(w)) {
            type_words.emplace_back(w);
        } else {
            throw std::invalid_argument("line " + std::to_string(tokens[i].line) + ": cannot read parameter '" +
                                        parameter.declaration + "' of " + entry);
        }
    }
    if (parameter.name.empty() || type_words.empty()) {
        throw std::invalid_argument("line " + std::to_string(parameter.line) + ": parameter '" + parameter.declaration +
                                    "' of " + entry + " needs a type and a name");
    }
    if (language == Language::cuda && parameter.pointer) {
        parameter.space = AddressSpace::global;
    }
    if (!parameter.pointer) {
        parameter.space = AddressSpace::value;
        parameter.is_const = false;
    }
    const auto known = element_name(type_words);
    parameter.known_element = known.has_value();
    if (known) {
        parameter.element = *known;
    } else {
        for (const auto& word : type_words) {
            parameter.element += (parameter.element.empty() ? "" : " ") + word;
        }
    }
    return parameter;
}

} // namespace

std::optional<std::string> element_name(std::vector<std::string> words)
{
    std::sort(words.begin(), words.end());
    std::string joined;
    for (const auto& w : words) {
        joined += (joined.empty() ? "" : " ") + w;
    }
    struct Alias {
        const char* spelling; ///< its words sorted, as `joined` is
        const char* name;
    };
    // `long` is 64 bits in OpenCL C and in CUDA on 64-bit Linux alike.
    static const Alias aliases[] = {
        {"float", "float"},
        {"double", "double"},
        {"half", "half"},
        {"__half", "half"},
        {"char", "int8"},
        {"char signed", "int8"},
        {"int8_t", "int8"},
        {"char unsigned", "uint8"},
        {"uchar", "uint8"},
        {"uint8_t", "uint8"},
        {"short", "int16"},
        {"int short", "int16"},
        {"int16_t", "int16"},
        {"short unsigned", "uint16"},
        {"int short unsigned", "uint16"},
        {"ushort", "uint16"},
        {"uint16_t", "uint16"},
        {"int", "int32"},
        {"int signed", "int32"},
        {"signed", "int32"},
        {"int32_t", "int32"},
        {"unsigned", "uint32"},
        {"int unsigned", "uint32"},
        {"uint", "uint32"},
        {"uint32_t", "uint32"},
        {"long", "int64"},
        {"int long", "int64"},
        {"long long", "int64"},
        {"int long long", "int64"},
        {"int64_t", "int64"},
        {"long unsigned", "uint64"},
        {"int long unsigned", "uint64"},
        {"long long unsigned", "uint64"},
        {"ulong", "uint64"},
        {"uint64_t", "uint64"},
        {"size_t", "uint64"},
    };
    for (const auto& alias : aliases) {
        if (joined == alias.spelling) {
            return alias.name;
        }
    }
    return std::nullopt;
}

std::optional<KernelSignature> read_signature(const std::string& source, const std::string& entry, Language language)
{
    const auto tokens = detail::c_tokens(source);
    for (const Found& kernel : find_kernels(tokens, language)) {
        if (tokens[kernel.name].text != entry) {
            continue;
        }
        KernelSignature signature;
        signature.entry = entry;
        signature.line = tokens[kernel.name].line;
        const std::size_t close = closing_bracket(tokens, kernel.open);
        if (close == tokens.size()) {
            throw std::invalid_argument("line " + std::to_string(signature.line) + ": the parameter list of " + entry +
                                        " does not close");
        }
        std::size_t first = kernel.open + 1;
        if (close == first || (close == first + 1 && tokens[first].text == "void")) {
            return signature;
        }
        for (std::size_t i = first; i <= close; ++i) {
            if (i == close || tokens[i].text == ",") {
                if (i == first) {
                    throw std::invalid_argument("line " + std::to_string(tokens[i].line) + ": an empty parameter in " +
                                                entry);
                }
                signature.parameters.push_back(read_parameter(source, tokens, first, i, language, entry));
                first = i + 1;
            } else if (tokens[i].text == "(" || tokens[i].text == "[") {
                i = closing_bracket(tokens, i);
            }
        }
        return signature;
    }
    return std::nullopt;
}

std::vector<std::string> kernel_names(const std::string& source, Language language)
{
    const auto tokens = detail::c_tokens(source);
    std::vector<std::string> names;
    for (const Found& kernel : find_kernels(tokens, language)) {
        if (std::find(names.begin(), names.end(), tokens[kernel.name].text) == names.end()) {
            names.emplace_back(tokens[kernel.name].text);
        }
    }
    return names;
}

std::string describe(const KernelParameter& parameter)
{
    const std::string element = (parameter.is_const ? "const " : "") + parameter.element;
    switch (parameter.space) {
    case AddressSpace::value:
        if (parameter.pointer) {
            return "a pointer to " + element + " with no address space";
        }
        return (std::string("aeio").find(parameter.element[0]) != std::string::npos ? "an " : "a ") +
               parameter.element + " value";
    case AddressSpace::global:
        return "a global pointer to " + element;
    case AddressSpace::local:
        return "a __local pointer to " + element;
    case AddressSpace::constant:
        return "a __constant pointer to " + element;
    }
    return element;
}

} // namespace duet::workload::port
