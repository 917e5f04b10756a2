// Reading a kernel-pair manifest (*.duet.toml) through toml++, which keeps every value's line, so
// that each problem is named by file, line and field before anything is built or launched.
#include "port.hpp"

#include <duet/manifest.hpp>
#include <duet/workload/agreement.hpp>

#include <duet/detail/file.hpp>
#include <duet/error.hpp>

#include <toml++/toml.h>

#include <elf.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

namespace duet::workload::port {

namespace fs = std::filesystem;

std::string Place::text() const
{
    return file.filename().string() + (line != 0 ? ":" + std::to_string(line) : "") +
           (field.empty() ? "" : ": " + field);
}

void fail(const Place& place, const std::string& problem)
{
    throw InvalidArgument("duet", "manifest", place.text() + ": " + problem);
}

double epsilon_of(ElementType type)
{
    return type == ElementType::f32   ? std::numeric_limits<float>::epsilon()
           : type == ElementType::f64 ? std::numeric_limits<double>::epsilon()
                                      : 1.0;
}

Number Formula::value(const std::map<std::string, Number>& values) const
{
    try {
        return expression.evaluate(values);
    } catch (const ExpressionError& error) {
        fail(place, error.what());
    }
}

std::int64_t Formula::integer(const std::map<std::string, Number>& values) const
{
    try {
        return expression.integer(values);
    } catch (const ExpressionError& error) {
        fail(place, error.what());
    }
}

double Formula::real(const std::map<std::string, Number>& values) const
{
    try {
        return expression.real(values);
    } catch (const ExpressionError& error) {
        fail(place, error.what());
    }
}

namespace {

std::string join(const std::vector<std::string>& words)
{
    std::string text;
    for (const auto& word : words) {
        text += (text.empty() ? "" : ", ") + word;
    }
    return text;
}

/// The largest manifest, kernel source and init file read: far above any written by hand, a bound
/// on what loading a workload reads (every command loads every manifest on DUET_PLUGIN_PATH).
constexpr std::uint64_t max_manifest_bytes = 1ull << 20;
constexpr std::uint64_t max_init_file_bytes = 1ull << 30;

/// The whole of the regular file `path`, or InvalidArgument at `place` saying what it is instead
/// (a FIFO, a device, a directory) or the limit it breaks.
std::string read_text(const fs::path& path, const Place& place, std::uint64_t limit)
{
    std::string text;
    if (const auto problem = detail::read_regular_file(path, limit, text); !problem.empty()) {
        fail(place, "cannot read " + path.string() + ": " + problem);
    }
    return text;
}

/// One TOML table of the manifest: its fields by name, each with its place; a field it does not
/// know is refused, so that a misspelt one is not silently ignored.
class Table {
public:
    /// `known`: the fields it takes; empty: any (a table of names the user chooses).
    Table(const toml::table& table, Place place, std::vector<std::string> known)
        : table_(table), place_(std::move(place))
    {
        for (const auto& [key, node] : table_) {
            if (!known.empty() && std::find(known.begin(), known.end(), key.str()) == known.end()) {
                fail(at(key.str()), "unknown field; " + (place_.field.empty() ? "a manifest" : place_.field) +
                                        " takes: " + join(known));
            }
        }
    }

    const Place& place() const { return place_; }
    const toml::node* get(std::string_view key) const { return table_.get(key); }
    /// The place of the field, or of this table where the field is absent.
    Place at(std::string_view key) const
    {
        const toml::node* node = get(key);
        const std::string field = place_.field.empty() ? std::string(key) : place_.field + "." + std::string(key);
        return {place_.file, node != nullptr ? node->source().begin.line : place_.line, field};
    }
    Place required_at(std::string_view key) const
    {
        if (get(key) == nullptr) {
            fail(at(key), "missing; it is required");
        }
        return at(key);
    }

