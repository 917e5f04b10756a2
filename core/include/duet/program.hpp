// Programs and kernels: built from the sources and binaries an algorithm embeds, with options
// and -D defines, cached in memory and on disk; kernels looked up by name.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace duet {

class Device;

namespace detail {
struct ProgramState;
struct KernelState;
} // namespace detail

enum class ProgramFormat : std::uint32_t {
    opencl_c = 1, ///< OpenCL C source (clCreateProgramWithSource)
    cuda_c = 2,   ///< CUDA C++ source, compiled at run time by NVRTC
    fatbin = 3,   ///< CUDA fatbin with SASS and PTX (cuModuleLoadData)
    native = 4,   ///< a device-specific binary returned by Program::binary()
    ptx = 5       ///< the PTX nvcc compiled a fatbin from: never built, kept to be read (Program::assembly)
};

std::string_view to_string(ProgramFormat format);

struct ProgramImage {
    ProgramFormat format;
    std::string_view data;
    std::string_view compiled_with{}; ///< a fatbin's and its PTX's: nvcc's options at duet's build
};

/// One program in every form it ships; a device builds the first form its backend takes.
/// duet_embed_kernels() in CMake generates these from .cl and .cu files.
struct ProgramSource {
    std::string name;
    std::vector<ProgramImage> images;
};

struct BuildOptions {
    std::string flags;                                        ///< passed to the compiler as given
    std::vector<std::pair<std::string, std::string>> defines; ///< -D name=value
    std::vector<std::filesystem::path> include_dirs;          ///< -I dir; included headers join the cache key
    bool use_cache = true; ///< also off for every build when DUET_CACHE=off; see duet/cache.hpp
};

/// Dynamic local memory for a launch: a __local pointer argument on OpenCL, the launch's dynamic
/// shared memory size on CUDA (where it is not a kernel parameter). At most one per launch.
struct LocalMemory {
    std::size_t bytes;
};

/// How a kernel would like on-chip memory split between L1 cache and shared memory.
enum class CachePreference { none, prefer_shared, prefer_l1, equal };

/// A kernel parameter as the driver reports it.
struct KernelParameterInfo {
    enum class Address { global, local, constant, private_ } address; ///< private_: passed by value
    std::string type_name;                                            ///< as the driver spells it: "float*", "uint"
};

/// What sets a kernel's largest block on its device.
enum class BlockLimit {
    device,    ///< nothing beyond the device's own maximum
    declared,  ///< the kernel's declaration (reqd_work_group_size, __launch_bounds__): a larger block is the caller's
               ///< error
    registers, ///< its registers a work-item times the block would exceed the device's register file
    driver     ///< the driver's figure (CL_KERNEL_WORK_GROUP_SIZE), with no cause given
};

std::string_view to_string(BlockLimit limit);

/// One kernel on its device. Zero where the backend does not know.
struct KernelProperties {
    std::uint64_t max_block_size = 0; ///< the most work-items a block of this kernel can have on this device
    BlockLimit max_block_limit = BlockLimit::device; ///< what sets max_block_size
    std::array<std::uint64_t, 3> required_block{};   ///< reqd_work_group_size; zeros when none is declared
    std::uint64_t static_local_memory = 0;           ///< CL_KERNEL_LOCAL_MEM_SIZE / CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
    std::uint64_t private_memory = 0;                ///< bytes a work-item, spills and stack
    std::uint32_t registers = 0;                     ///< a work-item; on OpenCL only NVIDIA's compiler says
    /// What the API's own query answers (CL_KERNEL_WORK_GROUP_SIZE / CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK):
    /// on NVIDIA's OpenCL, 256 for every kernel, which its launches do not keep to.
    std::uint64_t driver_max_block_size = 0;
};

/// Threads: a kernel may be launched from several threads and queues at once, each launch with
/// its own arguments (OpenCL keeps arguments in the kernel object, so the backend sets them and
/// enqueues under a lock of the kernel's own).
class Program;

class Kernel {
public:
    Kernel() = default;
    explicit Kernel(std::shared_ptr<const detail::KernelState> state) : state_(std::move(state)) {}

    const std::string& name() const;
    /// The program it was looked up in (its assembly, its device).
    Program program() const;
    /// Its limits and resources on its device, read once when the kernel was looked up.
    const KernelProperties& properties() const;
    /// A hint for this kernel's later launches (cuFuncSetCacheConfig). OpenCL has no such control
    /// and throws Unsupported.
    void set_cache_preference(CachePreference preference) const;
    /// The blocks of `block_threads` with `dynamic_local` bytes of dynamic local memory each that one
    /// multiprocessor holds at once, as the driver computes it (CUDA's
    /// cuOccupancyMaxActiveBlocksPerMultiprocessor). OpenCL has no such query and throws Unsupported.
    unsigned driver_occupancy(std::size_t block_threads, std::size_t dynamic_local) const;
    /// Each parameter as the driver reports it (OpenCL's clGetKernelArgInfo), in order. Unsupported
    /// where it does not say: CUDA, or an OpenCL driver that kept no argument info.
    std::vector<KernelParameterInfo> parameters() const;

    const std::shared_ptr<const detail::KernelState>& state() const { return state_; }

private:
    std::shared_ptr<const detail::KernelState> state_;
};

/// Threads: a program's kernels may be looked up from several threads at once.
class Program {
public:
    Program() = default;
    explicit Program(std::shared_ptr<const detail::ProgramState> state) : state_(std::move(state)) {}

    /// clCreateKernel / cuModuleGetFunction; an unknown name throws NotFound listing the names.
    Kernel kernel(std::string_view name) const;
    std::vector<std::string> kernel_names() const;
    /// Whether the program has a kernel of that name: a source may leave kernels out for what the
    /// device's compiler lacks (#ifdef cl_khr_fp64, cl_khr_subgroups).
    bool has_kernel(std::string_view name) const;
    /// The built binary (an OpenCL program binary, a CUDA cubin), loadable as ProgramFormat::native.
    std::string binary() const;
    /// The compiled code as text a programmer reads: PTX on CUDA (NVRTC's, or what nvcc compiled a
    /// fatbin from where the source ships it) and on NVIDIA's OpenCL. Unsupported, saying why, where
    /// the driver keeps none (PoCL).
    std::string assembly() const;
    /// The options the compiler was given for this program, the backend's own included: NVRTC's,
    /// clBuildProgram's, or nvcc's at duet's build for a fatbin.
    std::string build_options() const;
    Device device() const;
    /// Whether both hold the same build: Device::build serves a program it built before from its
    /// in-memory cache.
    bool same_build(const Program& other) const;

    const std::shared_ptr<const detail::ProgramState>& state() const { return state_; }

private:
    std::shared_ptr<const detail::ProgramState> state_;
};

} // namespace duet
