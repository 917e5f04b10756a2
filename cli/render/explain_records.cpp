// duet explain's JSON: every run with its kernels, launches, occupancy and programs, and every
// GPU seen through both APIs with its kernels' two mixes and their differences, under stable keys
// (null where a figure is absent, with a key beside it saying why).
#include "render/explain.hpp"

#include "model/environment.hpp"
#include "render/environment.hpp"
#include "render/records.hpp"

namespace duet::cli {

namespace {

json::Value dims_json(const Dim3& size)
{
    return json::Array{size.x, size.y, size.z};
}

json::Value occupancy_json(const LaunchOccupancy& occupancy)
{
    json::Value model;
    if (const auto& m = occupancy.model) {
        json::Array limiters;
        for (const auto limiter : m->limiters) {
            limiters.push_back(to_string(limiter));
        }
        model = json::Object{{"active_blocks", m->active_blocks},
                             {"active_warps", m->active_warps},
                             {"fraction", m->fraction},
                             {"limiters", std::move(limiters)},
                             {"blocks_by_warps", m->blocks_by_warps},
                             {"blocks_by_block_slots", m->blocks_by_block_slots},
                             {"blocks_by_registers", json::optional(m->blocks_by_registers)},
                             {"blocks_by_shared_memory", json::optional(m->blocks_by_shared_memory)},
                             {"registers_per_block", m->registers_per_block},
                             {"shared_bytes_per_block", m->shared_bytes_per_block},
                             {"shared_bytes_per_sm", m->shared_bytes_per_sm},
                             {"refusal", m->refusal}};
    }
    return json::Object{{"model", std::move(model)},
                        {"model_absent", occupancy.model_absent},
                        {"registers_unknown", occupancy.registers_unknown},
                        {"driver_blocks", json::optional(occupancy.driver)},
                        {"driver_absent", occupancy.driver_absent},
                        {"disagree", occupancy.disagree()}};
}

/// A PTX or SASS mix's groups, each its name and count.
template <class Groups> json::Array groups_json(const Groups& groups)
{
    json::Array array;
    for (const auto& group : groups) {
        array.push_back(json::Object{{"name", group.name}, {"count", group.count}});
    }
    return array;
}

json::Value mix_json(const std::optional<InstructionMix>& mix)
{
    if (!mix) {
        return json::Value();
    }
    return json::Object{{"entry", mix->entry},
                        {"total", mix->total},
                        {"groups", groups_json(mix->groups)},
                        {"functions", json::Array(mix->functions.begin(), mix->functions.end())},
                        {"unresolved", json::Array(mix->unresolved.begin(), mix->unresolved.end())}};
}

json::Value ptxas_json(const std::optional<PtxasKernel>& figures)
{
    if (!figures) {
        return json::Value();
    }
    return json::Object{{"registers", figures->registers},
                        {"stack_bytes", figures->stack_bytes},
                        {"spill_store_bytes", figures->spill_store_bytes},
                        {"spill_load_bytes", figures->spill_load_bytes},
                        {"shared_bytes", figures->shared_bytes}};
}

json::Value sass_json(const std::optional<SassMix>& mix)
{
    if (!mix) {
        return json::Value();
    }
    return json::Object{{"total", mix->total}, {"groups", groups_json(mix->groups)}};
}

json::Value kernel_json(const ExplainedKernel& kernel)
{
    json::Object properties;
    for (auto& field : kernel_fields(kernel.properties)) {
        properties.emplace_back(std::move(field.key), std::move(field.value));
    }
    json::Array launches;
    for (const auto& launch : kernel.launches) {
        launches.push_back(json::Object{{"dims", launch.range.dims},
                                        {"grid", dims_json(launch.range.grid)},
                                        {"block", dims_json(launch.range.block)},
                                        {"threads_per_block", launch.threads_per_block()},
                                        {"dynamic_local_bytes", launch.dynamic_local_bytes},
                                        {"count", launch.count},
                                        {"recorded", launch.recorded},
                                        {"occupancy", occupancy_json(launch.occupancy)}});
    }
    return json::Object{{"name", kernel.name},
                        {"properties", std::move(properties)},
                        {"launches", std::move(launches)},
                        {"program", kernel.program},
                        {"mix", mix_json(kernel.mix)},
                        {"mix_absent", kernel.mix_absent},
                        {"registers_from", kernel.registers_from},
                        {"ptxas", ptxas_json(kernel.ptxas)},
                        {"sass", sass_json(kernel.sass)},
                        {"sass_absent", kernel.sass_absent},
                        {"earlier_builds", kernel.earlier_builds}};
}

json::Value run_explained_json(const ExplainedRun& run)
{
    json::Array kernels, programs;
    for (const auto& kernel : run.kernels) {
        kernels.push_back(kernel_json(kernel));
    }
    for (const auto& program : run.programs) {
        programs.push_back(
            json::Object{{"kernels", json::Array(program.kernels.begin(), program.kernels.end())},
                         {"assembly", json::optional(program.assembly)},
                         {"assembly_absent", program.assembly_absent},
                         {"build_options", json::optional(program.build_options)},
                         {"build_options_absent", program.build_options_absent},
                         {"sass_architecture", program.sass ? json::Value(program.sass->architecture) : json::Value()},
                         {"ptxas_version", program.sass ? json::Value(program.sass->ptxas_version) : json::Value()},
                         {"sass_absent", program.sass_absent}});
    }
    const auto& device = run.job.device.properties();
    return json::Object{{"workload", run.job.info.name},
                        {"variant", run.job.variant},
                        {"settings", settings_json(run.job.info, run.job.settings.values())},
                        {"device", run.job.label},
                        {"device_name", device.name},
                        {"api", api_label(run.job.device)},
                        {"pci_bus_id", device.pci_bus_id.empty() ? json::Value() : json::Value(device.pci_bus_id)},
                        {"status", to_string(run.status)},
                        {"reason", run.reason},
                        {"kernels", std::move(kernels)},
                        {"programs", std::move(programs)},
                        {"spacer_launches", run.spacer_launches}};
}

json::Value pair_explained_json(const ExplainedPair& pair, const std::vector<ExplainedRun>& runs)
{
    json::Array kernels;
    for (const auto& twin : pair.kernels) {
        json::Array differences;
        for (const auto& difference : twin.differences) {
            differences.push_back(json::Object{{"aspect", difference.aspect},
                                               {"cuda", difference.cuda},
                                               {"opencl", difference.opencl},
                                               {"counted", difference.counted},
                                               {"hypothesis", difference.hypothesis},
                                               {"test", difference.test}});
        }
        kernels.push_back(json::Object{{"cuda_kernel", twin.cuda_kernel},
                                       {"opencl_kernel", twin.opencl_kernel},
                                       {"cuda_mix", mix_json(twin.cuda_mix)},
                                       {"opencl_mix", mix_json(twin.opencl_mix)},
                                       {"absent", twin.absent},
                                       {"differences", std::move(differences)},
                                       {"cuda_sass", sass_json(twin.cuda_sass)},
                                       {"opencl_sass", sass_json(twin.opencl_sass)}});
    }
    const auto& cuda = runs.at(pair.cuda);
    const auto& opencl = runs.at(pair.opencl);
    json::Array programs;
    for (const auto& program : pair.programs) {
        programs.push_back(
            json::Object{{"kernels", json::Array(program.kernels.begin(), program.kernels.end())},
                         {"cuda_program", program.cuda},
                         {"opencl_program", program.opencl},
                         {"cuda_build_options", json::optional(cuda.programs.at(program.cuda).build_options)},
                         {"opencl_build_options", json::optional(opencl.programs.at(program.opencl).build_options)}});
    }
    return json::Object{{"workload", cuda.job.info.name},
                        {"variant", cuda.job.variant},
                        {"pci_bus_id", cuda.job.device.properties().pci_bus_id},
                        {"cuda_run", pair.cuda},
                        {"opencl_run", pair.opencl},
                        {"cuda", cuda.job.label},
                        {"opencl", opencl.job.label},
                        {"kernels", std::move(kernels)},
                        {"programs", std::move(programs)}};
}

} // namespace

json::Value explain_json(const std::vector<ExplainedRun>& runs, const std::vector<ExplainedPair>& pairs,
                         std::uint64_t seed)
{
    json::Array run_records, pair_records;
    for (const auto& run : runs) {
        run_records.push_back(run_explained_json(run));
    }
    for (const auto& pair : pairs) {
        pair_records.push_back(pair_explained_json(pair, runs));
    }
    return json::Object{{"schema", "duet.explain/1"},
                        {"environment", environment_json(Registry::global())},
                        {"seed", seed},
                        {"runs", std::move(run_records)},
                        {"pairs", std::move(pair_records)}};
}

} // namespace duet::cli
