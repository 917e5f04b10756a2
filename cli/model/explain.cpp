// One run with the launch log on, and each kernel it launched explained from what the device, the
// kernel and its program say; CUDA and OpenCL builds of one kernel on one GPU set side by side.
#include "model/explain.hpp"

#include "model/architecture.hpp"

#include <duet/launch_log.hpp>
#include <duet/workload/kit.hpp>

#include <algorithm>
#include <sstream>

namespace duet::cli {

namespace {

bool same_launch(const LaunchGroup& group, const LaunchRecord& launch)
{
    return group.range == launch.range && group.dynamic_local_bytes == launch.dynamic_local_bytes;
}

/// The kernel's entry in `kernels`: one looked up twice in one build is the same kernel.
ExplainedKernel* find_kernel(std::vector<ExplainedKernel>& kernels, const Kernel& kernel)
{
    const auto found = std::find_if(kernels.begin(), kernels.end(), [&](const ExplainedKernel& known) {
        return known.name == kernel.name() && known.kernel.program().same_build(kernel.program());
    });
    return found == kernels.end() ? nullptr : &*found;
}

std::size_t program_index(std::vector<ExplainedProgram>& programs, const Program& program)
{
    const auto found = std::find_if(programs.begin(), programs.end(),
                                    [&](const ExplainedProgram& known) { return known.program.same_build(program); });
    if (found != programs.end()) {
        return static_cast<std::size_t>(found - programs.begin());
    }
    ExplainedProgram explained{program, {}, std::nullopt, {}, {}, {}, std::nullopt, {}, std::nullopt, {}};
    try {
        explained.assembly = program.assembly();
    } catch (const Error& error) {
        explained.assembly_absent = error.message();
    }
    if (explained.assembly) {
        try {
            explained.mixes = entry_mixes(*explained.assembly);
        } catch (const Error& error) {
            explained.mixes_absent = "its program's code is not PTX that duet can read: " + error.message();
        }
    }
    try {
        explained.build_options = program.build_options();
    } catch (const Error& error) {
        explained.build_options_absent = error.message();
    }
    programs.push_back(std::move(explained));
    return programs.size() - 1;
}

void add_mix(ExplainedKernel& kernel, const ExplainedProgram& program)
{
    if (!program.assembly) {
        kernel.mix_absent = program.assembly_absent;
        return;
    }
    if (!program.mixes_absent.empty()) {
        kernel.mix_absent = program.mixes_absent;
        return;
    }
    const auto found = std::find_if(program.mixes.begin(), program.mixes.end(),
                                    [&](const InstructionMix& mix) { return mix.entry == kernel.name; });
    if (found != program.mixes.end()) {
        kernel.mix = *found;
        return;
    }
    try {
        kernel.mix = mix_of(*program.assembly, kernel.name); // throws, naming the entries there are
    } catch (const Error& error) {
        kernel.mix_absent = "its program's code is not PTX that duet can read: " + error.message();
    }
}

} // namespace

std::string to_string(Limiter limiter)
{
    switch (limiter) {
    case Limiter::warps:
        return "warps";
    case Limiter::blocks:
        return "blocks";
    case Limiter::registers:
        return "registers";
    case Limiter::shared_memory:
        return "shared memory";
    }
    return "unknown";
}

LaunchOccupancy model_occupancy(const DeviceProperties& device, const KernelProperties& kernel,
                                std::uint64_t threads_per_block, std::size_t dynamic_local_bytes)
{
    LaunchOccupancy result;
    if (device.type == DeviceType::cpu) {
        result.model_absent = "not applicable: work-groups run on CPU threads";
    } else if (device.compute_capability_major == 0) {
        result.model_absent = "not known: the device reports no compute capability, and the occupancy rules are "
                              "NVIDIA's by compute capability";
    } else if (const auto arch = architecture(device)) {
        result.registers_unknown = kernel.registers == 0;
        try {
            result.model = occupancy(*arch, {.threads_per_block = static_cast<unsigned>(threads_per_block),
                                             .registers_per_thread = kernel.registers,
                                             .static_shared_bytes = kernel.static_local_memory,
                                             .dynamic_shared_bytes = dynamic_local_bytes});
        } catch (const Error& error) {
            result.model_absent = "not computed: " + error.message();
        }
    } else {
        result.model_absent = "not known: compute capability " + capability_text(device) +
                              " is not in duet's architecture table (cli/model/architecture.cpp)";
    }
    return result;
}

LaunchOccupancy launch_occupancy(const Device& device, const Kernel& kernel, const KernelProperties& properties,
                                 std::uint64_t threads_per_block, std::size_t dynamic_local_bytes)
{
    auto result = model_occupancy(device.properties(), properties, threads_per_block, dynamic_local_bytes);
    try {
        result.driver = kernel.driver_occupancy(threads_per_block, dynamic_local_bytes);
    } catch (const Error& error) {
        result.driver_absent = error.message();
    }
    return result;
}

void add_sass(ExplainedProgram& program, const DeviceProperties& device, const SassTools& tools)
{
    if (!program.assembly) {
        program.sass_absent = "no PTX (the compiled code's reason above)";
    } else if (device.type != DeviceType::gpu || device.compute_capability_major == 0) {
        program.sass_absent = "the device reports no compute capability to compile for";
    } else if (tools.ptxas.empty()) {
        program.sass_absent = tools.absent;
    } else {
        try {
            program.sass = compile_sass(tools, *program.assembly, device.compute_capability_major,
                                        device.compute_capability_minor);
        } catch (const Error& error) {
            program.sass_absent = error.message();
        }
    }
}

void add_kernel_sass(ExplainedKernel& kernel, const ExplainedProgram& program, const Device& device)
{
    kernel.registers_from = kernel.properties.registers != 0 ? "the driver" : "";
    if (!program.sass) {
        kernel.sass_absent = program.sass_absent;
        return;
    }
    if (const auto* figures = program.sass->kernel(kernel.name)) {
        kernel.ptxas = *figures;
        if (kernel.properties.registers == 0 && figures->registers != 0) {
            kernel.properties.registers = figures->registers;
            kernel.registers_from = "ptxas";
            for (auto& launch : kernel.launches) {
                launch.occupancy = launch_occupancy(device, kernel.kernel, kernel.properties,
                                                    launch.threads_per_block(), launch.dynamic_local_bytes);
            }
        }
    }
    if (const auto* mix = program.sass->mix(kernel.name)) {
        kernel.sass = *mix;
    } else {
        kernel.sass_absent = !program.sass->listing_absent.empty() ? program.sass->listing_absent
                                                                   : "the listing has no function " + kernel.name;
    }
}

namespace {

/// The kernels kept_builds() keeps, each counting the other builds of its name (earlier_builds).
void keep_the_builds_the_run_used(std::vector<ExplainedKernel>& kernels, const std::vector<std::size_t>& last_launch)
{
    std::vector<Program> programs;
    std::vector<LaunchedBuild> builds;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const Program program = kernels[i].kernel.program();
        const auto index =
            static_cast<std::size_t>(std::find_if(programs.begin(), programs.end(),
                                                  [&](const Program& known) { return known.same_build(program); }) -
                                     programs.begin());
        if (index == programs.size()) {
            programs.push_back(program);
        }
        builds.push_back({kernels[i].name, index, last_launch[i]});
    }
    const std::vector<BuildKept> verdicts = kept_builds(builds);
    std::vector<ExplainedKernel> kept;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        if (verdicts[i].kept) {
            kernels[i].earlier_builds = verdicts[i].other_builds;
            kept.push_back(std::move(kernels[i]));
        }
    }
    kernels = std::move(kept);
}

} // namespace

