// The machine code a program's PTX becomes, where the CUDA toolkit is on PATH: the toolkit's ptxas
// compiles the PTX for the device's architecture (as the driver's JIT does for NVIDIA's OpenCL, and
// nvcc did for a fatbin), `ptxas -v` says each kernel's registers, stack and spills, and cuobjdump
// (else nvdisasm) lists the SASS, counted here per kernel in groups a GPU programmer reads at a glance.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/ptx.hpp"

namespace duet::cli {

/// The toolkit's tools found on a PATH.
struct SassTools {
    std::filesystem::path ptxas;
    std::filesystem::path disassembler; ///< cuobjdump, else nvdisasm; empty where neither
    std::string ptxas_version;          ///< "V13.0.88", from `ptxas --version`
    std::string absent;                 ///< what is missing: "ptxas/cuobjdump not on PATH"; empty when both
};

/// ptxas and cuobjdump (else nvdisasm) in the directories of `path` (a PATH value), and ptxas's
/// version; what is missing said in `absent`.
SassTools find_sass_tools(std::string_view path);

/// What `ptxas -v` says of one kernel.
struct PtxasKernel {
    std::string name;
    unsigned registers = 0;
    std::uint64_t stack_bytes = 0;
    std::uint64_t spill_store_bytes = 0;
    std::uint64_t spill_load_bytes = 0;
    std::uint64_t shared_bytes = 0; ///< static shared memory ("bytes smem")
};

/// Each entry function's figures in a `ptxas -v` log, in the order compiled.
std::vector<PtxasKernel> ptxas_kernels(std::string_view log);

/// The SASS of one function, counted by opcode group (NOP padding left out).
struct SassMix {
    std::string function;
    std::vector<MixGroup> groups; ///< those with an instruction, always in the same order
    std::uint64_t total = 0;

    /// The count of the group named `name`; 0 where the function has none.
    std::uint64_t count(std::string_view name) const;
};

/// A group of SASS instructions, and its place in the groups' fixed order.
struct SassGroup {
    std::string name; ///< "global load (LDG) 128-bit .CONSTANT"
    unsigned rank = 0;
};

/// The group of one SASS instruction ("LDG.E.128.CONSTANT R4, desc[UR4][R2.64]", a predicate
/// before it or not); nullopt for a NOP, which pads the code.
std::optional<SassGroup> sass_group(std::string_view instruction);

/// Every function's mix in a listing cuobjdump -sass or nvdisasm wrote ("Function : name", or a
/// ".text.name:" label, before its instructions).
std::vector<SassMix> sass_mixes(std::string_view listing);

/// A program's PTX compiled by the toolkit's ptxas: its figures and its SASS.
struct ProgramSass {
    std::string architecture; ///< "sm_90"
    std::string ptxas_version;
    std::vector<PtxasKernel> kernels;
    std::string listing;        ///< the disassembler's, empty where there is none
    std::string listing_absent; ///< why there is no listing (no disassembler, or its failure)
    std::vector<SassMix> mixes;

    const PtxasKernel* kernel(std::string_view name) const;
    const SassMix* mix(std::string_view function) const;
};

/// Compiles `ptx` with `ptxas -arch=sm_<major><minor> -v` and disassembles the cubin, each tool
/// limited to `limit`, in a private temporary folder removed after. Throws duet::Error naming the
/// tool and what it said where ptxas fails or a tool outruns the limit.
ProgramSass compile_sass(const SassTools& tools, std::string_view ptx, unsigned major, unsigned minor,
                         std::chrono::seconds limit = std::chrono::seconds(60));

} // namespace duet::cli
