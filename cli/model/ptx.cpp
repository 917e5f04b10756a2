// PTX read as words and statements, enough of it to list a module's kernels and count what each
// body holds. The grammar followed is the PTX ISA's (NVIDIA, "Parallel Thread Execution ISA",
// sections "Syntax" and "Directives"): a module of directives, kernels (.entry) and functions (.func)
// whose bodies hold labels, directives and instructions, each ended by ';' except the line-bound
// .version, .target, .address_size, .file and .loc.
#include "model/ptx.hpp"

#include <duet/detail/c_tokens.hpp>
#include <duet/error.hpp>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <utility>

namespace duet::cli {

namespace {

constexpr const char* error_call = "PTX";

// A word of PTX: tokens written without space between them ("ld.global.nc.v4.f32", "%rd1+16",
// "shared::cta", "$L__BB0_2"), apart from the punctuation that separates operands and statements.
struct Word {
    std::string_view text;
    std::size_t line = 1;
};

bool separates(std::string_view token)
{
    return token.size() == 1 && std::string_view(",;{}()[]:").find(token.front()) != std::string_view::npos;
}

// PTX is lexically close enough to C for the one tokenizer: comments and lines are C's, and
// C's punctuation is PTX's.
std::vector<Word> ptx_words(std::string_view ptx)
{
    const auto tokens = detail::c_tokens(ptx);
    const auto adjacent = [&](std::size_t a, std::size_t b) {
        return tokens[a].offset + tokens[a].text.size() == tokens[b].offset;
    };
    std::vector<Word> words;
    bool joins_previous = false;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string_view text = tokens[i].text;
        // The colons of "shared::cta" belong to the word; a label's one colon ends it.
        const bool double_colon =
            text == ":" && ((i + 1 < tokens.size() && tokens[i + 1].text == ":" && adjacent(i, i + 1)) ||
                            (i > 0 && tokens[i - 1].text == ":" && adjacent(i - 1, i)));
        const bool joins = double_colon || !separates(text);
        if (joins && joins_previous && adjacent(i - 1, i)) {
            const std::size_t start = static_cast<std::size_t>(words.back().text.data() - ptx.data());
            words.back().text = ptx.substr(start, tokens[i].offset + text.size() - start);
        } else {
            words.push_back({text, tokens[i].line});
        }
        joins_previous = joins;
    }
    return words;
}

struct Instruction {
    std::string_view opcode;
    bool guarded = false;    // under a predicate: "@%p1 bra"
    std::string_view callee; // of a call: a function's name, or the register of a call through a pointer
    bool table_load = false; // a global load from one of the module's own .global arrays
};

struct Function {
    std::string_view name;
    bool entry = false;
    bool defined = false;
    std::vector<Instruction> body;
};

[[noreturn]] void not_ptx(std::size_t line, const std::string& problem)
{
    throw InvalidArgument("duet", error_call, "line " + std::to_string(line) + ": " + problem);
}

std::string quoted(std::string_view text)
{
    return "'" + std::string(text) + "'";
}

class Parser {
public:
    explicit Parser(std::string_view ptx) : words_(ptx_words(ptx)) {}

    std::vector<Function> module()
    {
        if (words_.empty()) {
            throw InvalidArgument("duet", error_call, "the text holds no PTX: a PTX module begins with .version");
        }
        if (words_.front().text != ".version") {
            not_ptx(words_.front().line, quoted(words_.front().text) + " where a PTX module begins with .version");
        }
        while (i_ < words_.size()) {
            const std::string_view word = words_[i_].text;
            if (word == ".version" || word == ".target" || word == ".address_size" || word == ".file" ||
                word == ".loc") {
                skip_line();
            } else if (word == ".visible" || word == ".extern" || word == ".weak" || word == ".common") {
                ++i_;
            } else if (word == ".entry" || word == ".func") {
                function();
            } else if (word == ".section") { // debugging information: .section .debug_info { ... }
                while (i_ < words_.size() && !at("{")) {
                    ++i_;
                }
                skip_bracket();
            } else if (word.starts_with('.')) { // .global, .const, .shared, .pragma: variables and hints
                if (word == ".global") {
                    note_table();
                }
                skip_statement();
            } else {
                not_ptx(words_[i_].line,
                        quoted(word) + " is not a PTX directive (a module holds .entry, .func, .global, ...)");
            }
        }
        return std::move(functions_);
    }

private:
    bool at(std::string_view text) const { return i_ < words_.size() && words_[i_].text == text; }