    std::string string(std::string_view key) const
    {
        const Place place = required_at(key);
        if (!get(key)->is_string()) {
            fail(place, "must be a string");
        }
        return get(key)->as_string()->get();
    }
    std::string string_or(std::string_view key, std::string fallback) const
    {
        return get(key) != nullptr ? string(key) : fallback;
    }
    bool boolean_or(std::string_view key, bool fallback) const
    {
        if (get(key) == nullptr) {
            return fallback;
        }
        if (!get(key)->is_boolean()) {
            fail(at(key), "must be true or false");
        }
        return get(key)->as_boolean()->get();
    }
    double number(std::string_view key) const { return number_of(*get(key), required_at(key)); }
    static double number_of(const toml::node& node, const Place& place)
    {
        if (node.is_integer()) {
            return static_cast<double>(node.as_integer()->get());
        }
        if (node.is_floating_point()) {
            return node.as_floating_point()->get();
        }
        fail(place, "must be a number");
    }
    /// An expression: a string such as "ceil_div(n, 256)", or a number.
    Formula formula(std::string_view key, const std::vector<std::string>& names) const
    {
        return formula_of(*get(key), required_at(key), names);
    }
    static Formula formula_of(const toml::node& node, const Place& place, const std::vector<std::string>& names)
    {
        std::string text;
        if (node.is_string()) {
            text = node.as_string()->get();
        } else if (node.is_integer()) {
            text = std::to_string(node.as_integer()->get());
        } else if (node.is_floating_point()) {
            text = to_string(Number(node.as_floating_point()->get()));
        } else {
            fail(place, "must be an expression (a string such as \"ceil_div(n, 256)\") or a number");
        }
        try {
            return {Expression(text, names), place};
        } catch (const ExpressionError& error) {
            fail(place, error.what());
        }
    }
    /// 1 to 3 expressions: an array, or one value for one dimension.
    std::vector<Formula> dimensions(std::string_view key, const std::vector<std::string>& names) const
    {
        const Place place = at(key);
        const toml::node* node = get(key);
        if (node == nullptr) {
            return {};
        }
        std::vector<Formula> formulas;
        if (const toml::array* array = node->as_array()) {
            if (array->empty() || array->size() > 3) {
                fail(place, "must have 1, 2 or 3 dimensions; it has " + std::to_string(array->size()));
            }
            for (const auto& item : *array) {
                formulas.push_back(formula_of(item, place, names));
            }
        } else {
            formulas.push_back(formula_of(*node, place, names));
        }
        return formulas;
    }
    std::optional<std::vector<std::string>> strings(std::string_view key) const
    {
        const toml::node* node = get(key);
        if (node == nullptr) {
            return std::nullopt;
        }
        const toml::array* array = node->as_array();
        if (array == nullptr ||
            !std::all_of(array->begin(), array->end(), [](const toml::node& item) { return item.is_string(); })) {
            fail(at(key), "must be an array of strings");
        }
        std::vector<std::string> words;
        for (const auto& item : *array) {
            words.push_back(item.as_string()->get());
        }
        return words;
    }
    Table table(std::string_view key, std::vector<std::string> known) const
    {
        const toml::table* inner = get(key) != nullptr ? get(key)->as_table() : nullptr;
        if (inner == nullptr) {
            fail(at(key), get(key) == nullptr ? "missing; it is required" : "must be a table");
        }
        return Table(*inner, at(key), std::move(known));
    }
    std::optional<Table> optional_table(std::string_view key, std::vector<std::string> known) const
    {
        return get(key) != nullptr ? std::optional<Table>(table(key, std::move(known))) : std::nullopt;
    }
    /// The fields of this table in the order they were written (toml++ keeps them sorted).
    std::vector<std::pair<std::string, const toml::node*>> entries() const
    {
        std::vector<std::pair<std::string, const toml::node*>> found;
        for (const auto& [key, node] : table_) {
            found.emplace_back(key.str(), &node);
        }
        std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
            return a.second->source().begin.line < b.second->source().begin.line;
        });
        return found;
    }

private:
    const toml::table& table_;
    Place place_;
};

ElementType element_type(const std::string& name, const Place& place)
{
    for (const auto type :
         {ElementType::f32, ElementType::f64, ElementType::i32, ElementType::u32, ElementType::i64, ElementType::u8}) {
        if (name == to_string(type)) {
            return type;
        }
    }
    fail(place, "unknown element type '" + name + "'; known: float, double, int32, uint32, int64, uint8");
}

