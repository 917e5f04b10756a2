// Programs built once per device per test process: PoCL takes up to a second per build, so the
// suites share these instead of building the same program in every test.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <duet/duet.hpp>

namespace duet::test {

/// `source` built for `device` on first use, then reused.
const Program& cached_program(const Device& device, const ProgramSource& source);

/// A kernel of tests/kernels/test_kernels.{cl,cu}.
Kernel test_kernel(const Device& device, std::string_view name);

/// The entry points test_kernels declares.
const std::vector<std::string>& test_kernel_names();

} // namespace duet::test