    void skip_line()
    {
        const std::size_t line = words_[i_].line;
        while (i_ < words_.size() && words_[i_].line == line) {
            ++i_;
        }
    }

    // A directive ends at its ';', or at the close of its braced block where no ';' follows it: a
    // variable's initializer "= {1, 2};" is inside the statement, NVIDIA OpenCL's
    // ".metadata_section ... { ... }" is the whole of one.
    void skip_statement()
    {
        const Word& start = words_[i_];
        int depth = 0;
        for (; i_ < words_.size() && (depth > 0 || !at(";")); ++i_) {
            depth += at("{") ? 1 : at("}") ? -1 : 0;
            if (depth == 0 && at("}") && !(i_ + 1 < words_.size() && words_[i_ + 1].text == ";")) {
                ++i_;
                return;
            }
        }
        if (i_ == words_.size()) {
            not_ptx(start.line, quoted(start.text) + " has no closing ';'");
        }
        ++i_;
    }

    // A module's .global variable ("__cudart_sin_cos_coeffs[128] = {...}": the tables CUDA's math
    // library compiles into a kernel that calls sin or cos): its name, the first word of the
    // statement that is neither a directive, a number nor punctuation.
    void note_table()
    {
        for (std::size_t j = i_ + 1; j < words_.size() && words_[j].text != ";" && words_[j].text != "="; ++j) {
            const char first = words_[j].text.front();
            if (std::isalpha(static_cast<unsigned char>(first)) != 0 || first == '_' || first == '$') {
                tables_.insert(words_[j].text);
                return;
            }
        }
    }

    void skip_bracket()
    {
        const Word& open = words_[std::min(i_, words_.size() - 1)];
        int depth = 0;
        do {
            if (i_ == words_.size()) {
                not_ptx(open.line, "the " + quoted(open.text) + " opened here never closes");
            }
            const std::string_view t = words_[i_].text;
            depth += (t == "(" || t == "[" || t == "{") ? 1 : (t == ")" || t == "]" || t == "}") ? -1 : 0;
            ++i_;
        } while (depth > 0);
    }

    Function& named(std::string_view name)
    {
        const auto known =
            std::find_if(functions_.begin(), functions_.end(), [&](const Function& f) { return f.name == name; });
        if (known != functions_.end()) {
            return *known;
        }
        Function function;
        function.name = name;
        return functions_.emplace_back(std::move(function));
    }

    // .entry name (params) [performance directives] { body }, or .func [(returns)] name [(params)]
    // followed by a body or by ';' where it is only declared.
    void function()
    {
        const Word& directive = words_[i_++];
        if (at("(")) {
            skip_bracket();
        }
        if (i_ == words_.size() || separates(words_[i_].text) || words_[i_].text.starts_with('.')) {
            not_ptx(directive.line, std::string(directive.text) + " names no function");
        }
        Function& function = named(words_[i_++].text);
        function.entry = directive.text == ".entry";
        if (at("(")) {
            skip_bracket();
        }
        while (i_ < words_.size() && !at("{") && !at(";")) { // .maxntid 256, 1, 1 and the like
            ++i_;
        }
        if (i_ == words_.size()) {
            not_ptx(directive.line, std::string(directive.text) + " " + std::string(function.name) +
                                        " has neither a body nor a closing ';'");
        }
        if (at(";")) {
            ++i_;
            return;
        }
        function.defined = true;
        function.body = body(function.name);
    }

    std::vector<Instruction> body(std::string_view name)
    {
        const std::size_t open_line = words_[i_++].line;
        std::vector<Instruction> instructions;
        addresses_.clear(); // registers are the function's own
        for (int depth = 1; depth > 0;) {
            if (i_ == words_.size()) {
                not_ptx(open_line, "the body of " + std::string(name) + " opened here never closes");
            }
            const std::string_view word = words_[i_].text;
            if (word == "{" || word == "}") { // a scope within the body, such as a call's
                depth += word == "{" ? 1 : -1;
                ++i_;
            } else if (word == ";") {
                ++i_;
            } else if (word == ".loc" || word == ".file") {
                skip_line();
            } else if (word.starts_with('.')) { // .reg, .local, .shared, .param, .pragma
                skip_statement();
            } else if (i_ + 1 < words_.size() && words_[i_ + 1].text == ":") {
                i_ += 2; // a label
            } else {
                instructions.push_back(instruction());
            }
        }
        return instructions;
    }