bool is_identifier(const std::string& name)
{
    return !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
           std::all_of(name.begin(), name.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

WorkloadParameter read_parameter(const Table& table, const std::string& name)
{
    const std::string type = table.string("type");
    WorkloadParameter parameter;
    parameter.name = name;
    parameter.help = table.string_or("help", "");
    if (type != "integer" && type != "real") {
        fail(table.at("type"), "unknown parameter type '" + type + "'; known: integer, real");
    }
    parameter.type = type == "integer" ? WorkloadParameter::Type::integer : WorkloadParameter::Type::real;
    parameter.min = table.number("min");
    parameter.max = table.number("max");
    const double value = table.number("default");
    if (type == "integer") {
        if (!table.get("default")->is_integer()) {
            fail(table.at("default"), "an integer parameter's default must be an integer");
        }
        parameter.default_value = std::to_string(table.get("default")->as_integer()->get());
    } else {
        parameter.default_value = to_string(Number(value));
    }
    if (!(parameter.min <= value && value <= parameter.max)) {
        fail(table.at("default"), "default " + parameter.default_value + " is outside [min, max] = [" +
                                      to_string(Number(parameter.min)) + ", " + to_string(Number(parameter.max)) + "]");
    }
    return parameter;
}

KernelSource read_source(const Table& table, Language language, const fs::path& folder,
                         const std::vector<std::string>& names)
{
    KernelSource source;
    source.language = language;
    source.place = table.place();
    source.file = folder / table.string("source");
    source.text = read_text(source.file, table.at("source"), max_source_bytes);
    source.entry = table.string("entry");
    source.options = table.string_or("options", "");
    source.args = table.strings("args");
    source.args_place = table.at("args");
    if (const auto defines = table.optional_table("defines", {})) {
        for (const auto& [name, node] : defines->entries()) {
            if (!is_identifier(name)) {
                fail(defines->at(name), "a define's name must be an identifier");
            }
            source.defines.emplace_back(name, Table::formula_of(*node, defines->at(name), names));
        }
    }
    const Place entry = table.at("entry");
    std::optional<KernelSignature> signature;
    try {
        signature = read_signature(source.text, source.entry, language);
    } catch (const std::invalid_argument& error) {
        fail(entry, source.file.filename().string() + ": " + error.what());
    }
    if (!signature) {
        const auto known = kernel_names(source.text, language);
        fail(entry, source.file.filename().string() + " declares no kernel '" + source.entry + "'; it declares " +
                        (known.empty() ? "none" : join(known)));
    }
    source.signature = *signature;
    return source;
}

const std::vector<std::string> source_fields = {"source", "entry", "options", "defines", "args"};

/// The fields of a .npy header, a Python dict literal such as
/// {'descr': '<f4', 'fortran_order': False, 'shape': (10, 100), }: each value as written, strings
/// without their quotes. `refuse` is called with what does not parse and must not return.
std::map<std::string, std::string> npy_fields(const std::string& header,
                                              const std::function<void(const std::string&)>& refuse)
{
    std::size_t at = 0;
    const auto skip_space = [&] {
        while (at < header.size() && std::isspace(static_cast<unsigned char>(header[at]))) {
            ++at;
        }
    };
    const auto next = [&] {
        skip_space();
        return at < header.size() ? header[at] : '\0';
    };
    const auto quoted = [&](const std::string& what) {
        const char quote = next();
        if (quote != '\'' && quote != '"') {
            refuse("has no quoted " + what + " where one is expected (offset " + std::to_string(at) + ")");
        }
        const std::size_t end = header.find(quote, at + 1);
        if (end == std::string::npos) {
            refuse("has a string that never ends (offset " + std::to_string(at) + ")");
        }
        std::string text = header.substr(at + 1, end - at - 1);
        at = end + 1;
        return text;
    };
    if (next() != '{') {
        refuse("is not a dict: it does not start with '{'");
    }
    ++at;
    std::map<std::string, std::string> fields;
    while (next() != '}') {
        const std::string key = quoted("key");
        if (next() != ':') {
            refuse("has no ':' after '" + key + "'");
        }
        ++at;
        std::string value;
        if (const char c = next(); c == '(') {
            const std::size_t end = header.find(')', at);
            if (end == std::string::npos) {
                refuse("has no ')' closing the value of '" + key + "'");
            }
            value = header.substr(at, end + 1 - at);
            at = end + 1;
        } else if (c == '\'' || c == '"') {
            value = quoted("value of '" + key + "'");
        } else {
            while (at < header.size() && (std::isalnum(static_cast<unsigned char>(header[at])) || header[at] == '_')) {
                value += header[at++];
            }
        }
        if (value.empty()) {
            refuse("gives '" + key + "' no value");
        }
        fields[key] = value;
        if (next() == ',') {
            ++at;
        } else if (next() != '}') {
            refuse("has neither ',' nor '}' after the value of '" + key + "'");
        }
    }
    return fields;
}

/// The dimensions of a .npy shape, "(10, 100)", "(1000,)" or "()" (a scalar).
std::vector<std::uint64_t> npy_shape(const std::string& shape, const std::function<void(const std::string&)>& refuse)
{
    if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') {
        refuse("gives 'shape' as " + shape + ", not a tuple");
    }
    std::vector<std::uint64_t> dimensions;
    std::istringstream parts(shape.substr(1, shape.size() - 2));
    for (std::string part; std::getline(parts, part, ',');) {
        part.erase(0, part.find_first_not_of(" \t\n"));
        part.erase(part.find_last_not_of(" \t\n") + 1);
        if (part.empty() && parts.eof()) {
            break; // the trailing comma of "(1000,)"
        }
        std::uint64_t dimension = 0;
        const auto read = std::from_chars(part.data(), part.data() + part.size(), dimension);
        if (part.empty() || read.ec != std::errc() || read.ptr != part.data() + part.size()) {
            refuse("gives 'shape' as " + shape + ": '" + part + "' is not a size");
        }
        dimensions.push_back(dimension);
    }
    return dimensions;
}

/// The data of a NumPy .npy file (format 1.0 to 3.0), checked against the buffer's element type
/// and against its own shape: little-endian, C order, any shape (the buffer takes its elements in
/// order).
std::string npy_data(const std::string& bytes, ElementType type, const std::string& name, const Place& place)
{
    const std::string magic = "\x93NUMPY";
    if (bytes.size() < 10 || bytes.compare(0, magic.size(), magic) != 0) {
        fail(place, name + " is not a .npy file (no \\x93NUMPY magic)");
    }
    const auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i])); };
    const std::size_t major = byte(6);
    if (major < 1 || major > 3) {
        fail(place, name + ": .npy format version " + std::to_string(major) + " is not one of 1, 2, 3");
    }
    const std::size_t header_start = major == 1 ? 10 : 12;
    if (bytes.size() < header_start) {
        fail(place, name + ": the .npy file ends inside its header's length");
    }
    const std::size_t header_length =
        major == 1 ? byte(8) | byte(9) << 8 : byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    if (bytes.size() < header_start + header_length) {
        fail(place, name + ": the .npy header runs past the end of the file");
    }
    const auto refuse = [&](const std::string& problem) { fail(place, name + ": the .npy header " + problem); };
    const auto fields = npy_fields(bytes.substr(header_start, header_length), refuse);
    const auto value_of = [&](const std::string& key) {
        const auto found = fields.find(key);
        if (found == fields.end()) {
            refuse("has no '" + key + "'");
        }
        return found->second;
    };
    const std::string descr = value_of("descr");
    const std::map<ElementType, std::vector<std::string>> spellings = {
        {ElementType::f32, {"<f4"}}, {ElementType::f64, {"<f8"}}, {ElementType::i32, {"<i4"}},
        {ElementType::u32, {"<u4"}}, {ElementType::i64, {"<i8"}}, {ElementType::u8, {"|u1", "<u1"}},
    };
    const auto& accepted = spellings.at(type);
    if (std::find(accepted.begin(), accepted.end(), descr) == accepted.end()) {
        fail(place, name + " holds elements of dtype '" + descr + "'; the buffer's " + std::string(to_string(type)) +
                        " is '" + accepted.front() + "' (little-endian)");
    }
    const std::string shape = value_of("shape");
    const auto dimensions = npy_shape(shape, refuse);
    const std::string order = value_of("fortran_order");
    if (order != "False" && order != "True") {
        refuse("gives 'fortran_order' as " + order + ", not True or False");
    }
    if (order == "True" && dimensions.size() > 1) {
        fail(place, name + " is in Fortran order; save it in C order (numpy.ascontiguousarray)");
    }
    std::string data = bytes.substr(header_start + header_length);
    std::uint64_t elements = 1;
    for (const auto dimension : dimensions) {
        if (__builtin_mul_overflow(elements, dimension, &elements)) {
            refuse("gives 'shape' as " + shape + ", more elements than 64 bits count");
        }
    }
    const std::size_t size = element_size(type);
    if (data.size() % size != 0 || data.size() / size != elements) {
        fail(place, name + ": its shape " + shape + " is " + std::to_string(elements) + " elements of " +
                        std::string(to_string(type)) + "; its data holds " + std::to_string(data.size()) + " bytes, " +
                        (data.size() % size != 0 ? "not a whole number of elements"
                                                 : std::to_string(data.size() / size) + " elements"));
    }
    return data;
}

