// `duet explain <workload|manifest>`: one untimed, unverified run per device and variant with the
// device's launch log on, then for every kernel launched its geometry, resources, occupancy and
// compiled code, and for one GPU reached through both APIs the two builds' differences.
#include "model/explain.hpp"
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/devices.hpp"
#include "model/environment.hpp"
#include "model/workloads.hpp"
#include "render/describe.hpp"
#include "render/explain.hpp"
#include "render/format.hpp"
#include "render/progress.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>

namespace duet::cli {

namespace {

std::string environment_value(const char* name)
{
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

/// The header's line on what compile_every_program set, or why the user's settings may hide the
/// registers.
std::string compile_note()
{
    const auto driver = environment_value("CUDA_CACHE_DISABLE");
    const auto duet = environment_value("DUET_CACHE");
    const std::string settings = "CUDA_CACHE_DISABLE=" + driver + ", DUET_CACHE=" + duet;
    if (driver == "1" && (duet == "off" || duet == "0")) {
        return "no build cache (" + settings + "): NVIDIA's OpenCL compiles and names registers";
    }
    return "build caches as set (" + settings + "): a cached build hides OpenCL's registers";
}

/// The header's line on where the SASS comes from, or why there is none.
std::string sass_note(const SassTools& tools)
{
    if (!tools.absent.empty()) {
        return "SASS: not shown: " + tools.absent;
    }
    return "SASS: the toolkit's ptxas " + tools.ptxas_version +
           " on each program's PTX, as the driver's JIT compiles OpenCL's; may differ from the driver's";
}

/// A name that is one file's, whatever the workload, variant or selector holds.
std::string file_word(std::string text)
{
    std::replace_if(
        text.begin(), text.end(), [](char c) { return c == '/' || c == '\0'; }, '_');
    return text;
}

/// Each program's PTX where its assembly is text: <workload>-<variant>-<device>.ptx, with the
/// program's first kernel's name after the device where the run built several; the files' paths,
/// or why there are none, printed to `out`.
void write_assembly(const OutputFolder& folder, const ExplainedRun& run, std::ostream& out)
{
    if (!run.explained()) {
        return;
    }
    const std::string stem =
        file_word(run.job.info.name) + "-" + file_word(run.job.variant) + "-" + file_word(run.job.label);
    for (const auto& program : run.programs) {
        const std::string name =
            stem +
            (run.programs.size() > 1 && !program.kernels.empty() ? "-" + file_word(program.kernels.front()) : "");
        if (program.assembly) {
            out << "  assembly written: " << folder.write(name + ".ptx", *program.assembly).string() << "\n";
            if (program.sass && !program.sass->listing.empty()) {
                out << "  assembly written: " << folder.write(name + ".sass", program.sass->listing).string() << "\n";
            }
        } else {
            out << "  no assembly to write for " << name << " (its compiled code above says why)\n";
        }
    }
}

} // namespace

void compile_every_program()
{
    // Without overwriting: a value the user set is theirs.
    ::setenv("CUDA_CACHE_DISABLE", "1", 0);
    ::setenv("DUET_CACHE", "off", 0);
}

int explain_command(const Arguments& arguments)
{
    const auto workload = find_workload(arguments.positional().at(0));
    const auto info = workload->info();
    const auto wanted = arguments.list("variants");
    // One variant unless asked: explaining is about a kernel, not a sweep of them.
    const auto variants = wanted.empty() ? std::vector<std::string>{info.variants.at(0)} : pick_variants(info, wanted);
    const auto settings = make_settings(info, arguments.assignments("set"));
    const auto devices = pick_devices(arguments.list("devices"));
    const auto seed = arguments.number("seed", 1, 0, UINT64_MAX);
    const auto build_flags = build_flags_from(arguments);
    auto outputs = Outputs::open(arguments);
    const auto assembly = OutputFolder::from(arguments, "assembly");
    const auto sass_tools = find_sass_tools(environment_value("PATH"));

    ExplainHeader header{info.name, variants, {}, seed, {compile_note(), sass_note(sass_tools)}};
    for (const auto& [device, label] : devices) {
        header.devices.push_back(device_title(device) + " [" + api_label(device) + "]");
    }
    if (!build_flags.empty()) {
        header.notes.push_back(describe_build_flags(build_flags));
    }
    if (outputs.table) {
        std::cout << explain_heading(header) << "\n";
        print_explain_notes(std::cout, header);
        print_unavailable_backends(std::cout);
    }
    std::vector<ExplainedRun> runs;
    Progress progress(variants.size() * devices.size());
    for (const auto& variant : variants) {
        for (const auto& [device, label] : devices) {
            const workload::Job job{workload,
                                    info,
                                    variant,
                                    settings,
                                    device,
                                    label,
                                    seed,
                                    workload::Timing::once(),
                                    build_flags_for(build_flags, device)};
            progress.start(job_name(job));
            runs.push_back(explain(job, sass_tools));
            progress.clear();
            if (outputs.table) {
                print_explained_run(std::cout, runs.back());
            }
            if (assembly) {
                // The files' names go where the table would, or beside the JSON on standard error.
                write_assembly(*assembly, runs.back(), outputs.table ? std::cout : std::cerr);
            }
        }
    }
    const auto pairs = explained_pairs(runs);
    std::size_t explained = 0, unsupported = 0, failed = 0;
    for (const auto& run : runs) {
        explained += run.explained() ? 1 : 0;
        unsupported += run.status == Status::unsupported ? 1 : 0;
        failed += run.status == Status::failed ? 1 : 0;
    }
    if (outputs.table) {
        for (const auto& pair : pairs) {
            print_explained_pair(std::cout, pair, runs);
        }
        std::cout << "\n"
                  << format::count(runs.size(), "run") << ": " << explained << " explained, " << unsupported
                  << " unsupported, " << failed << " failed\n";
    }
    int code = exit_ok;
    if (failed > 0 || explained == 0) {
        std::cerr << "duet: " << (failed > 0 ? format::count(failed, "run") + " failed" : "no run was explained")
                  << ":\n";
        for (const auto& run : runs) {
            if (!run.explained()) {
                std::cerr << "  " << outcome(job_name(run.job), run.status, run.reason) << "\n";
            }
        }
        code = exit_wrong;
    }
    outputs.write([&] { return json::document(explain_json(runs, pairs, seed)); }, {},
                  [&] { return explain_report(header, runs, pairs); });
    return code;
}

} // namespace duet::cli