    Instruction instruction()
    {
        Instruction instruction;
        if (words_[i_].text.starts_with('@')) {
            instruction.guarded = true;
            ++i_;
        }
        if (i_ == words_.size()) {
            not_ptx(words_.back().line, "a predicate guards no instruction");
        }
        const Word& opcode = words_[i_++];
        const bool opcode_like =
            std::islower(static_cast<unsigned char>(opcode.text.front())) != 0 &&
            std::all_of(opcode.text.begin(), opcode.text.end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == ':';
            });
        if (!opcode_like) {
            not_ptx(opcode.line, quoted(opcode.text) + " is not a PTX instruction");
        }
        instruction.opcode = opcode.text;
        const std::size_t operands = i_;
        while (i_ < words_.size() && !at(";")) {
            ++i_;
        }
        if (i_ == words_.size()) {
            not_ptx(opcode.line, "the instruction " + quoted(opcode.text) + " has no closing ';'");
        }
        if (opcode.text == "call" || opcode.text.starts_with("call.")) {
            instruction.callee = callee(operands, i_);
        }
        follow_tables(instruction, operands, i_);
        ++i_;
        return instruction;
    }

    // A register that holds an address into one of the module's tables: set from the table's name
    // (mov, cvta) or computed from such a register (add, mad, ...). A global load through one (or
    // from the name itself) is the table's, not one of the kernel's inputs.
    void follow_tables(Instruction& instruction, std::size_t first, std::size_t end)
    {
        const auto of_table = [&](std::string_view word) {
            word = word.substr(0, word.find('+'));
            return tables_.contains(word) || addresses_.contains(word);
        };
        const std::string_view opcode = instruction.opcode;
        if (opcode.starts_with("ld.") || opcode.starts_with("ldu.")) {
            for (std::size_t j = first; j + 1 < end; ++j) {
                if (words_[j].text == "[") {
                    instruction.table_load =
                        opcode.find(".global") != std::string_view::npos && of_table(words_[j + 1].text);
                    return;
                }
            }
            return;
        }
        if (opcode.starts_with("st.") || opcode.starts_with("call") || first >= end) {
            return;
        }
        for (std::size_t j = first + 1; j < end; ++j) {
            if (of_table(words_[j].text)) {
                addresses_.insert(words_[first].text);
                return;
            }
        }
    }

    // call [(returns),] target, [(arguments)][, prototype];
    std::string_view callee(std::size_t first, std::size_t end)
    {
        std::size_t j = first;
        if (j < end && words_[j].text == "(") {
            while (j < end && words_[j].text != ")") {
                ++j;
            }
            j += 2; // past ')' and ','
        }
        return j < end ? words_[j].text : std::string_view();
    }

    std::vector<Word> words_;
    std::size_t i_ = 0;
    std::vector<Function> functions_;
    std::set<std::string_view> tables_;    ///< the module's .global variables
    std::set<std::string_view> addresses_; ///< the current body's registers that point into them
};

// ---- Classification ------------------------------------------------------------------------------

// Each group has a rank that fixes its place in the list: memory, floating point by type,
// integer, conversions, synchronisation, control flow, data movement, other.
struct Group {
    int rank = 0;
    std::string name;
    auto operator<=>(const Group&) const = default;
};

struct Opcode {
    std::vector<std::string_view> parts; // "ld.global.nc.v4.f32": ld, global, nc, v4, f32

    explicit Opcode(std::string_view text)
    {
        for (std::size_t start = 0;;) {
            const std::size_t dot = text.find('.', start);
            parts.push_back(text.substr(start, dot - start));
            if (dot == std::string_view::npos) {
                break;
            }
            start = dot + 1;
        }
    }
    std::string_view base() const { return parts.front(); }
    bool has(std::string_view part) const { return std::find(parts.begin(), parts.end(), part) != parts.end(); }
    // A state space, also with its sub-space: "shared" finds "shared::cta".
    bool in_space(std::string_view space) const
    {
        return std::any_of(parts.begin() + 1, parts.end(), [&](std::string_view p) {
            return p == space || (p.starts_with(space) && p.substr(space.size()).starts_with("::"));
        });
    }
};

bool is_float_type(std::string_view part)
{
    return part == "f16" || part == "f16x2" || part == "bf16" || part == "bf16x2" || part == "f32" || part == "f64";
}