Init read_init(const Table& buffer, ElementType type, const fs::path& folder)
{
    Init init;
    const toml::node* node = buffer.get("init");
    const Place place = buffer.at("init");
    if (node == nullptr) {
        return init;
    }
    if (node->is_string()) {
        if (node->as_string()->get() != "iota") {
            fail(place, "unknown init '" + node->as_string()->get() +
                            "'; known: \"iota\", { random = [low, high] }, { constant = value }, { iota = first }, "
                            "{ file = \"raw.bin\" }");
        }
        init.kind = Init::Kind::iota;
        return init;
    }
    const Table table = buffer.table("init", {"random", "constant", "iota", "file"});
    if (table.entries().size() != 1) {
        fail(place, "must name one of random, constant, iota, file");
    }
    if (table.get("random") != nullptr) {
        const toml::array* range = table.get("random")->as_array();
        if (range == nullptr || range->size() != 2) {
            fail(table.at("random"), "must be [low, high]");
        }
        init.kind = Init::Kind::random;
        init.low = Table::number_of((*range)[0], table.at("random"));
        init.high = Table::number_of((*range)[1], table.at("random"));
        if (!std::isfinite(init.low) || !std::isfinite(init.high)) {
            fail(table.at("random"), "[" + to_string(Number(init.low)) + ", " + to_string(Number(init.high)) +
                                         "]: the bounds must be finite numbers");
        }
        if (!(init.low <= init.high)) {
            fail(table.at("random"), "low must not exceed high");
        }
        // The draw is made in double and converted: bounds the type holds give values it holds.
        with_element_type(type, [&]<class T>(std::type_identity<T>) {
            const double lowest = static_cast<double>(std::numeric_limits<T>::lowest());
            const double largest = static_cast<double>(std::numeric_limits<T>::max());
            // An integer type's largest may round up to a power of 2 in a double: 2^63 itself does not fit.
            const bool fits = std::is_floating_point_v<T> ? lowest <= init.low && init.high <= largest
                                                          : lowest <= init.low && init.high < largest + 1;
            if (!fits) {
                const auto bound = [](T value) {
                    return std::is_floating_point_v<T> ? to_string(Number(static_cast<double>(value)))
                                                       : std::to_string(value);
                };
                fail(table.at("random"), "[" + to_string(Number(init.low)) + ", " + to_string(Number(init.high)) +
                                             "]: the bounds must lie within " + std::string(to_string(type)) +
                                             "'s range, [" + bound(std::numeric_limits<T>::lowest()) + ", " +
                                             bound(std::numeric_limits<T>::max()) + "]");
            }
        });
    } else if (table.get("constant") != nullptr) {
        init.kind = Init::Kind::constant;
        init.value = table.number("constant");
    } else if (table.get("iota") != nullptr) {
        init.kind = Init::Kind::iota;
        init.value = table.number("iota");
    } else {
        init.kind = Init::Kind::file;
        const fs::path file = folder / table.string("file");
        init.bytes = read_text(file, table.at("file"), max_init_file_bytes);
        if (file.extension() == ".npy") {
            init.bytes = npy_data(init.bytes, type, file.filename().string(), table.at("file"));
        }
        if (init.bytes.size() % element_size(type) != 0) {
            fail(table.at("file"), std::to_string(init.bytes.size()) + " bytes is not a whole number of " +
                                       std::string(to_string(type)) + " elements");
        }
    }
    return init;
}

