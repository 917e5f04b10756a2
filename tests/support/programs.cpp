#include "programs.hpp"

#include <map>
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

} // namespace duet::test