// The bits of a PTX type ("u32" 32, "v4" is not a type); 0 for a part that is no type.
int type_bits(std::string_view part)
{
    if (part == "f16x2" || part == "bf16x2") {
        return 32;
    }
    if (part == "bf16") {
        return 16;
    }
    if (part.size() < 2 || std::string_view("subf").find(part.front()) == std::string_view::npos) {
        return 0;
    }
    const std::string_view digits = part.substr(1);
    for (const int bits : {8, 16, 32, 64, 128}) {
        if (digits == std::to_string(bits)) {
            return bits;
        }
    }
    return 0;
}

// The types an opcode names, in order: cvt.rn.f32.s32 gives f32 then s32.
std::vector<std::string_view> types_of(const Opcode& op)
{
    std::vector<std::string_view> types;
    std::copy_if(op.parts.begin() + 1, op.parts.end(), std::back_inserter(types),
                 [](std::string_view p) { return type_bits(p) > 0 || is_float_type(p); });
    return types;
}

// f16 and bf16 share a column: what matters is that they are narrower than f32.
std::string float_label(std::string_view type)
{
    return type == "f32" || type == "f64" ? std::string(type) : "f16/bf16";
}

int float_rank(std::string_view type)
{
    return type == "f32" ? 0 : type == "f64" ? 1 : 2;
}

// The bits one load or store moves: its type's times its vector length.
int access_bits(const Opcode& op)
{
    const auto types = types_of(op);
    const int bits = types.empty() ? 0 : type_bits(types.back());
    const int lanes = op.has("v8") ? 8 : op.has("v4") ? 4 : op.has("v2") ? 2 : 1;
    return bits * lanes;
}

int width_rank(int bits)
{
    int rank = 0;
    for (int b = 8; b < bits; b *= 2) {
        ++rank;
    }
    return rank;
}

// The precision part of a divide, square root or reciprocal: "rn", "full", "approx", "rz".
std::string_view precision_of(const Opcode& op)
{
    for (const std::string_view mode : {"rn", "rz", "rm", "rp", "full", "approx"}) {
        if (op.has(mode)) {
            return mode;
        }
    }
    return "";
}

// Correctly rounded first, then the approximations from the more to the less accurate.
int precision_rank(std::string_view mode)
{
    return mode == "rn" ? 0 : mode == "full" ? 1 : mode == "approx" ? 2 : 3;
}

constexpr int rank_memory = 100;
constexpr int rank_float = 400;
constexpr int rank_integer = 500;
constexpr int rank_convert = 600;
constexpr int rank_sync = 700;
constexpr int rank_control = 800;
constexpr int rank_other = 900;

const std::set<std::string_view> integer_bases = {
    "add",   "sub",  "mul",  "mad", "mul24", "mad24", "sad",   "abs",  "neg",  "min",  "max", "popc", "clz",
    "bfind", "fns",  "brev", "bfe", "bfi",   "bmsk",  "szext", "dp4a", "dp2a", "and",  "or",  "xor",  "not",
    "cnot",  "lop3", "shf",  "shl", "shr",   "prmt",  "setp",  "set",  "addc", "subc", "madc"};

const std::set<std::string_view> other_float_bases = {"min", "max", "abs", "neg", "setp", "set", "copysign", "testp"};

Group memory_group(const Opcode& op)
{
    const std::string_view base = op.base();
    const bool load = base == "ld" || base == "ldu";
    if (op.in_space("global")) {
        const int bits = access_bits(op);
        const bool read_only = load && op.has("nc");
        return {rank_memory + (load ? 0 : 20) + (read_only ? 10 : 0) + width_rank(bits),
                std::string(load ? "global load " : "global store ") + std::to_string(bits) + "-bit" +
                    (read_only ? " .nc" : "")};
    }
    const auto space = [&](int rank, const std::string& what) {
        return Group{rank_memory + rank, what + (load ? " load" : " store")};
    };
    if (op.in_space("shared")) {
        return space(40 + (load ? 0 : 1), "shared");
    }
    if (op.in_space("local")) {
        return space(42 + (load ? 0 : 1), "local");
    }
    if (op.in_space("const")) {
        return space(44, "constant");
    }
    if (op.in_space("param")) {
        return space(46 + (load ? 0 : 1), "parameter");
    }
    return space(30 + (load ? 0 : 1), "generic"); // an address whose space the compiler did not know
}