BufferDecl read_buffer(const Table& table, const std::string& name, const fs::path& folder,
                       const std::vector<std::string>& names)
{
    BufferDecl buffer;
    buffer.name = name;
    buffer.place = table.place();
    buffer.type = element_type(table.string("type"), table.at("type"));
    buffer.count = table.formula("count", names);
    buffer.init = read_init(table, buffer.type, folder);
    buffer.output = table.boolean_or("output", false);
    const std::string index = table.string_or("index", "");
    if (!index.empty() && index != "item" && index != "group") {
        fail(table.at("index"), "unknown index '" + index +
                                    "'; known: \"item\" (one element per work-item of the domain), \"group\" (one per "
                                    "block of the grid)");
    }
    buffer.index = index == "item"    ? BufferDecl::Index::item
                   : index == "group" ? BufferDecl::Index::group
                                      : buffer.index;
    if (const auto tolerance = table.optional_table("tolerance", {"relative", "ulps", "reason"})) {
        if (!buffer.output) {
            fail(tolerance->place(), "only an output has a tolerance");
        }
        if (tolerance->get("relative") != nullptr) {
            buffer.relative_tolerance = tolerance->number("relative");
            if (!std::isfinite(buffer.relative_tolerance) || buffer.relative_tolerance < 0) {
                fail(tolerance->at("relative"),
                     to_string(Number(buffer.relative_tolerance)) + ": a tolerance must be a finite number, 0 or more");
            }
        }
        if (tolerance->get("ulps") != nullptr) {
            const double ulps = tolerance->number("ulps");
            if (buffer.type != ElementType::f32 && buffer.type != ElementType::f64) {
                fail(tolerance->at("ulps"), "an output of " + std::string(to_string(buffer.type)) +
                                                " has no ulps (they count steps between floating-point values); give "
                                                "its tolerance as relative, |got - want| / max(|want|, 1)");
            }
            // ulps × epsilon is the relative error allowed: past 1 / epsilon it exceeds 1, where a
            // result of the wrong sign, or 0, passes; ulps are for differences in the last digits.
            const double most = 1 / epsilon_of(buffer.type);
            if (!(ulps >= 0 && ulps <= most && ulps == std::floor(ulps))) {
                fail(tolerance->at("ulps"), to_string(Number(ulps)) + ": must be a whole number from 0 to " +
                                                to_string(Number(static_cast<std::int64_t>(most))) + " for " +
                                                std::string(to_string(buffer.type)) +
                                                " (1 / epsilon: more would allow a relative error above 1)");
            }
            buffer.ulps_tolerance = static_cast<std::uint64_t>(ulps);
        }
        buffer.tolerance_reason = tolerance->string_or("reason", "");
    }
    if (buffer.init.kind == Init::Kind::file && buffer.init.bytes.empty()) {
        fail(table.at("init"), "the file is empty");
    }
    return buffer;
}

