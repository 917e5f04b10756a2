// Programs built once per device per test process: PoCL takes up to a second per build, so the
// suites share these instead of building the same program in every test.
#pragma once

#include <cstdint>
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

/// A program in both languages: one kernel, `name`, that writes `body` (an int expression) to out[0].
struct TwoLanguageSource {
    std::string opencl;
    std::string cuda;
    ProgramSource source;

    TwoLanguageSource(const std::string& name, const std::string& prologue, const std::string& body);
    TwoLanguageSource(const TwoLanguageSource&) = delete;
};

/// Runs the one-int kernel `name` of `program` (a TwoLanguageSource's) on `queue` and returns what it wrote.
std::int32_t run_int(Queue& queue, const Program& program, const std::string& name);

/// A comment no earlier build has seen, so no cache (memory or disk) can answer for a program holding it.
std::string nonce();

} // namespace duet::test