Group float_group(const Opcode& op, std::string_view type)
{
    const std::string_view base = op.base();
    const int rank = rank_float + float_rank(type) * 20;
    const std::string label = float_label(type);
    const std::string mode(precision_of(op));
    if (base == "fma" || base == "mad") {
        return {rank, "FMA " + label};
    }
    if (base == "mul") {
        return {rank + 1, "multiply " + label};
    }
    if (base == "add" || base == "sub") {
        return {rank + 2, "add/sub " + label};
    }
    if (base == "div") {
        return {rank + 3 + precision_rank(mode), "divide " + label + " (div." + mode + ")"};
    }
    if (base == "sqrt") {
        return {rank + 7 + precision_rank(mode), "square root " + label + " (sqrt." + mode + ")"};
    }
    if (base == "rsqrt") {
        return {rank + 11, "reciprocal square root " + label + " (rsqrt.approx)"};
    }
    if (base == "rcp") {
        return {rank + 12 + precision_rank(mode), "reciprocal " + label + " (rcp." + mode + ")"};
    }
    if (base == "sin" || base == "cos" || base == "ex2" || base == "lg2" || base == "tanh") {
        return {rank + 16, "special function " + label + " (sin, cos, ex2, lg2, tanh)"};
    }
    return {rank + 17, "other float " + label + " (compare, min, max, abs, neg)"};
}

Group conversion_group(const Opcode& op)
{
    const auto types = types_of(op);
    const auto floats = std::count_if(types.begin(), types.end(), is_float_type);
    if (types.size() == 2 && floats == 2 && types[0] != types[1] && (types[0] == "f64" || types[1] == "f64") &&
        (types[0] == "f32" || types[1] == "f32")) {
        return {rank_convert, "convert f32<->f64"};
    }
    if (types.size() == 2 && floats == 1) {
        return {rank_convert + 1, "convert float<->int"};
    }
    return {rank_convert + 2, "convert other (integer widths, f16, rounding)"};
}

Group classify(const Instruction& instruction)
{
    const Opcode op(instruction.opcode);
    const std::string_view base = op.base();
    const auto types = types_of(op);
    const std::string_view type = types.empty() ? std::string_view() : types.back();

    if (instruction.table_load) {
        return {rank_memory + 48, "table load (a .global array of the program, such as a math library's constants)"};
    }
    if (base == "ld" || base == "ldu" || base == "st") {
        return memory_group(op);
    }
    if (base == "atom" || base == "red") {
        const std::string what = base == "atom" ? "atomic (atom)" : "reduction (red)";
        const int rank = rank_memory + 60 + (base == "atom" ? 0 : 3);
        if (op.in_space("global")) {
            return {rank, "global " + what};
        }
        if (op.in_space("shared")) {
            return {rank + 1, "shared " + what};
        }
        return {rank + 2, what};
    }
    if (base == "cp") {
        return {rank_memory + 70, "asynchronous copy (cp.async)"};
    }
    if (base == "tex" || base == "tld4" || base == "txq" || base == "suld" || base == "sust" || base == "sured" ||
        base == "suq") {
        return {rank_memory + 71, "texture and surface"};
    }
    if (base == "mma" || base == "wmma" || base == "wgmma" || base == "ldmatrix" || base == "stmatrix") {
        return {rank_memory + 72, "tensor core (mma, wmma, wgmma)"};
    }
    if (base == "cvt") {
        return conversion_group(op);
    }
    if ((base == "div" || base == "rem") && !is_float_type(type)) {
        return {rank_integer, "integer divide/remainder"};
    }
    if (is_float_type(type) && (integer_bases.contains(base) || other_float_bases.contains(base) || base == "fma" ||
                                base == "div" || base == "sqrt" || base == "rsqrt" || base == "rcp" || base == "sin" ||
                                base == "cos" || base == "ex2" || base == "lg2" || base == "tanh")) {
        return float_group(op, type);
    }
    if (integer_bases.contains(base)) {
        return {rank_integer + 1, "integer arithmetic and logic"};
    }
    if (base == "bar" || base == "barrier") {
        return op.has("warp") ? Group{rank_sync + 1, "warp barrier (bar.warp.sync)"}
                              : Group{rank_sync, "block barrier (bar.sync, barrier.sync)"};
    }
    if (base == "membar" || base == "fence") {
        return {rank_sync + 2, "memory fence (membar, fence)"};
    }
    if (base == "bra" || base == "brx") {
        return instruction.guarded ? Group{rank_control + 1, "conditional branch (@p bra)"}
                                   : Group{rank_control, "branch (bra)"};
    }
    if (base == "call") {
        return {rank_control + 2, "call"};
    }
    if (base == "ret" || base == "exit") {
        return {rank_control + 3, "return/exit"};
    }
    if (base == "shfl" || base == "vote" || base == "match" || base == "redux" || base == "activemask") {
        return {rank_control + 4, "warp shuffle/vote (shfl, vote)"};
    }
    if (base == "mov" || base == "selp" || base == "slct" || base == "cvta") {
        return {rank_other, "move/select (mov, selp, cvta)"};
    }
    return {rank_other + 1, "other"};
}

} // namespace