LaunchDecl read_launch(const Table& table, const std::vector<std::string>& names)
{
    LaunchDecl launch;
    launch.place = table.place();
    launch.grid = table.dimensions("grid", names);
    launch.block = table.dimensions("block", names);
    launch.domain = table.dimensions("domain", names);
    if (launch.block.empty()) {
        table.required_at("block");
    }
    if (launch.grid.empty() && launch.domain.empty()) {
        fail(table.at("grid"), "missing; give the grid, or the domain it is computed from");
    }
    const std::size_t dims = launch.grid.empty() ? launch.domain.size() : launch.grid.size();
    if (launch.block.size() != dims || (!launch.domain.empty() && launch.domain.size() != dims)) {
        fail(table.at("block"), "grid, block and domain must have as many dimensions each");
    }
    launch.args = table.strings("args").value_or(std::vector<std::string>{});
    launch.args_place = table.at("args");
    if (table.get("local_memory") != nullptr) {
        launch.local_memory = table.formula("local_memory", names);
    }
    return launch;
}

void check_arguments(const Manifest& manifest, const std::vector<std::string>& args, const Place& place,
                     const LaunchDecl& launch)
{
    bool local = false;
    for (const auto& arg : args) {
        const bool buffer = std::any_of(manifest.buffers.begin(), manifest.buffers.end(),
                                        [&](const BufferDecl& b) { return b.name == arg; });
        const bool scalar = std::any_of(manifest.scalars.begin(), manifest.scalars.end(),
                                        [&](const ScalarDecl& s) { return s.name == arg; });
        if (arg == "local") {
            if (local) {
                fail(place, "\"local\" is given twice; a launch has at most one dynamic local memory argument");
            }
            if (!launch.local_memory) {
                fail(place, "\"local\" needs launch.local_memory, its size in bytes");
            }
            local = true;
        } else if (!buffer && !scalar) {
            std::vector<std::string> known;
            for (const auto& b : manifest.buffers) {
                known.push_back(b.name);
            }
            for (const auto& s : manifest.scalars) {
                known.push_back(s.name);
            }
            known.emplace_back("\"local\"");
            fail(place, "unknown argument '" + arg + "'; known: " + join(known));
        }
    }
}

/// Every output is named by each argument list that runs: the CUDA kernel's, the OpenCL kernel's
/// and the reference's. What a list leaves out stays as it started, and would be compared as if
/// computed.
void check_outputs_named(const Manifest& manifest)
{
    struct List {
        const std::vector<std::string>& args;
        Place place;
        std::string whose;
    };
    std::vector<List> lists;
    const auto add = [&](const KernelSource& source, const LaunchDecl& launch, const std::string& whose) {
        lists.push_back(
            {source.args ? *source.args : launch.args, source.args ? source.args_place : launch.args_place, whose});
    };
    add(manifest.cuda, manifest.launch, "the CUDA kernel's");
    add(manifest.opencl, manifest.launch, "the OpenCL kernel's");
    const Reference& reference = manifest.reference;
    if (reference.kind == Reference::Kind::kernels) {
        const LaunchDecl& launch = reference.launch ? *reference.launch : manifest.launch;
        add(reference.cuda, launch, "the CUDA reference's");
        add(reference.opencl, launch, "the OpenCL reference's");
    } else if (reference.kind == Reference::Kind::library) {
        lists.push_back({manifest.launch.args, manifest.launch.args_place, "the C reference's"});
    }
    for (const auto& buffer : manifest.buffers) {
        std::vector<std::string> missing;
        for (const auto& list : lists) {
            if (std::find(list.args.begin(), list.args.end(), buffer.name) == list.args.end()) {
                missing.push_back(list.place.field + " (line " + std::to_string(list.place.line) + ", " + list.whose +
                                  ")");
            }
        }
        if (!buffer.output || missing.empty()) {
            continue;
        }
        fail(buffer.place, "'" + buffer.name + "' is an output, but " +
                               (missing.size() == lists.size()
                                    ? "no argument list names it: " + join(missing) +
                                          "; nothing would write it, and its initial values would be compared"
                                    : join(missing) + (missing.size() == 1 ? " does" : " do") +
                                          " not name it: a kernel or reference that does not take it cannot write it"));
    }
}

