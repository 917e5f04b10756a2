// A kernel's parameters as its source declares them: enough of C to find a CUDA `__global__` or
// an OpenCL `__kernel` function and read each parameter's address space, element type, pointer
// and const, so that a port's two kernels can be checked against its manifest before a build.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace duet::workload::port {

enum class Language { cuda, opencl };

/// Where a parameter points; `value` for one passed by value (or, on OpenCL, a pointer with no
/// address space, which a kernel may not take).
enum class AddressSpace { value, global, local, constant };

struct KernelParameter {
    std::string name;
    std::string declaration; ///< as written, spaces collapsed: "__global const float* restrict x"
    AddressSpace space = AddressSpace::value;
    /// The element type under duet's names where it has one ("float", "double", "int32",
    /// "uint32", "int64", "uint64", "uint8", ...), else as written ("float4").
    std::string element;
    /// Whether `element` is a C type duet knows; not for a macro or a typedef, which the source
    /// alone cannot resolve (OpenCL's driver can: see Kernel::parameters).
    bool known_element = true;
    bool pointer = false;
    bool is_const = false; ///< for a pointer: the elements it points to are const
    std::size_t line = 0;
};

struct KernelSignature {
    std::string entry;
    std::size_t line = 0; ///< of the entry point's name
    std::vector<KernelParameter> parameters;
};

/// The signature of the kernel `entry` in `source`; nullopt when the source declares no such
/// kernel; std::invalid_argument naming the line when its parameter list cannot be read.
std::optional<KernelSignature> read_signature(const std::string& source, const std::string& entry, Language language);

/// The names of the kernels `source` declares, in order.
std::vector<std::string> kernel_names(const std::string& source, Language language);

/// duet's name of a C type spelt as `words` ("unsigned int": "uint32", "float": "float"); nullopt
/// for a name it does not know.
std::optional<std::string> element_name(std::vector<std::string> words);

/// "a global pointer to const float", "a __local pointer to float", "an int32 value".
std::string describe(const KernelParameter& parameter);

} // namespace duet::workload::port
