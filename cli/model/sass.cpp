// ptxas and cuobjdump (or nvdisasm) run as child processes in a folder of their own, each within a
// time limit; their output read as the CUDA toolkit writes it: `ptxas -v`'s "ptxas info" lines,
// and SASS listings whose instructions follow an offset comment ("/*0040*/  LDG.E R2, ... ;").
#include "model/sass.hpp"
#include "model/child_process.hpp"

#include <duet/detail/file.hpp>
#include <duet/detail/plugins.hpp>
#include <duet/detail/text.hpp>
#include <duet/error.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <set>

namespace duet::cli {

namespace fs = std::filesystem;

namespace {

using detail::trimmed;

constexpr std::uint64_t listing_limit = 256ULL << 20; // a listing of 256 MiB is no program's

std::vector<std::string_view> lines_of(std::string_view text)
{
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const auto end = text.find('\n');
        lines.push_back(text.substr(0, end));
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    }
    return lines;
}

/// The number just before `unit` in `text` ("40" in "40 bytes stack frame"), where both are there.
std::optional<std::uint64_t> number_before(std::string_view text, std::string_view unit)
{
    const auto at = text.find(unit);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    auto start = text.substr(0, at).find_last_not_of(' ');
    const auto end = start + 1;
    while (start != std::string_view::npos && start > 0 && std::isdigit(static_cast<unsigned char>(text[start - 1]))) {
        --start;
    }
    std::uint64_t value = 0;
    const auto [stop, error] = std::from_chars(text.data() + start, text.data() + end, value);
    return error == std::errc() && stop == text.data() + end ? std::optional(value) : std::nullopt;
}

/// A child process's exit and what it wrote to standard output and error.
struct Ran {
    int exit_code = -1;
    std::string output;
};

/// Runs `command` in `folder`, its output to a file there, killed past `limit`. Throws Error
/// naming the tool where it cannot start or runs too long.
Ran run_tool(const std::vector<std::string>& command, const fs::path& folder, std::chrono::seconds limit)
{
    const std::string tool = fs::path(command.front()).filename().string();
    const fs::path output = folder / (tool + ".out");
    Ran ran;
    ran.exit_code = run_child({.command = command, .output = output, .folder = folder, .limit = limit});
    const auto unread = detail::read_regular_file(output, listing_limit, ran.output);
    if (!unread.empty()) {
        throw Error("duet", tool, "cannot read " + tool + "'s output: " + unread);
    }
    return ran;
}

/// A folder only this process uses, removed with what the tools left in it.
class PrivateFolder {
public:
    PrivateFolder()
    {
        std::string pattern = (fs::temp_directory_path() / "duet-sass-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw Error("duet", "ptxas",
                        "cannot make a temporary folder in " + fs::temp_directory_path().string() + ": " +
                            detail::error_text(errno));
        }
        path_ = pattern;
    }
    ~PrivateFolder()
    {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    PrivateFolder(const PrivateFolder&) = delete;
    PrivateFolder& operator=(const PrivateFolder&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

/// What a tool said, its last lines: enough to name the problem, short enough for a reason.
std::string said(const Ran& ran)
{
    const auto text = trimmed(ran.output);
    const std::string tail(text.substr(text.size() > 400 ? text.size() - 400 : 0));
    return "exit status " + std::to_string(ran.exit_code) + (tail.empty() ? "" : ": " + tail);
}

fs::path on_path(std::string_view path, const std::string& name)
{
    for (const auto& directory : detail::paths_in(path)) {
        const fs::path candidate = directory / name;
        if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) {
            return candidate;
        }
    }
    return {};
}

// The groups' order and names: memory, floating point by type, special functions, integer,
// conversions, synchronisation, warp-wide, control flow, moves, other.
std::string width_text(std::string_view modifiers)
{
    for (const auto& [mark, bits] : std::initializer_list<std::pair<std::string_view, const char*>>{
             {".U8", "8"}, {".S8", "8"}, {".U16", "16"}, {".S16", "16"}, {".64", "64"}, {".128", "128"}}) {
        const auto at = modifiers.find(mark);
        if (at != std::string_view::npos &&
            (at + mark.size() == modifiers.size() || modifiers[at + mark.size()] == '.')) {
            return bits;
        }
    }
    return "32";
}

bool one_of(std::string_view base, std::initializer_list<std::string_view> names)
{
    return std::find(names.begin(), names.end(), base) != names.end();
}

} // namespace

std::optional<SassGroup> sass_group(std::string_view instruction)
{
    auto text = trimmed(instruction);
    if (text.starts_with('@')) { // a predicate: @P0, @!PT
        const auto space = text.find(' ');
        text = space == std::string_view::npos ? std::string_view() : trimmed(text.substr(space));
    }
    const auto opcode = text.substr(0, std::min(text.find_first_of(" ;"), text.size()));
    const auto dot = std::min(opcode.find('.'), opcode.size());
    const auto base = opcode.substr(0, dot);
    const auto modifiers = opcode.substr(dot);
    // The memory groups carry their width: SASS names it in the opcode (LDG.E.128), 32-bit unnamed.
    const auto memory = [&](unsigned rank, const std::string& what) {
        const bool read_only = modifiers.find(".CONSTANT") != std::string_view::npos;
        return SassGroup{what + " " + width_text(modifiers) + "-bit" + (read_only ? " .CONSTANT" : ""), rank};
    };
    if (base.empty() || base == "NOP") {
        return std::nullopt;
    }
    if (base == "LDG") {
        return memory(modifiers.find(".CONSTANT") != std::string_view::npos ? 1 : 0, "global load (LDG)");
    }
    if (base == "STG") {
        return memory(2, "global store (STG)");
    }
    if (one_of(base, {"LDS", "LDSM"})) {
        return memory(3, "shared load (LDS)");
    }
    if (base == "STS") {
        return memory(4, "shared store (STS)");
    }
    if (base == "LDL") {
        return memory(5, "local load (LDL: spills, stack)");
    }
    if (base == "STL") {
        return memory(6, "local store (STL: spills, stack)");
    }
    if (base == "LD" || base == "ST") {
        return memory(7, base == "LD" ? "generic load (LD)" : "generic store (ST)");
    }
    const auto group = [](unsigned rank, std::string name) { return SassGroup{std::move(name), rank}; };
    if (one_of(base, {"LDC", "ULDC"})) {
        return group(10, "constant load (LDC, ULDC)");
    }
    if (one_of(base, {"ATOM", "ATOMG", "ATOMS", "RED", "REDG", "REDAS"})) {
        return group(11, "atomic (ATOM, ATOMS, RED)");
    }
    if (one_of(base, {"LDGSTS", "LDGDEPBAR", "UBLKCP", "UTMALDG", "UTMASTG", "SYNCS"})) {
        return group(12, "asynchronous copy (LDGSTS, UTMALDG)");
    }
    if (base == "FFMA") {
        return group(20, "FMA f32 (FFMA)");
    }
    if (base == "FMUL") {
        return group(21, "multiply f32 (FMUL)");
    }
    if (base == "FADD") {
        return group(22, "add f32 (FADD)");
    }
    if (one_of(base, {"FMNMX", "FSETP", "FSEL", "FSET", "FCHK", "FSWZADD"})) {
        return group(23, "other f32 (FSETP, FMNMX, FSEL, FCHK)");
    }
    if (base == "DFMA") {
        return group(24, "FMA f64 (DFMA)");
    }
    if (base == "DMUL") {
        return group(25, "multiply f64 (DMUL)");
    }
    if (base == "DADD") {
        return group(26, "add f64 (DADD)");
    }
    if (one_of(base, {"DSETP", "DMNMX", "DSET"})) {
        return group(27, "other f64 (DSETP, DMNMX)");
    }
    if (base.starts_with('H') && base.ends_with('2')) { // HFMA2, HADD2, HMUL2, HSETP2, HMNMX2
        return group(28, "f16 pairs (HFMA2, HADD2, HMUL2)");
    }
    if (one_of(base, {"HMMA", "IMMA", "DMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA", "WARPGROUP"})) {
        return group(29, "matrix (HMMA, HGMMA)");
    }
    if (base == "MUFU") {
        return group(30, "special function (MUFU: rcp, rsq, sqrt, ex2, lg2, sin, cos)");
    }
    const auto plain = base.starts_with('U') && base.size() > 1 ? base.substr(1) : base; // uniform datapath
    if (one_of(plain, {"IMAD", "IADD3", "IADD",  "VIADD", "IMUL",   "LOP3",   "LOP",   "SHF", "SHL",
                       "SHR",  "LEA",   "ISETP", "IMNMX", "VIMNMX", "IABS",   "POPC",  "FLO", "BREV",
                       "PRMT", "SGXT",  "BMSK",  "IDP",   "IDP4A",  "ISCADD", "IMADSP"})) {
        return group(40, "integer arithmetic and logic (IMAD, IADD3, LOP3, ISETP, ...)");
    }
    if (one_of(base, {"I2F", "F2I", "F2F", "I2I", "FRND", "F2FP", "I2FP", "F2IP", "DRND"})) {
        return group(50, "conversion (I2F, F2I, F2F, FRND)");
    }
    if (base == "BAR") {
        return group(60, "block barrier (BAR)");
    }
    if (one_of(base, {"MEMBAR", "FENCE", "ERRBAR", "CCTL", "CCTLL"})) {
        return group(61, "memory fence (MEMBAR, FENCE)");
    }
    if (one_of(base, {"SHFL", "VOTE", "VOTEU", "MATCH", "REDUX"})) {
        return group(70, "warp-wide (SHFL, VOTE, MATCH, REDUX)");
    }
    if (one_of(base, {"BRA", "BRX", "JMP", "JMX"})) {
        return group(80, "branch (BRA, BRX)");
    }
    if (one_of(base, {"BSSY", "BSYNC", "WARPSYNC", "BREAK", "BMOV", "YIELD"})) {
        return group(81, "convergence (BSSY, BSYNC, WARPSYNC)");
    }
    if (one_of(base, {"CALL", "RET"})) {
        return group(82, "call/return (CALL, RET)");
    }
    if (base == "EXIT") {
        return group(83, "exit (EXIT)");
    }
    if (one_of(plain, {"MOV", "SEL", "S2R", "S2UR", "CS2R", "R2UR", "PLOP3", "P2R", "R2P", "PSETP"})) {
        return group(90, "move/select (MOV, SEL, S2R, CS2R)");
    }
    return group(99, "other (" + std::string(base) + ", ...)");
}

std::uint64_t SassMix::count(std::string_view name) const
{
    const auto found =
        std::find_if(groups.begin(), groups.end(), [&](const MixGroup& group) { return group.name == name; });
    return found == groups.end() ? 0 : found->count;
}

std::vector<SassMix> sass_mixes(std::string_view listing)
{
    struct Counting {
        SassMix mix;
        std::vector<std::pair<unsigned, std::string>> order; // rank, name: one entry per group
    };
    std::vector<Counting> functions;
    for (const auto raw : lines_of(listing)) {
        const auto line = trimmed(raw);
        if (line.starts_with("Function : ")) {
            functions.push_back({SassMix{std::string(trimmed(line.substr(11))), {}, 0}, {}});
            continue;
        }
        if (line.starts_with(".text.") && line.ends_with(':')) { // nvdisasm's label of a function
            functions.push_back({SassMix{std::string(line.substr(6, line.size() - 7)), {}, 0}, {}});
            continue;
        }
        // An instruction: "/*0040*/  LDG.E R2, desc[UR4][R2.64] ;  /* 0x... */", its offset in hex.
        if (!line.starts_with("/*") || functions.empty()) {
            continue;
        }
        const auto close = line.find("*/");
        const auto offset = line.substr(2, close == std::string_view::npos ? 0 : close - 2);
        if (offset.empty() || !std::all_of(offset.begin(), offset.end(),
                                           [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) {
            continue; // the second half of an encoding, "/* 0x000fe2... */"
        }
        auto text = trimmed(line.substr(close + 2));
        text = trimmed(text.substr(0, std::min(text.find(';'), text.size())));
        if (text.empty() || text.starts_with('.')) { // data in a listing: .byte, .word
            continue;
        }
        const auto group = sass_group(text);
        if (!group) {
            continue;
        }
        auto& counting = functions.back();
        auto& groups = counting.mix.groups;
        auto known = std::find_if(groups.begin(), groups.end(),
                                  [&](const MixGroup& existing) { return existing.name == group->name; });
        if (known == groups.end()) {
            groups.push_back({group->name, 0});
            counting.order.emplace_back(group->rank, group->name);
            known = groups.end() - 1;
        }
        ++known->count;
        ++counting.mix.total;
    }
    std::vector<SassMix> mixes;
    for (auto& counting : functions) {
        std::sort(counting.order.begin(), counting.order.end());
        std::vector<MixGroup> ordered;
        for (const auto& [rank, name] : counting.order) {
            ordered.push_back({name, counting.mix.count(name)});
        }
        counting.mix.groups = std::move(ordered);
        mixes.push_back(std::move(counting.mix));
    }
    return mixes;
}

std::vector<PtxasKernel> ptxas_kernels(std::string_view log)
{
    std::vector<PtxasKernel> kernels;
    constexpr std::string_view entry = "Compiling entry function '";
    for (const auto raw : lines_of(log)) {
        const auto line = trimmed(raw);
        if (const auto at = line.find(entry); at != std::string_view::npos) {
            const auto name = line.substr(at + entry.size());
            kernels.push_back({std::string(name.substr(0, name.find('\''))), 0, 0, 0, 0, 0});
            continue;
        }
        if (kernels.empty()) {
            continue;
        }
        auto& kernel = kernels.back();
        if (line.find("bytes stack frame") != std::string_view::npos) {
            kernel.stack_bytes = number_before(line, " bytes stack frame").value_or(0);
            kernel.spill_store_bytes = number_before(line, " bytes spill stores").value_or(0);
            kernel.spill_load_bytes = number_before(line, " bytes spill loads").value_or(0);
        } else if (line.find("Used ") != std::string_view::npos && line.find(" registers") != std::string_view::npos) {
            kernel.registers = static_cast<unsigned>(number_before(line, " registers").value_or(0));
            kernel.shared_bytes = number_before(line, " bytes smem").value_or(0);
        }
    }
    return kernels;
}

SassTools find_sass_tools(std::string_view path)
{
    SassTools tools;
    tools.ptxas = on_path(path, "ptxas");
    tools.disassembler = on_path(path, "cuobjdump");
    if (tools.disassembler.empty()) {
        tools.disassembler = on_path(path, "nvdisasm");
    }
    std::vector<std::string> missing;
    if (tools.ptxas.empty()) {
        missing.push_back("ptxas");
    }
    if (tools.disassembler.empty()) {
        missing.push_back("cuobjdump");
    }
    if (!missing.empty()) {
        tools.absent = (missing.size() == 2 ? "ptxas/cuobjdump" : missing.front()) + " not on PATH";
    }
    if (!tools.ptxas.empty()) {
        try {
            const PrivateFolder folder;
            const auto ran = run_tool({tools.ptxas.string(), "--version"}, folder.path(), std::chrono::seconds(30));
            // "Cuda compilation tools, release 13.0, V13.0.88"
            const auto at = ran.output.rfind(", V");
            tools.ptxas_version = at == std::string::npos
                                      ? "of unknown version"
                                      : ran.output.substr(at + 2, ran.output.find('\n', at) - at - 2);
        } catch (const Error& error) {
            tools.ptxas_version = "of unknown version (" + error.message() + ")";
        }
    }
    return tools;
}

const PtxasKernel* ProgramSass::kernel(std::string_view name) const
{
    const auto found =
        std::find_if(kernels.begin(), kernels.end(), [&](const PtxasKernel& known) { return known.name == name; });
    return found == kernels.end() ? nullptr : &*found;
}

const SassMix* ProgramSass::mix(std::string_view function) const
{
    const auto found =
        std::find_if(mixes.begin(), mixes.end(), [&](const SassMix& known) { return known.function == function; });
    return found == mixes.end() ? nullptr : &*found;
}

ProgramSass compile_sass(const SassTools& tools, std::string_view ptx, unsigned major, unsigned minor,
                         std::chrono::seconds limit)
{
    if (tools.ptxas.empty()) {
        throw Error("duet", "ptxas", "ptxas not on PATH");
    }
    ProgramSass sass;
    sass.architecture = "sm_" + std::to_string(major) + std::to_string(minor);
    sass.ptxas_version = tools.ptxas_version;
    const PrivateFolder folder;
    const fs::path source = folder.path() / "program.ptx";
    const fs::path cubin = folder.path() / "program.cubin";
    {
        const detail::Descriptor file(::open(source.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
        if (!file || ::write(file.get(), ptx.data(), ptx.size()) != static_cast<ssize_t>(ptx.size())) {
            throw Error("duet", "ptxas",
                        "cannot write the PTX to " + source.string() + ": " + detail::error_text(errno));
        }
    }
    const auto compiled =
        run_tool({tools.ptxas.string(), "-arch=" + sass.architecture, "-v", source.string(), "-o", cubin.string()},
                 folder.path(), limit);
    if (compiled.exit_code != 0) {
        throw Error("duet", "ptxas", "ptxas -arch=" + sass.architecture + " failed: " + said(compiled));
    }
    sass.kernels = ptxas_kernels(compiled.output);
    if (tools.disassembler.empty()) {
        sass.listing_absent = "cuobjdump not on PATH";
        return sass;
    }
    const bool cuobjdump = tools.disassembler.filename() == "cuobjdump";
    try {
        auto listed =
            run_tool(cuobjdump ? std::vector<std::string>{tools.disassembler.string(), "-sass", cubin.string()}
                               : std::vector<std::string>{tools.disassembler.string(), "-c", cubin.string()},
                     folder.path(), limit);
        if (listed.exit_code != 0) {
            sass.listing_absent = tools.disassembler.filename().string() + " failed: " + said(listed);
            return sass;
        }
        sass.listing = std::move(listed.output); // up to 256 MiB
        sass.mixes = sass_mixes(sass.listing);
    } catch (const Error& error) {
        sass.listing_absent = error.message();
    }
    return sass;
}

} // namespace duet::cli
