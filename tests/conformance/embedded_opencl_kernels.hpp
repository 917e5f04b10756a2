// Every OpenCL C program the build embeds (from DUET_OPENCL_KERNELS), embedded once more into the
// conformance tests so that a test can build each on every OpenCL device. The list is generated.
#pragma once

#include <string>
#include <vector>

#include <duet/program.hpp>

namespace duet::test {

struct EmbeddedProgram {
    std::string name; ///< the NAME given to duet_embed_kernels
    std::string path; ///< the .cl file it came from
    const ProgramSource& (*source)();
};

const std::vector<EmbeddedProgram>& embedded_opencl_programs();

} // namespace duet::test