/// A C reference is loaded only when a run checks against it: what cannot be loaded (a missing
/// file, one that is not an ELF shared object) is refused at load, from its first bytes.
void check_shared_object(const fs::path& path, const Place& place)
{
    std::string head;
    if (const auto problem =
            detail::read_regular_file(path, EI_NIDENT + sizeof(Elf64_Half), head, detail::Oversize::read_head);
        !problem.empty()) {
        fail(place, "cannot read " + path.string() + ": " + problem);
    }
    if (head.size() < EI_NIDENT + 2 || head.compare(0, SELFMAG, ELFMAG) != 0) {
        fail(place, path.string() + " is not a shared library: it does not start as an ELF file does");
    }
    const auto byte = [&](std::size_t i) { return static_cast<unsigned>(static_cast<unsigned char>(head[i])); };
    const unsigned type = head[EI_DATA] == ELFDATA2MSB ? byte(EI_NIDENT) << 8 | byte(EI_NIDENT + 1)
                                                       : byte(EI_NIDENT) | byte(EI_NIDENT + 1) << 8;
    if (type != ET_DYN) {
        fail(place, path.string() + " is an ELF " +
                        (type == ET_EXEC  ? std::string("executable")
                         : type == ET_REL ? std::string("object file")
                                          : "file of type " + std::to_string(type)) +
                        ", not a shared object (build it with -shared)");
    }
}

} // namespace