std::vector<BuildKept> kept_builds(const std::vector<LaunchedBuild>& kernels)
{
    std::vector<BuildKept> verdicts(kernels.size());
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        for (std::size_t j = 0; j < kernels.size(); ++j) {
            if (j != i && kernels[j].name == kernels[i].name) {
                ++verdicts[i].other_builds;
                verdicts[i].kept = verdicts[i].kept && kernels[j].last_launch < kernels[i].last_launch;
            }
        }
    }
    std::vector<BuildKept> first = verdicts; // a trial is known by its own kernels' verdicts alone
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        for (std::size_t j = 0; j < kernels.size(); ++j) {
            if (!first[j].kept && kernels[j].program == kernels[i].program) {
                verdicts[i].kept = false;
            }
        }
    }
    return verdicts;
}

ExplainedRun explain(const workload::Job& job, const SassTools& tools)
{
    ExplainedRun explained{job, Status::ok, {}, {}, {}, 0};
    std::vector<LaunchRecord> launches;
    {
        const LaunchLog log(job.device);
        const auto run = workload::execute(job, false);
        explained.status = run.status;
        explained.reason = run.reason;
        launches = log.launches();
    }
    if (!explained.explained()) {
        return explained;
    }
    std::vector<std::size_t> last_launch; // of each kernel, its index among the launches
    for (std::size_t index = 0; index < launches.size(); ++index) {
        const auto& launch = launches[index];
        if (launch.kernel.name() == workload::Spacer::kernel_name) {
            ++explained.spacer_launches;
            continue;
        }
        ExplainedKernel* kernel = find_kernel(explained.kernels, launch.kernel);
        if (kernel == nullptr) {
            explained.kernels.push_back(
                {launch.kernel, launch.kernel.name(), launch.kernel.properties(), {}, 0, {}, {}, {}, {}, {}, {}, 0});
            last_launch.push_back(0);
            kernel = &explained.kernels.back();
        }
        last_launch[static_cast<std::size_t>(kernel - explained.kernels.data())] = index;
        auto group = std::find_if(kernel->launches.begin(), kernel->launches.end(),
                                  [&](const LaunchGroup& known) { return same_launch(known, launch); });
        if (group == kernel->launches.end()) {
            LaunchGroup added{launch.range, launch.dynamic_local_bytes, 0, 0, {}};
            added.occupancy = launch_occupancy(job.device, launch.kernel, kernel->properties, added.threads_per_block(),
                                               launch.dynamic_local_bytes);
            kernel->launches.push_back(std::move(added));
            group = kernel->launches.end() - 1;
        }
        ++group->count;
        group->recorded += launch.recorded ? 1 : 0;
    }
    keep_the_builds_the_run_used(explained.kernels, last_launch);
    for (auto& kernel : explained.kernels) {
        const auto known = explained.programs.size();
        kernel.program = program_index(explained.programs, kernel.kernel.program());
        auto& program = explained.programs[kernel.program];
        if (explained.programs.size() > known) {
            add_sass(program, job.device.properties(), tools);
        }
        program.kernels.push_back(kernel.name);
        add_mix(kernel, program);
        add_kernel_sass(kernel, program, job.device);
    }
    return explained;
}