std::uint64_t InstructionMix::count(std::string_view name) const
{
    const auto group = std::find_if(groups.begin(), groups.end(), [&](const MixGroup& g) { return g.name == name; });
    return group == groups.end() ? 0 : group->count;
}

std::vector<std::string> ptx_entries(std::string_view ptx)
{
    std::vector<std::string> entries;
    for (const Function& function : Parser(ptx).module()) {
        if (function.entry && function.defined) {
            entries.emplace_back(function.name);
        }
    }
    return entries;
}

namespace {

/// The mix of `kernel` among a module's `functions`, the .funcs it calls counted with it.
InstructionMix mix_in_module(const std::vector<Function>& functions, const Function& kernel)
{
    const auto find = [&](std::string_view name) {
        return std::find_if(functions.begin(), functions.end(), [&](const Function& f) { return f.name == name; });
    };
    InstructionMix mix;
    mix.entry = std::string(kernel.name);
    std::map<Group, std::uint64_t> counts;
    std::vector<const Function*> pending = {&kernel};
    std::set<std::string_view> seen = {kernel.name};
    while (!pending.empty()) {
        const Function* function = pending.back();
        pending.pop_back();
        for (const Instruction& instruction : function->body) {
            ++counts[classify(instruction)];
            ++mix.total;
            if (instruction.callee.empty() || !seen.insert(instruction.callee).second) {
                continue;
            }
            const auto callee = find(instruction.callee);
            if (callee != functions.end() && callee->defined) {
                mix.functions.emplace_back(callee->name);
                pending.push_back(&*callee);
            } else {
                mix.unresolved.emplace_back(instruction.callee);
            }
        }
    }
    for (const auto& [group, count] : counts) {
        mix.groups.push_back({group.name, count});
    }
    return mix;
}

} // namespace

InstructionMix mix_of(std::string_view ptx, std::string_view entry)
{
    const std::vector<Function> functions = Parser(ptx).module();
    const auto kernel =
        std::find_if(functions.begin(), functions.end(), [&](const Function& f) { return f.name == entry; });
    if (kernel == functions.end() || !kernel->entry || !kernel->defined) {
        std::string known;
        for (const Function& function : functions) {
            if (function.entry && function.defined) {
                known += (known.empty() ? "" : ", ") + std::string(function.name);
            }
        }
        throw NotFound("duet", error_call,
                       "no .entry " + quoted(entry) + " in the PTX; " +
                           (known.empty() ? std::string("it defines no .entry") : "its entries: " + known));
    }
    return mix_in_module(functions, *kernel);
}

std::vector<InstructionMix> entry_mixes(std::string_view ptx)
{
    const std::vector<Function> functions = Parser(ptx).module();
    std::vector<InstructionMix> mixes;
    for (const Function& function : functions) {
        if (function.entry && function.defined) {
            mixes.push_back(mix_in_module(functions, function));
        }
    }
    return mixes;
}

// ---- Differences -------------------------------------------------------------------------------

namespace {

template <class Predicate> std::uint64_t sum(const InstructionMix& mix, Predicate&& counts)
{
    std::uint64_t total = 0;
    for (const MixGroup& group : mix.groups) {
        total += counts(group.name) ? group.count : 0;
    }
    return total;
}

std::uint64_t widest(const InstructionMix& mix, std::string_view prefix)
{
    std::uint64_t bits = 0;
    for (const MixGroup& group : mix.groups) {
        if (group.name.starts_with(prefix)) {
            bits = std::max<std::uint64_t>(bits, std::stoull(group.name.substr(prefix.size())));
        }
    }
    return bits;
}

bool starts_with_any(std::string_view name, std::initializer_list<std::string_view> prefixes)
{
    return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return name.starts_with(p); });
}

// Which API has more of something, for a sentence: "CUDA (4) ... OpenCL (0)".
struct Sides {
    std::string more;
    std::uint64_t more_count;
    std::string fewer;
    std::uint64_t fewer_count;
};

Sides sides(std::uint64_t cuda, std::uint64_t opencl)
{
    return cuda >= opencl ? Sides{"CUDA", cuda, "OpenCL", opencl} : Sides{"OpenCL", opencl, "CUDA", cuda};
}

} // namespace