Manifest read_manifest(const fs::path& path)
{
    Manifest manifest;
    manifest.file = path;
    std::string text;
    if (const auto problem = detail::read_regular_file(path, max_manifest_bytes, text); !problem.empty()) {
        throw InvalidArgument("duet", "manifest", "cannot read " + path.string() + ": " + problem);
    }
    toml::table document;
    try {
        document = toml::parse(text, path.string());
    } catch (const toml::parse_error& error) {
        fail({path, error.source().begin.line, "TOML"}, std::string(error.description()));
    }
    const fs::path folder = path.parent_path();
    const Table root(document, {path, 1, ""},
                     {"name", "description", "parameters", "cuda", "opencl", "buffers", "scalars", "launch", "repeat",
                      "reference", "tests"});
    manifest.info.name = root.string("name");
    if (!is_identifier(manifest.info.name)) {
        fail(root.at("name"), "'" + manifest.info.name + "' is not a name (letters, digits and _)");
    }
    manifest.info.description = root.string_or("description", "a kernel pair from " + path.filename().string());
    manifest.info.variants = {"port"};

    std::vector<std::string> names;
    if (const auto parameters = root.optional_table("parameters", {})) {
        for (const auto& [name, node] : parameters->entries()) {
            if (!is_identifier(name)) {
                fail(parameters->at(name), "a parameter's name must be an identifier");
            }
            manifest.info.parameters.push_back(
                read_parameter(parameters->table(name, {"type", "default", "min", "max", "help"}), name));
            names.push_back(name);
        }
    }
    manifest.cuda = read_source(root.table("cuda", source_fields), Language::cuda, folder, names);
    manifest.opencl = read_source(root.table("opencl", source_fields), Language::opencl, folder, names);

    const Table buffers = root.table("buffers", {});
    for (const auto& [name, node] : buffers.entries()) {
        if (!is_identifier(name) || name == "local") {
            fail(buffers.at(name), "a buffer's name must be an identifier other than local");
        }
        manifest.buffers.push_back(read_buffer(
            buffers.table(name, {"type", "count", "init", "output", "index", "tolerance"}), name, folder, names));
    }
    const auto first_output = std::find_if(manifest.buffers.begin(), manifest.buffers.end(),
                                           [](const BufferDecl& buffer) { return buffer.output; });
    if (first_output == manifest.buffers.end()) {
        fail(buffers.place(), "no buffer is an output (output = true): there is nothing to compare");
    }
    for (const auto& buffer : manifest.buffers) {
        if (buffer.output && buffer.type != first_output->type) {
            fail(buffer.place, "an output of " + std::string(to_string(buffer.type)) + " beside '" +
                                   first_output->name + "' of " + std::string(to_string(first_output->type)) +
                                   ": duet compares a port's outputs as one array of one element type");
        }
    }
    if (const auto scalars = root.optional_table("scalars", {})) {
        for (const auto& [name, node] : scalars->entries()) {
            const Table scalar = scalars->table(name, {"type", "value"});
            if (!is_identifier(name) || name == "local") {
                fail(scalars->at(name), "a scalar's name must be an identifier other than local");
            }
            manifest.scalars.push_back({name, element_type(scalar.string("type"), scalar.at("type")),
                                        scalar.formula("value", names), scalar.place()});
        }
    }
    const Table launch = root.table("launch", {"grid", "block", "domain", "args", "local_memory", "flops"});
    manifest.launch = read_launch(launch, names);
    if (launch.get("flops") != nullptr) {
        manifest.flops = launch.formula("flops", names);
    }
    if (manifest.launch.args.empty() && (!manifest.cuda.args || !manifest.opencl.args)) {
        launch.required_at("args");
    }

    manifest.launches = {Expression("1", names), root.at("repeat")};
    if (const auto repeat = root.optional_table("repeat", {"count", "swap"})) {
        manifest.launches = repeat->formula("count", names);
        if (const auto swap = repeat->strings("swap")) {
            const auto known = [&](const std::string& name) {
                return std::find_if(manifest.buffers.begin(), manifest.buffers.end(),
                                    [&](const BufferDecl& b) { return b.name == name; });
            };
            if (swap->size() != 2 || (*swap)[0] == (*swap)[1] || known((*swap)[0]) == manifest.buffers.end() ||
                known((*swap)[1]) == manifest.buffers.end()) {
                fail(repeat->at("swap"), "must name two different buffers");
            }
            if (known((*swap)[0])->type != known((*swap)[1])->type) {
                fail(repeat->at("swap"), "the two buffers must hold the same element type");
            }
            manifest.swap.emplace((*swap)[0], (*swap)[1]);
        }
    }

    manifest.info.has_reference = root.get("reference") != nullptr;
    if (const auto reference = root.optional_table("reference", {"cuda", "opencl", "launch", "library", "function"})) {
        Reference& ref = manifest.reference;
        ref.place = reference->place();
        if (reference->get("library") != nullptr) {
            ref.kind = Reference::Kind::library;
            // "./" where the manifest is in the working directory: dlopen searches the system's
            // library path for a bare name.
            ref.library = (folder.empty() ? fs::path(".") : folder) / reference->string("library");
            check_shared_object(ref.library, reference->at("library"));
            ref.function = reference->string("function");
        } else {
            ref.kind = Reference::Kind::kernels;
            manifest.info.reference = "the reference kernels";
            ref.cuda = read_source(reference->table("cuda", source_fields), Language::cuda, folder, names);
            ref.opencl = read_source(reference->table("opencl", source_fields), Language::opencl, folder, names);
            if (reference->get("launch") != nullptr) {
                ref.launch =
                    read_launch(reference->table("launch", {"grid", "block", "domain", "args", "local_memory"}), names);
                if (ref.launch->args.empty()) {
                    ref.launch->args = manifest.launch.args;
                }
            }
        }
    }

    for (const auto* source : {&manifest.cuda, &manifest.opencl}) {
        check_arguments(manifest, source->args.value_or(manifest.launch.args),
                        source->args ? source->args_place : manifest.launch.args_place, manifest.launch);
    }
    check_interfaces(manifest, manifest.cuda, manifest.opencl, manifest.launch);
    if (manifest.reference.kind == Reference::Kind::kernels) {
        const LaunchDecl& ref_launch = manifest.reference.launch ? *manifest.reference.launch : manifest.launch;
        check_interfaces(manifest, manifest.reference.cuda, manifest.reference.opencl, ref_launch);
    }
    check_outputs_named(manifest);

    // The declared test cases, else the defaults alone.
    if (const toml::node* tests = root.get("tests")) {
        const toml::array* cases = tests->as_array();
        if (cases == nullptr) {
            fail(root.at("tests"), "must be an array of tables of parameter values, e.g. [{ n = 1 }, { n = 1000 }]");
        }
        for (const auto& item : *cases) {
            const Place place{path, item.source().begin.line, "tests"};
            if (!item.is_table()) {
                fail(place, "each test case must be a table of parameter values");
            }
            std::map<std::string, std::string> values;
            for (const auto& [name, value] : Table(*item.as_table(), place, names).entries()) {
                values[name] = value->is_integer() ? std::to_string(value->as_integer()->get())
                                                   : to_string(Number(Table::number_of(*value, place)));
            }
            manifest.info.test_cases.push_back(std::move(values));
        }
    }
    if (manifest.info.test_cases.empty()) {
        manifest.info.test_cases.push_back({});
    }
    return manifest;
}

std::map<std::string, Number> parameter_values(const Manifest& manifest, const Settings& settings)
{
    std::map<std::string, Number> values;
    for (const auto& parameter : manifest.info.parameters) {
        if (parameter.type == WorkloadParameter::Type::integer) {
            values[parameter.name] = settings.integer(parameter.name);
        } else {
            values[parameter.name] = settings.real(parameter.name);
        }
    }
    return values;
}

} // namespace duet::workload::port

namespace duet::workload {

std::string labelled_source(const std::filesystem::path& shown, std::string_view text)
{
    std::string name;
    for (const char c : shown.string()) {
        name += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    }
    return "#line 1 \"" + name + "\"\n" + std::string(text);
}

bool is_manifest(const std::filesystem::path& path)
{
    const std::string name = path.filename().string();
    return name.size() > std::strlen(manifest_suffix) && name.ends_with(manifest_suffix);
}

std::shared_ptr<const Workload> load_manifest(const std::filesystem::path& path)
{
    return port::make_port_workload(port::read_manifest(path));
}

WorkloadLoader manifest_loader()
{
    return {.suffix = manifest_suffix, .files = "manifests", .load = load_manifest};
}

} // namespace duet::workload