namespace {

const ExplainedKernel* kernel_named(const std::vector<ExplainedKernel>& kernels, const std::string& name)
{
    const auto found = std::find_if(kernels.begin(), kernels.end(),
                                    [&](const ExplainedKernel& kernel) { return kernel.name == name; });
    return found == kernels.end() ? nullptr : &*found;
}

KernelTwin twin(const ExplainedKernel* cuda, const ExplainedKernel* opencl)
{
    KernelTwin twin;
    twin.cuda_kernel = cuda != nullptr ? cuda->name : "";
    twin.opencl_kernel = opencl != nullptr ? opencl->name : "";
    if (cuda == nullptr || opencl == nullptr) {
        twin.absent = cuda == nullptr ? "OpenCL launched " + opencl->name + ", CUDA no kernel of that name"
                                      : "CUDA launched " + cuda->name + ", OpenCL no kernel of that name";
        return twin;
    }
    twin.cuda_mix = cuda->mix;
    twin.opencl_mix = opencl->mix;
    if (cuda->sass && opencl->sass) {
        twin.cuda_sass = cuda->sass;
        twin.opencl_sass = opencl->sass;
    }
    if (!cuda->mix || !opencl->mix) {
        twin.absent = !cuda->mix ? "CUDA's mix: " + cuda->mix_absent : "OpenCL's mix: " + opencl->mix_absent;
        return twin;
    }
    twin.differences = compare_mixes(*cuda->mix, *opencl->mix);
    return twin;
}

} // namespace

