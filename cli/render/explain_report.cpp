// duet explain's HTML report: what the table shows, in one page a reader can move through by its
// contents; for a GPU seen through both APIs the two mixes in one table with the rows that differ
// marked. The words come from the table's own helpers, so the two never say different things.
#include "render/explain.hpp"

#include "model/workloads.hpp"
#include "render/chart.hpp"
#include "render/format.hpp"
#include "render/html.hpp"

#include <sstream>

namespace duet::cli {

namespace {

using chart::escape;

std::string paragraph(const std::string& text, const std::string& css_class = "")
{
    return (css_class.empty() ? "<p>" : "<p class=\"" + css_class + "\">") + escape(text) + "</p>\n";
}

/// "<strong>lead</strong> text": a line whose first words name what it is about.
std::string labelled(const std::string& lead, const std::string& text, const std::string& css_class = "")
{
    return (css_class.empty() ? "<p>" : "<p class=\"" + css_class + "\">") + "<strong>" + escape(lead) + "</strong> " +
           escape(text) + "</p>\n";
}

std::string heading(int level, const std::string& id, const std::string& text)
{
    const std::string tag = "h" + std::to_string(level);
    return "<" + tag + " id=\"" + id + "\">" + escape(text) + "</" + tag + ">\n";
}

std::string run_id(std::size_t run)
{
    return "run-" + std::to_string(run + 1);
}

std::string pair_id(std::size_t pair)
{
    return "pair-" + std::to_string(pair + 1);
}

/// A mix's groups and their counts, the total last.
std::string counts_table(const std::vector<MixGroup>& groups, std::uint64_t total)
{
    std::vector<std::vector<Cell>> rows;
    for (const auto& group : groups) {
        rows.push_back({{group.name, ""}, {std::to_string(group.count), "number"}});
    }
    rows.push_back({{"total", "total"}, {std::to_string(total), "number total"}});
    return html_table({"group", "count"}, rows);
}

std::string resources_table(const ExplainedKernel& kernel, const DeviceProperties& device, const std::string& backend)
{
    const auto& p = kernel.properties;
    std::vector<std::vector<Cell>> rows{
        {{"registers", ""}, {registers_text(kernel, device, backend), ""}},
        {{"private memory a work-item (spills, stack)", ""}, {format::bytes(p.private_memory), ""}},
        {{"static local memory", ""}, {format::bytes(p.static_local_memory), ""}},
        {{"largest block", ""}, {largest_block_text(p), ""}}};
    if (kernel.ptxas) {
        rows.push_back({{"ptxas -v", ""}, {ptxas_text(*kernel.ptxas), ""}});
    }
    return html_table({"resource", "figure"}, rows);
}

std::string launches_table(const ExplainedKernel& kernel)
{
    std::vector<std::vector<Cell>> rows;
    for (std::size_t i = 0; i < kernel.launches.size(); ++i) {
        const auto& launch = kernel.launches[i];
        rows.push_back({{std::to_string(i + 1), "number"},
                        {dims_text(launch.range.dims, launch.range.grid), "number"},
                        {dims_text(launch.range.dims, launch.range.block), "number"},
                        {std::to_string(launch.threads_per_block()), "number"},
                        {format::bytes(launch.dynamic_local_bytes), "number"},
                        {launches_text(launch), "number"}});
    }
    return html_table({"#", "grid", "block", "threads", "dynamic local", "launches"}, rows);
}

std::string occupancy_part(const ExplainedKernel& kernel)
{
    if (const auto absent = occupancy_absent(kernel); !absent.empty()) {
        return labelled("Occupancy:", absent);
    }
    std::vector<std::vector<Cell>> rows;
    for (std::size_t i = 0; i < kernel.launches.size(); ++i) {
        const auto& occupancy = kernel.launches[i].occupancy;
        std::vector<Cell> row{{std::to_string(i + 1), "number"}};
        if (const auto& model = occupancy.model) {
            row.insert(row.end(), {{std::to_string(model->active_blocks), "number"},
                                   {std::to_string(model->active_warps), "number"},
                                   {format::percent(model->fraction), "number"},
                                   {limiters_text(*model), ""}});
        } else {
            row.insert(row.end(), {{"-", "number"}, {"-", "number"}, {"-", "number"}, {"-", ""}});
        }
        row.push_back({driver_blocks_text(occupancy), occupancy.disagree() ? "number differs" : "number"});
        rows.push_back(std::move(row));
    }
    std::string html = labelled("Occupancy per SM,", "by the CUDA occupancy calculator's rules (the model), and the "
                                                     "driver's blocks:") +
                       html_table({"#", "blocks", "warps", "occupancy", "limited by", "driver's blocks"}, rows);
    for (const auto& note : occupancy_notes(kernel)) {
        html += paragraph("Note: " + note, "note");
    }
    return html;
}

std::string mixes_part(const ExplainedKernel& kernel)
{
    std::string html;
    if (const auto& mix = kernel.mix) {
        html += labelled("Compiled code:", mix_heading(*mix)) + counts_table(mix->groups, mix->total);
        if (!mix->unresolved.empty()) {
            html += paragraph("Calls without a body here (their code not counted): " + joined(mix->unresolved), "note");
        }
    } else {
        html += labelled("Compiled code: none:", kernel.mix_absent, "absent");
    }
    if (const auto& sass = kernel.sass) {
        html += labelled("SASS:", sass_heading(*sass)) + counts_table(sass->groups, sass->total);
    } else {
        html += labelled("SASS: none:", kernel.sass_absent, "absent");
    }
    return html;
}

/// A run's programs: the kernels of each, its build options, and its compiled code or why there is none.
std::string programs_table(const ExplainedRun& run)
{
    std::vector<std::vector<Cell>> rows;
    for (const auto& program : run.programs) {
        const std::string code =
            program.assembly ? "PTX, " + format::bytes(program.assembly->size()) : "none: " + program.assembly_absent;
        const std::string sass = program.sass ? program.sass->architecture + " by ptxas " + program.sass->ptxas_version
                                              : "none: " + program.sass_absent;
        rows.push_back({{joined(program.kernels), ""},
                        {options_text(program), "options"},
                        {code, program.assembly ? "" : "absent"},
                        {sass, program.sass ? "" : "absent"}});
    }
    return html_table({"program of", "build options", "compiled code", "SASS"}, rows);
}

std::string run_section(const ExplainedRun& run, std::size_t index)
{
    std::string html = heading(2, run_id(index), run_heading(run)) +
                       paragraph("Settings: " + describe_settings(run.job.info, run.job.settings.values()) + "; seed " +
                                 std::to_string(run.job.seed));
    if (!run.explained()) {
        return html + labelled(to_string(run.status) + ":", run.reason, to_string(run.status));
    }
    if (run.kernels.empty()) {
        html += paragraph("Launched no kernel (it moves data only).");
    }
    for (std::size_t k = 0; k < run.kernels.size(); ++k) {
        html += kernel_report_section(run.kernels[k], run.job.device.properties(), run.job.device.backend(),
                                      run_id(index) + "-kernel-" + std::to_string(k + 1));
    }
    if (!run.programs.empty()) {
        html += "<h3>Build options and compiled code</h3>\n" + programs_table(run);
    }
    return html;
}

std::string contents(const std::vector<ExplainedRun>& runs, const std::vector<ExplainedPair>& pairs)
{
    std::string html = "<nav class=\"toc\">\n<h2>Contents</h2>\n<ul>\n";
    if (pairs.empty()) {
        html += "<li>No GPU was reached through both CUDA and OpenCL (the same PCI bus id), so no two builds of one "
                "kernel are set side by side.</li>\n";
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        html += "<li><a href=\"#" + pair_id(i) + "\">" + escape(pair_heading(pairs[i], runs)) + "</a></li>\n";
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& run = runs[i];
        html += "<li><a href=\"#" + run_id(i) + "\">" + escape(run_heading(run)) + "</a>" +
                (run.explained() ? ": " + format::count(run.kernels.size(), "kernel")
                                 : " (" + escape(to_string(run.status)) + ")") +
                "</li>\n";
    }
    return html + "</ul>\n</nav>\n";
}

/// Two mixes' counts in one table, group by group, the rows whose counts differ (and the total,
/// where it does) marked.
template <class Mix> std::string side_by_side_table(const Mix& cuda, const Mix& opencl)
{
    std::vector<std::vector<Cell>> rows;
    const auto row = [&](const std::string& name, std::uint64_t a, std::uint64_t b, const std::string& kind) {
        const std::string marked = a == b ? kind : kind.empty() ? "differs" : kind + " differs";
        const std::string number = marked.empty() ? "number" : "number " + marked;
        rows.push_back({{name, marked}, {std::to_string(a), number}, {std::to_string(b), number}});
    };
    for (const auto& group : group_names(cuda.groups, opencl.groups)) {
        row(group, cuda.count(group), opencl.count(group), "");
    }
    row("total", cuda.total, opencl.total, "total");
    return html_table({"group", "CUDA", "OpenCL"}, rows);
}

} // namespace

std::string kernel_report_section(const ExplainedKernel& kernel, const DeviceProperties& device,
                                  const std::string& backend, const std::string& anchor)
{
    return heading(3, anchor, kernel_heading(kernel)) + resources_table(kernel, device, backend) +
           launches_table(kernel) + occupancy_part(kernel) + mixes_part(kernel);
}

std::string pair_report_section(const std::vector<KernelTwin>& kernels, const std::vector<ProgramTwin>& programs,
                                const std::vector<ExplainedProgram>& cuda, const std::vector<ExplainedProgram>& opencl)
{
    std::string html;
    for (const auto& twin : kernels) {
        html += "<h3>kernel " + escape(twin_name(twin)) + "</h3>\n";
        if (!twin.absent.empty()) {
            html += labelled("Not compared:", twin.absent, "absent");
            continue;
        }
        html += paragraph("Static PTX instruction counts; the groups that differ are marked.") +
                side_by_side_table(*twin.cuda_mix, *twin.opencl_mix);
        if (twin.cuda_sass && twin.opencl_sass) {
            html += paragraph("Static SASS instruction counts (ptxas on each program's PTX); the groups that differ "
                              "are marked.") +
                    side_by_side_table(*twin.cuda_sass, *twin.opencl_sass);
        }
        if (twin.differences.empty()) {
            html += paragraph("No difference that hints at a cause.", "note");
            continue;
        }
        html += "<ul class=\"differences\">\n";
        for (const auto& difference : twin.differences) {
            html += "<li><strong>" + escape(difference_text(difference)) +
                    "</strong><br>Why: " + escape(difference.hypothesis) + "<br>Test: " + escape(difference.test) +
                    "</li>\n";
        }
        html += "</ul>\n";
    }
    if (!programs.empty()) {
        std::vector<std::vector<Cell>> rows;
        for (const auto& twin : programs) {
            const std::string a = options_text(cuda.at(twin.cuda));
            const std::string b = options_text(opencl.at(twin.opencl));
            rows.push_back({{joined(twin.kernels), ""}, {a, "options"}, {b, "options"}});
        }
        html += "<h3>Build options</h3>\n" + html_table({"program of", "CUDA", "OpenCL"}, rows);
    }
    return html;
}

std::string explain_report(const ExplainHeader& header, const std::vector<ExplainedRun>& runs,
                           const std::vector<ExplainedPair>& pairs)
{
    std::ostringstream out;
    out << page_start("duet explain: " + header.workload);
    out << paragraph(explain_heading(header) + ".");
    out << labelled("Variants:", joined(header.variants));
    out << "<p><strong>Devices:</strong></p>\n<ul>\n";
    for (const auto& device : header.devices) {
        out << "<li>" << escape(device) << "</li>\n";
    }
    out << "</ul>\n";
    for (const auto& note : header.notes) {
        out << paragraph(note, "note");
    }
    out << contents(runs, pairs);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const auto& pair = pairs[i];
        out << heading(2, pair_id(i), pair_heading(pair, runs))
            << pair_report_section(pair.kernels, pair.programs, runs.at(pair.cuda).programs,
                                   runs.at(pair.opencl).programs);
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        out << run_section(runs[i], i);
    }
    out << backends_section() << devices_section(devices_of(runs)) << page_end();
    return out.str();
}

} // namespace duet::cli