// The options named below are spelled as the CUDA 13 NVRTC documentation lists them (nvrtc.h,
// "Supported Compile Options": --fmad, --prec-div, --prec-sqrt, --use_fast_math, --maxrregcount), as
// the OpenCL specification's clBuildProgram options do (-cl-mad-enable, -cl-fast-relaxed-math,
// -cl-fp32-correctly-rounded-divide-sqrt, -cl-single-precision-constant) and as NVIDIA's
// cl_nv_compiler_options extension does (-cl-nv-maxrregcount).
std::vector<MixDifference> compare_mixes(const InstructionMix& cuda, const InstructionMix& opencl)
{
    std::vector<MixDifference> differences;
    const auto differ = [&](std::uint64_t c, std::uint64_t o, std::string aspect, std::string counted,
                            const std::function<std::string(const Sides&)>& hypothesis, std::string test) {
        differences.push_back({std::move(aspect), c, o, std::move(counted), hypothesis(sides(c, o)), std::move(test)});
    };
    const auto both = [&](auto&& predicate) { return std::pair{sum(cuda, predicate), sum(opencl, predicate)}; };
    // Most aspects are one count on each side, flagged wherever the two differ.
    const auto differ_in_count = [&](auto&& predicate, std::string aspect, std::string counted,
                                     const std::function<std::string(const Sides&)>& hypothesis, std::string test) {
        const auto [c, o] = both(predicate);
        if (c != o) {
            differ(c, o, std::move(aspect), std::move(counted), hypothesis, std::move(test));
        }
    };
    const auto n = [](std::uint64_t count) { return std::to_string(count); };

    const auto [fma_c, fma_o] = both([](std::string_view name) { return name.starts_with("FMA "); });
    const auto [separate_c, separate_o] = both([](std::string_view name) {
        return starts_with_any(name, {"multiply ", "add/sub "});
    });
    if (fma_c != fma_o && (fma_c > fma_o) == (separate_c < separate_o)) {
        const std::uint64_t separate = fma_c > fma_o ? separate_o : separate_c;
        differ(
            fma_c, fma_o, "FMA contraction", "FMA instructions (fma, mad on floats)",
            [&](const Sides& s) {
                return s.more + " fuses multiplies and adds (" + n(s.more_count) + " FMA instructions) where " +
                       s.fewer + " has " + n(s.fewer_count) + " FMAs and " + n(separate) +
                       " separate multiplies and adds: contraction is on for " + s.more + " only";
            },
            "OpenCL: build with -cl-mad-enable (or -cl-fast-relaxed-math), or write fma() in the kernel; "
            "CUDA: NVRTC contracts by default (--fmad=true), --fmad=false turns it off");
    }

    differ_in_count(
        [](std::string_view name) {
            return starts_with_any(name, {"divide ", "square root ", "reciprocal "}) &&
                   (name.ends_with(".full)") || name.ends_with(".approx)"));
        },
        "division and square root precision",
        "approximate divides, square roots and reciprocals (div.full, div.approx, sqrt.approx, rcp.approx, "
        "rsqrt.approx)",
        [&](const Sides& s) {
            return s.more + " divides or takes square roots approximately (" + n(s.more_count) +
                   " instructions) where " + s.fewer +
                   " rounds correctly (div.rn, sqrt.rn): the two builds ask for different precision";
        },
        "OpenCL: -cl-fp32-correctly-rounded-divide-sqrt rounds / and sqrt correctly, native_divide or half_divide "
        "asks for the fast one; CUDA: -prec-div=false -prec-sqrt=false (or -use_fast_math) ask for the fast ones");

    differ_in_count([](std::string_view name) { return name.starts_with("global load ") && name.ends_with(".nc"); },
                    "read-only loads", "global loads through the read-only cache (ld.global.nc)",
                    [&](const Sides& s) {
                        return s.more + " reads " + n(s.more_count) + " global loads through the read-only cache, " +
                               s.fewer + " " + n(s.fewer_count) +
                               ": its compiler could prove those inputs unaliased and unchanged only there";
                    },
                    "CUDA: declare the inputs const __restrict__ (or read them with __ldg()); OpenCL: declare them "
                    "const restrict, or __constant where they are small");

    differ_in_count([](std::string_view name) { return name.starts_with("table load "); }, "library tables",
                    "loads from the program's own .global arrays",
                    [&](const Sides& s) {
                        return s.more + " reads " + n(s.more_count) + " times from tables compiled into its " +
                               "program (a math library's constants, or the kernel's own __device__ arrays), " +
                               s.fewer + " " + n(s.fewer_count) +
                               ": the two APIs' math libraries implement functions such as sin and cos differently, "
                               "or the tables live in other memory (__constant)";
                    },
                    "time the function alone through both APIs (a kernel of sin or cos over the same inputs); "
                    "the fast forms (CUDA: -use_fast_math, __sinf; OpenCL: -cl-fast-relaxed-math, native_sin) "
                    "trade accuracy for speed on both sides");

    for (const std::string what : {"load", "store"}) {
        const std::uint64_t bits_c = widest(cuda, "global " + what + " ");
        const std::uint64_t bits_o = widest(opencl, "global " + what + " ");
        if (bits_c != bits_o && bits_c > 0 && bits_o > 0) {
            differ(
                bits_c, bits_o, "global " + what + " width", "bits of the widest global " + what,
                [&](const Sides& s) {
                    return s.more + " moves up to " + n(s.more_count) + " bits per global " + what + ", " + s.fewer +
                           " at most " + n(s.fewer_count) +
                           ": vector accesses on one side, so fewer and wider memory transactions";
                },
                "use float4 (CUDA) or float4 and vload4/vstore4 (OpenCL) on the narrower side, and check the "
                "pointers' alignment: compilers widen only accesses they know to be aligned");
        }
    }

    const auto [f64_c, f64_o] = both([](std::string_view name) {
        return name.find(" f64") != std::string_view::npos || name == "convert f32<->f64";
    });
    const auto [widen_c, widen_o] = both([](std::string_view name) { return name == "convert f32<->f64"; });
    if ((f64_c == 0) != (f64_o == 0) || widen_c != widen_o) {
        const std::uint64_t widen = f64_c >= f64_o ? widen_c : widen_o;
        differ(
            f64_c, f64_o, "double precision", "f64 arithmetic and f32<->f64 conversions",
            [&](const Sides& s) {
                return s.more + " computes in double (" + n(s.more_count) + " f64 instructions, " + n(widen) +
                       " of them f32<->f64 conversions) where " + s.fewer + " has " + n(s.fewer_count) +
                       ": a literal without f (1.1 rather than 1.1f) or a double math function promotes float "
                       "arithmetic";
            },
            "write float literals with f and call the float functions (sinf); OpenCL: "
            "-cl-single-precision-constant treats double literals as float");
    }

    // Local memory in PTX is the stack; spills are ptxas's, later, and are not in the PTX.
    differ_in_count([](std::string_view name) { return name.starts_with("local "); }, "local memory",
                    "local loads and stores (ld.local, st.local)",
                    [&](const Sides& s) {
                        return s.more + " moves data through local memory (" + n(s.more_count) + " loads and stores, " +
                               s.fewer + " " + n(s.fewer_count) +
                               "): a stack array indexed at run time or a math function's slow path; register "
                               "spills come later, from ptxas, and show in its verbose log";
                    },
                    "index the array with constants or keep it in registers; set the register budget with "
                    "__launch_bounds__ or --maxrregcount=N (CUDA), reqd_work_group_size or -cl-nv-maxrregcount=N "
                    "(NVIDIA OpenCL)");

    differ_in_count([](std::string_view name) { return name.starts_with("block barrier"); }, "barriers",
                    "block barriers (bar.sync, barrier.sync)",
                    [&](const Sides& s) {
                        return s.more + " waits at " + n(s.more_count) + " block barriers, " + s.fewer + " at " +
                               n(s.fewer_count) + ": the two sources synchronise their blocks differently";
                    },
                    "compare the kernels' __syncthreads() and barrier(CLK_LOCAL_MEM_FENCE) calls; one inside a "
                    "loop costs every iteration");

    differ_in_count([](std::string_view name) { return name.starts_with("special function"); },
                    "approximate special functions", "hardware approximations (sin, cos, ex2, lg2, tanh .approx)",
                    [&](const Sides& s) {
                        return s.more + " uses " + n(s.more_count) +
                               " of the hardware's approximate special functions, " + s.fewer + " " + n(s.fewer_count) +
                               ": fast math on one side, the other computes the accurate versions in software";
                    },
                    "CUDA: -use_fast_math, or __sinf()/__expf() in the source; OpenCL: -cl-fast-relaxed-math, or "
                    "native_sin()/native_exp() in the source");
    return differences;
}

} // namespace duet::cli