std::vector<KernelTwin> pair_kernels(const std::vector<ExplainedKernel>& cuda,
                                     const std::vector<ExplainedKernel>& opencl)
{
    const auto& a = cuda;
    const auto& b = opencl;
    const auto named = kernel_named;
    const bool by_name = std::all_of(a.begin(), a.end(), [&](const auto& kernel) { return named(b, kernel.name); });
    std::vector<KernelTwin> twins;
    if (!by_name && a.size() == b.size()) {
        for (std::size_t i = 0; i < a.size(); ++i) {
            twins.push_back(twin(&a[i], &b[i]));
        }
        return twins;
    }
    for (const auto& kernel : a) {
        twins.push_back(twin(&kernel, named(b, kernel.name)));
    }
    for (const auto& kernel : b) {
        if (named(a, kernel.name) == nullptr) {
            twins.push_back(twin(nullptr, &kernel));
        }
    }
    return twins;
}

std::vector<ProgramTwin> pair_programs(const std::vector<ExplainedKernel>& cuda,
                                       const std::vector<ExplainedKernel>& opencl, const std::vector<KernelTwin>& twins)
{
    const auto program_of = [](const std::vector<ExplainedKernel>& kernels,
                               const std::string& name) -> std::optional<std::size_t> {
        const auto* kernel = kernel_named(kernels, name);
        return kernel == nullptr ? std::nullopt : std::optional(kernel->program);
    };
    std::vector<ProgramTwin> programs;
    for (const auto& twin : twins) {
        const auto a = program_of(cuda, twin.cuda_kernel);
        const auto b = program_of(opencl, twin.opencl_kernel);
        if (!a || !b) {
            continue;
        }
        auto known = std::find_if(programs.begin(), programs.end(), [&](const ProgramTwin& program) {
            return program.cuda == *a && program.opencl == *b;
        });
        if (known == programs.end()) {
            programs.push_back({*a, *b, {}});
            known = programs.end() - 1;
        }
        known->kernels.push_back(twin.cuda_kernel);
    }
    return programs;
}

