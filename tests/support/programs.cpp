#include "programs.hpp"

#include "checks.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>

#include <duet_kernels/test_kernels.hpp>

namespace duet::test {

const Program& cached_program(const Device& device, const ProgramSource& source)
{
    static std::map<std::pair<const void*, const void*>, Program> programs;
    const auto key = std::make_pair(static_cast<const void*>(device.state().get()), static_cast<const void*>(&source));
    auto found = programs.find(key);
    if (found == programs.end()) {
        found = programs.emplace(key, device.build(source)).first;
    }
    return found->second;
}

Kernel test_kernel(const Device& device, std::string_view name)
{
    return cached_program(device, kernels::test_kernels()).kernel(name);
}

const std::vector<std::string>& test_kernel_names()
{
    static const std::vector<std::string> names{"fill_value",   "scale",          "scalars",  "reduce_sum",
                                                "static_local", "spin",           "index_3d", "pitched_scale",
                                                "fixed_block",  "register_heavy", "add_value"};
    return names;
}

TwoLanguageSource::TwoLanguageSource(const std::string& name, const std::string& prologue, const std::string& body)
    : opencl(prologue + "__kernel void " + name + "(__global int* out) { out[0] = " + body + "; }\n"),
      cuda(prologue + "extern \"C\" __global__ void " + name + "(int* out) { out[0] = " + body + "; }\n"),
      source{name, {{ProgramFormat::opencl_c, opencl}, {ProgramFormat::cuda_c, cuda}}}
{
}

std::int32_t run_int(Queue& queue, const Program& program, const std::string& name)
{
    Buffer<std::int32_t> out = make_buffer(program.device(), queue, std::vector<std::int32_t>{-12345});
    queue.launch(program.kernel(name), Range::grid_block(1, 1), out);
    return download(queue, out).at(0);
}

std::string nonce()
{
    static std::mt19937_64 engine(
        std::random_device{}() ^
        static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
    return "// nonce " + std::to_string(engine()) + "\n";
}

} // namespace duet::test
