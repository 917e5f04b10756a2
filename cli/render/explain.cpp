// duet explain's tables. A block per kernel keeps every line within 100 columns; free text
// (a driver's reason, a hypothesis) is wrapped to that width.
#include "render/explain.hpp"

#include "model/environment.hpp"
#include "model/workloads.hpp"
#include "render/format.hpp"
#include "render/table.hpp"

#include <duet/detail/text.hpp>

#include <algorithm>
#include <set>

namespace duet::cli {

namespace {

constexpr std::size_t line_width = 100;

/// `text` after `lead` on the first line, broken at spaces so that no line passes line_width, the
/// lines after the first indented by `indent`.
void print_wrapped(std::ostream& out, const std::string& lead, const std::string& text, const std::string& indent)
{
    std::string line = lead;
    std::size_t start = 0;
    bool first_word = true;
    while (start < text.size()) {
        const auto space = text.find(' ', start);
        const auto end = space == std::string::npos ? text.size() : space;
        const std::string word = text.substr(start, end - start);
        if (!first_word && display_width(line) + 1 + display_width(word) > line_width) {
            out << line << "\n";
            line = indent + word;
        } else {
            line += " " + word;
        }
        first_word = false;
        start = end + 1;
    }
    out << line << "\n";
}

} // namespace

std::string dims_text(std::uint32_t dims, const Dim3& size)
{
    std::string text = std::to_string(size.x);
    if (dims >= 2) {
        text += " x " + std::to_string(size.y);
    }
    if (dims >= 3) {
        text += " x " + std::to_string(size.z);
    }
    return text;
}

std::string joined(const std::vector<std::string>& names)
{
    std::string text;
    for (const auto& name : names) {
        text += (text.empty() ? "" : ", ") + name;
    }
    return text;
}

std::string launches_text(const LaunchGroup& launch)
{
    return std::to_string(launch.count) +
           (launch.recorded > 0 ? " (" + std::to_string(launch.recorded) + " recorded)" : "");
}

std::string limiters_text(const Occupancy& occupancy)
{
    std::string text;
    for (const auto limiter : occupancy.limiters) {
        text += (text.empty() ? "" : ", ") + to_string(limiter);
    }
    return text.empty() ? "-" : text;
}

std::string driver_blocks_text(const LaunchOccupancy& occupancy)
{
    if (!occupancy.driver) {
        return "-";
    }
    const std::string blocks = std::to_string(*occupancy.driver);
    return occupancy.disagree() ? blocks + " DISAGREES" : blocks;
}

std::string occupancy_absent(const ExplainedKernel& kernel)
{
    const bool figured = std::any_of(kernel.launches.begin(), kernel.launches.end(), [](const LaunchGroup& launch) {
        return launch.occupancy.model.has_value() || launch.occupancy.driver.has_value();
    });
    // One reason for all launches: the device's, not the launch's.
    return figured || kernel.launches.empty() ? "" : kernel.launches.front().occupancy.model_absent;
}

std::vector<std::string> occupancy_notes(const ExplainedKernel& kernel)
{
    std::set<std::string> notes;
    for (std::size_t i = 0; i < kernel.launches.size(); ++i) {
        const auto& occupancy = kernel.launches[i].occupancy;
        if (occupancy.model && !occupancy.model->refusal.empty()) {
            notes.insert("launch " + std::to_string(i + 1) + " cannot fit one block: " + occupancy.model->refusal);
        }
        if (!occupancy.model) {
            notes.insert("no model figure: " + occupancy.model_absent);
        }
        if (!occupancy.driver) {
            notes.insert("no driver's figure: " + occupancy.driver_absent);
        }
        if (occupancy.disagree()) {
            notes.insert("the driver's blocks differ from the model's, which follows the driver's rules: a figure the "
                         "model lacks (a carve-out, a reservation) or a wrong table entry");
        }
        if (occupancy.registers_unknown) {
            notes.insert("registers not known: the model leaves the register file out, so its figure is an upper "
                         "bound");
        }
    }
    return {notes.begin(), notes.end()};
}

std::string registers_text(const ExplainedKernel& kernel, const DeviceProperties& device, const std::string& backend)
{
    const unsigned registers = kernel.properties.registers;
    if (registers == 0) {
        // NVIDIA's OpenCL says only when it compiles: a kernel from its compute cache has none.
        return device.type == DeviceType::gpu && backend == "opencl"
                   ? "not known (the driver says only when it compiles: CUDA_CACHE_DISABLE=1)"
                   : "not known (the driver does not say)";
    }
    return std::to_string(registers) + " a work-item" +
           (kernel.registers_from == "ptxas" ? " (from the toolkit's ptxas on the PTX: the driver did not say)" : "");
}

std::string largest_block_text(const KernelProperties& p)
{
    return (p.max_block_size == 0 ? "not known" : std::to_string(p.max_block_size)) + ", set by " +
           std::string(to_string(p.max_block_limit)) +
           (p.required_block[0] == 0
                ? ""
                : "; declared " + std::to_string(p.required_block[0]) + " x " + std::to_string(p.required_block[1]) +
                      " x " + std::to_string(p.required_block[2]));
}

std::string ptxas_text(const PtxasKernel& figures)
{
    return std::to_string(figures.registers) + " registers, " + format::bytes(figures.stack_bytes) + " stack, spills " +
           format::bytes(figures.spill_store_bytes) + " stored and " + format::bytes(figures.spill_load_bytes) +
           " loaded, " + format::bytes(figures.shared_bytes) + " static shared";
}

std::string kernel_heading(const ExplainedKernel& kernel)
{
    std::size_t launches = 0;
    for (const auto& launch : kernel.launches) {
        launches += launch.count;
    }
    return "kernel " + kernel.name + ": " + std::to_string(launches) + (launches == 1 ? " launch" : " launches") +
           (kernel.earlier_builds > 0 ? " (after " + format::count(kernel.earlier_builds, "other build") +
                                            " of it, a tuner's trials, left out)"
                                      : "");
}

std::string sass_heading(const SassMix& mix)
{
    return format::count(mix.total, "instruction") + " (NOPs left out)";
}

std::string mix_heading(const InstructionMix& mix)
{
    return "PTX, " + format::count(mix.total, "instruction") + " in the kernel" +
           (mix.functions.empty() ? "" : " and the functions it calls");
}

namespace {

void print_launches(std::ostream& out, const ExplainedKernel& kernel)
{
    Table launches({{"#", Table::Align::right},
                    {"grid", Table::Align::right},
                    {"block", Table::Align::right},
                    {"threads", Table::Align::right},
                    {"dynamic local", Table::Align::right},
                    {"launches", Table::Align::right}});
    for (std::size_t i = 0; i < kernel.launches.size(); ++i) {
        const auto& launch = kernel.launches[i];
        launches.add_row({std::to_string(i + 1), dims_text(launch.range.dims, launch.range.grid),
                          dims_text(launch.range.dims, launch.range.block), std::to_string(launch.threads_per_block()),
                          format::bytes(launch.dynamic_local_bytes), launches_text(launch)});
    }
    launches.print(out, "    ");
}

void print_occupancy(std::ostream& out, const ExplainedKernel& kernel)
{
    if (const auto absent = occupancy_absent(kernel); !absent.empty()) {
        print_wrapped(out, "    occupancy:", absent, "      ");
        return;
    }
    out << "    occupancy per SM, by the CUDA occupancy calculator's rules, and the driver's blocks:\n";
    Table table({{"#", Table::Align::right},
                 {"blocks", Table::Align::right},
                 {"warps", Table::Align::right},
                 {"occupancy", Table::Align::right},
                 {"limited by"},
                 {"driver's blocks", Table::Align::right}});
    for (std::size_t i = 0; i < kernel.launches.size(); ++i) {
        const auto& occupancy = kernel.launches[i].occupancy;
        std::vector<std::string> cells{std::to_string(i + 1)};
        if (const auto& model = occupancy.model) {
            cells.insert(cells.end(), {std::to_string(model->active_blocks), std::to_string(model->active_warps),
                                       format::percent(model->fraction), limiters_text(*model)});
        } else {
            cells.insert(cells.end(), {"-", "-", "-", "-"});
        }
        cells.push_back(driver_blocks_text(occupancy));
        table.add_row(std::move(cells));
    }
    table.print(out, "    ");
    for (const auto& note : occupancy_notes(kernel)) {
        print_wrapped(out, "    note:", note, "      ");
    }
}

/// A PTX or SASS mix's groups and their counts.
template <class Groups> void print_counts(std::ostream& out, const Groups& groups)
{
    Table table({{"group"}, {"count", Table::Align::right}});
    for (const auto& group : groups) {
        table.add_row({group.name, std::to_string(group.count)});
    }
    table.print(out, "      ");
}

void print_mix(std::ostream& out, const ExplainedKernel& kernel)
{
    if (!kernel.mix) {
        print_wrapped(out, "    compiled code: none:", kernel.mix_absent, "      ");
        return;
    }
    const auto& mix = *kernel.mix;
    out << "    compiled code: " << mix_heading(mix) << "\n";
    print_counts(out, mix.groups);
    if (!mix.unresolved.empty()) {
        print_wrapped(out, "      calls without a body here (their code not counted):", joined(mix.unresolved),
                      "        ");
    }
}

void print_sass(std::ostream& out, const ExplainedKernel& kernel)
{
    if (const auto& figures = kernel.ptxas) {
        out << "    ptxas -v: " << ptxas_text(*figures) << "\n";
    }
    if (!kernel.sass) {
        print_wrapped(out, "    SASS: none:", kernel.sass_absent, "      ");
        return;
    }
    out << "    SASS: " << sass_heading(*kernel.sass) << "\n";
    print_counts(out, kernel.sass->groups);
}

} // namespace

void print_explained_kernel(std::ostream& out, const ExplainedKernel& kernel, const DeviceProperties& device,
                            const std::string& backend)
{
    const auto& p = kernel.properties;
    out << "\n  " << kernel_heading(kernel) << "\n";
    out << "    registers " << registers_text(kernel, device, backend) << "\n";
    out << "    private memory " << format::bytes(p.private_memory) << " a work-item (spills, stack); static local "
        << format::bytes(p.static_local_memory) << "\n";
    out << "    largest block " << largest_block_text(p) << "\n";
    print_launches(out, kernel);
    print_occupancy(out, kernel);
    print_mix(out, kernel);
    print_sass(out, kernel);
}

std::string run_heading(const ExplainedRun& run)
{
    return run.job.info.name + "/" + run.job.variant + " on " + device_title(run.job.device) + " [" +
           api_label(run.job.device) + "]";
}

std::string pair_heading(const ExplainedPair& pair, const std::vector<ExplainedRun>& runs)
{
    const auto& cuda = runs.at(pair.cuda);
    const auto& opencl = runs.at(pair.opencl);
    return cuda.job.info.name + "/" + cuda.job.variant + " on one GPU through both APIs: " + cuda.job.label + " and " +
           opencl.job.label + " (PCI " + cuda.job.device.properties().pci_bus_id + ")";
}

std::vector<std::string> group_names(const std::vector<MixGroup>& cuda, const std::vector<MixGroup>& opencl)
{
    std::vector<std::string> names;
    for (const auto& group : cuda) {
        names.push_back(group.name);
    }
    auto next = names.begin();
    for (const auto& group : opencl) {
        const auto found = std::find(names.begin(), names.end(), group.name);
        next = found != names.end() ? found + 1 : names.insert(next, group.name) + 1;
    }
    return names;
}

std::string twin_name(const KernelTwin& twin)
{
    std::string name = twin.cuda_kernel.empty() ? twin.opencl_kernel : twin.cuda_kernel;
    if (!twin.cuda_kernel.empty() && !twin.opencl_kernel.empty() && twin.cuda_kernel != twin.opencl_kernel) {
        name += " / " + twin.opencl_kernel;
    }
    return name;
}

std::string difference_text(const MixDifference& difference)
{
    return difference.aspect + ": CUDA " + std::to_string(difference.cuda) + ", OpenCL " +
           std::to_string(difference.opencl) + " " + difference.counted;
}

std::string options_text(const ExplainedProgram& program)
{
    if (!program.build_options) {
        return "not known: " + program.build_options_absent;
    }
    const auto options = detail::trimmed(*program.build_options, " ");
    return options.empty() ? "none" : std::string(options);
}

std::string explain_heading(const ExplainHeader& header)
{
    return "duet explain: " + header.workload + ", " + format::count(header.variants.size(), "variant") + " on " +
           format::count(header.devices.size(), "device") + "; one untimed pass each, values not checked; seed " +
           std::to_string(header.seed);
}

void print_explain_notes(std::ostream& out, const ExplainHeader& header)
{
    for (const auto& note : header.notes) {
        const auto space = note.find(' ');
        print_wrapped(out, note.substr(0, space), space == std::string::npos ? "" : note.substr(space + 1), "  ");
    }
}

namespace {

void print_build_options(std::ostream& out, const ExplainedRun& run)
{
    for (const auto& program : run.programs) {
        out << "\n";
        print_wrapped(out, "  build options of the program of " + joined(program.kernels) + ":", options_text(program),
                      "    ");
    }
}

} // namespace

void print_explained_run(std::ostream& out, const ExplainedRun& run)
{
    out << "\n" << run_heading(run) << "\n";
    out << "settings: " << describe_settings(run.job.info, run.job.settings.values()) << "; seed " << run.job.seed
        << "\n";
    if (!run.explained()) {
        print_wrapped(out, to_string(run.status) + ":", run.reason, "  ");
        return;
    }
    if (run.kernels.empty()) {
        out << "  launched no kernel (it moves data only)\n";
    }
    for (const auto& kernel : run.kernels) {
        print_explained_kernel(out, kernel, run.job.device.properties(), run.job.device.backend());
    }
    print_build_options(out, run);
}

void print_explained_pair(std::ostream& out, const ExplainedPair& pair, const std::vector<ExplainedRun>& runs)
{
    out << "\n" << pair_heading(pair, runs) << "\n";
    print_kernel_twins(out, pair.kernels);
    print_program_twins(out, pair.programs, runs.at(pair.cuda).programs, runs.at(pair.opencl).programs);
}

void print_program_twins(std::ostream& out, const std::vector<ProgramTwin>& twins,
                         const std::vector<ExplainedProgram>& cuda, const std::vector<ExplainedProgram>& opencl)
{
    for (const auto& twin : twins) {
        out << "\n  build options of the program of " << joined(twin.kernels) << ":\n";
        print_wrapped(out, "    CUDA  ", options_text(cuda.at(twin.cuda)), "          ");
        print_wrapped(out, "    OpenCL", options_text(opencl.at(twin.opencl)), "          ");
    }
}

namespace {

/// Two mixes' counts side by side, group by group, a star where they differ.
template <class Mix> void print_side_by_side(std::ostream& out, const Mix& cuda, const Mix& opencl)
{
    Table table({{"group"}, {"CUDA", Table::Align::right}, {"OpenCL", Table::Align::right}, {""}});
    for (const auto& group : group_names(cuda.groups, opencl.groups)) {
        const auto a = cuda.count(group);
        const auto b = opencl.count(group);
        table.add_row({group, std::to_string(a), std::to_string(b), a == b ? "" : "*"});
    }
    table.add_row(
        {"total", std::to_string(cuda.total), std::to_string(opencl.total), cuda.total == opencl.total ? "" : "*"});
    table.print(out, "    ");
}

} // namespace

void print_kernel_twins(std::ostream& out, const std::vector<KernelTwin>& twins)
{
    for (const auto& twin : twins) {
        out << "\n  kernel " << twin_name(twin) << "\n";
        if (!twin.absent.empty()) {
            print_wrapped(out, "    not compared:", twin.absent, "      ");
            continue;
        }
        out << "    static PTX instruction counts, * where they differ:\n";
        print_side_by_side(out, *twin.cuda_mix, *twin.opencl_mix);
        if (twin.cuda_sass && twin.opencl_sass) {
            out << "    static SASS instruction counts (ptxas), * where they differ:\n";
            print_side_by_side(out, *twin.cuda_sass, *twin.opencl_sass);
        }
        if (twin.differences.empty()) {
            out << "    no difference that hints at a cause\n";
        }
        for (const auto& difference : twin.differences) {
            out << "\n    " << difference_text(difference) << "\n";
            print_wrapped(out, "      why:", difference.hypothesis, "        ");
            print_wrapped(out, "      test:", difference.test, "        ");
        }
    }
}

} // namespace duet::cli