std::optional<MixDifference> definitions_difference(const std::optional<std::string>& cuda_options,
                                                    const std::optional<std::string>& opencl_options)
{
    if (!cuda_options || !opencl_options) {
        return std::nullopt;
    }
    // "-DNAME=VALUE" and "-D NAME=VALUE" alike, as the preprocessor reads them: -DNAME is NAME=1,
    // and a name defined again takes its last value. Kept in the order first given.
    struct Definition {
        std::string name;
        std::string value;
        std::string spelled; ///< as given, the last time
    };
    const auto definitions = [](const std::string& options) {
        std::vector<Definition> found;
        std::istringstream words(options);
        for (std::string word; words >> word;) {
            std::string definition;
            if (word == "-D" && words >> word) {
                definition = word;
            } else if (word.starts_with("-D") && word.size() > 2) {
                definition = word.substr(2);
            } else {
                continue;
            }
            const auto equals = definition.find('=');
            Definition parsed{definition.substr(0, equals),
                              equals == std::string::npos ? "1" : definition.substr(equals + 1), definition};
            const auto known = std::find_if(found.begin(), found.end(),
                                            [&](const Definition& given) { return given.name == parsed.name; });
            if (known == found.end()) {
                found.push_back(std::move(parsed));
            } else {
                *known = std::move(parsed);
            }
        }
        return found;
    };
    const auto cuda = definitions(*cuda_options);
    const auto opencl = definitions(*opencl_options);
    // The definitions of `from` that `other` lacks or gives another value.
    const auto lacking = [](const std::vector<Definition>& from, const std::vector<Definition>& other) {
        std::string listed;
        std::uint64_t count = 0;
        for (const auto& definition : from) {
            const bool same = std::any_of(other.begin(), other.end(), [&](const Definition& given) {
                return given.name == definition.name && given.value == definition.value;
            });
            if (!same) {
                listed += (listed.empty() ? "-D" : " -D") + definition.spelled;
                ++count;
            }
        }
        return std::pair{count, listed};
    };
    const auto [cuda_count, cuda_only] = lacking(cuda, opencl);
    const auto [opencl_count, opencl_only] = lacking(opencl, cuda);
    if (cuda_count == 0 && opencl_count == 0) {
        return std::nullopt;
    }
    const auto side = [](const std::string& api, const std::string& only) {
        return api + " " + (only.empty() ? "none of its own" : only);
    };
    return MixDifference{
        "build definitions",
        cuda_count,
        opencl_count,
        "-D definitions the other build lacks",
        "the two programs were built with different definitions (" + side("CUDA", cuda_only) + "; " +
            side("OpenCL", opencl_only) +
            "): these are two versions of the kernel, so the instruction counts and the time ratio compare the "
            "versions as much as the compilers",
        "build both with the same definitions and compare again: where a tuner chose them per device, with the "
        "workload's setting that fixes the choice (matmul blocked: --set tiles=NAME), else through "
        "--options cuda=...,opencl=..."};
}

void put_definitions_first(std::vector<KernelTwin>& twins, const std::vector<ProgramTwin>& programs,
                           const std::vector<std::optional<std::string>>& cuda_options,
                           const std::vector<std::optional<std::string>>& opencl_options)
{
    for (const auto& program : programs) {
        if (program.cuda >= cuda_options.size() || program.opencl >= opencl_options.size()) {
            continue;
        }
        const auto difference = definitions_difference(cuda_options[program.cuda], opencl_options[program.opencl]);
        if (!difference) {
            continue;
        }
        for (auto& twin : twins) {
            const bool built_here =
                std::find(program.kernels.begin(), program.kernels.end(), twin.cuda_kernel) != program.kernels.end();
            if (built_here && twin.absent.empty()) {
                twin.differences.insert(twin.differences.begin(), *difference);
            }
        }
    }
}

std::vector<ExplainedPair> explained_pairs(const std::vector<ExplainedRun>& runs)
{
    std::vector<ExplainedPair> pairs;
    for (std::size_t c = 0; c < runs.size(); ++c) {
        const auto& cuda = runs[c];
        if (!cuda.explained()) {
            continue;
        }
        for (std::size_t o = 0; o < runs.size(); ++o) {
            const auto& opencl = runs[o];
            if (opencl.explained() && api_twins(cuda.job, opencl.job)) {
                auto twins = pair_kernels(cuda.kernels, opencl.kernels);
                auto programs = pair_programs(cuda.kernels, opencl.kernels, twins);
                const auto options_of = [](const ExplainedRun& run) {
                    std::vector<std::optional<std::string>> options;
                    for (const auto& program : run.programs) {
                        options.push_back(program.build_options);
                    }
                    return options;
                };
                put_definitions_first(twins, programs, options_of(cuda), options_of(opencl));
                pairs.push_back({c, o, std::move(twins), std::move(programs)});
            }
        }
    }
    return pairs;
}

} // namespace duet::cli
