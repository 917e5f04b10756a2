// A device of one backend: its properties under common names, and the factory for everything
// that lives on it (queues, buffers, host memory, programs).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <duet/buffer.hpp>
#include <duet/host_memory.hpp>

namespace duet {

class Queue;
class Program;
struct ProgramSource;
struct BuildOptions;

namespace detail {
struct DeviceState;
}

enum class DeviceType { other, gpu, cpu, accelerator };

/// "gpu", "cpu", "accelerator", "other": also the words device selectors take.
std::string_view to_string(DeviceType type);

/// How a copy between two devices of one backend travels (Queue::copy_bytes).
enum class PeerRoute {
    direct, ///< one device reaches the other's memory: CUDA peer access (cuMemcpyPeerAsync)
    staged  ///< through pinned host memory in chunks, the device-to-host and host-to-device legs overlapping
};

/// "direct", "staged"
std::string_view to_string(PeerRoute route);

/// deviceQuery and clinfo under one set of names. Zero means "not known on this backend".
struct DeviceProperties {
    std::string name;
    std::string vendor;
    std::string driver_version;
    std::string platform;    ///< OpenCL platform name; "CUDA" on CUDA
    std::string api_version; ///< CL_DEVICE_VERSION, or the CUDA driver version
    DeviceType type = DeviceType::other;
    std::uint32_t compute_units = 0;  ///< CL_DEVICE_MAX_COMPUTE_UNITS / multiprocessor count
    std::uint64_t max_block_size = 0; ///< CL_DEVICE_MAX_WORK_GROUP_SIZE / maxThreadsPerBlock
    std::array<std::uint64_t, 3> max_block_dims{};
    std::array<std::uint64_t, 3> max_grid_dims{};
    std::uint32_t warp_width = 0;             ///< warp size / CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
    std::uint64_t local_memory_per_block = 0; ///< shared / __local memory per block
    std::uint64_t local_memory_per_block_optin = 0;
    std::uint64_t global_memory = 0;
    std::uint64_t max_allocation = 0; ///< CL_DEVICE_MAX_MEM_ALLOC_SIZE; total memory on CUDA
    std::uint64_t l2_cache = 0;
    std::uint32_t clock_mhz = 0;
    std::uint32_t compute_capability_major = 0;
    std::uint32_t compute_capability_minor = 0;
    std::uint32_t opencl_version_major = 0;
    std::uint32_t opencl_version_minor = 0;
    std::uint32_t base_address_alignment = 0; ///< bytes; pitched rows are padded to it
    std::uint32_t copy_engines = 0;
    bool can_map_host_memory = false;
    bool unified_addressing = false;
    bool integrated = false;
    bool ecc = false;
    std::uint32_t registers_per_block = 0;
    std::uint32_t max_threads_per_multiprocessor = 0;
    std::uint32_t memory_bus_width_bits = 0;
    std::uint32_t memory_clock_mhz = 0;
    /// "0000:1b:00.0" (domain:bus:device.function): equal for one GPU seen through CUDA and
    /// through NVIDIA's OpenCL; empty where the backend cannot tell.
    std::string pci_bus_id;

    /// Peak device-memory bandwidth in GB/s (1e9 bytes/s) from the bus width and the memory clock,
    /// counting two transfers per clock as DDR and HBM make; 0 where either is unknown.
    double theoretical_bandwidth_gbps() const
    {
        return 2.0 * memory_clock_mhz * 1e6 * (memory_bus_width_bits / 8) / 1e9;
    }

    /// Every property the backend reports, under its own names (CL_DEVICE_*, CU_DEVICE_ATTRIBUTE_*).
    std::vector<std::pair<std::string, std::string>> raw;
};

struct NativeDevice {
    void* device;  ///< cl_device_id, or CUdevice widened to a pointer
    void* context; ///< cl_context, or the primary CUcontext
};

/// Threads: every method may be called from several threads at once (creating queues, allocating,
/// building: builds for one device take turns, and a program built by several threads at once is
/// built once and shared).
class Device {
public:
    explicit Device(std::shared_ptr<const detail::DeviceState> state);

    const DeviceProperties& properties() const;
    const std::string& backend() const;
    std::uint32_t index() const;  ///< position within its backend
    std::string selector() const; ///< "opencl:0", accepted by Registry::select and DUET_DEVICE

    /// How a copy from `from`'s memory to this device goes when issued on this device's queue:
    /// direct where this device can access `from`'s memory (cuDeviceCanAccessPeer; never on
    /// OpenCL, whose devices each have a context of their own), else staged; direct for this
    /// device itself. InvalidArgument for a device of another backend.
    PeerRoute peer_route(const Device& from) const;

    /// An in-order queue (cl_command_queue with profiling / CUstream).
    Queue create_queue() const;

    /// Device memory (clCreateBuffer / cuMemAlloc). Fails with OutOfMemory past the largest
    /// allocation, or when the device's live buffers would total more than its global memory.
    RawBuffer alloc_bytes(std::size_t bytes) const;
    template <class T> Buffer<T> alloc(std::size_t count) const
    {
        return Buffer<T>(alloc_bytes(checked_bytes(count, sizeof(T))));
    }

    /// Rows padded to a pitch the backend chooses (cuMemAllocPitch; on OpenCL the row rounded up
    /// to CL_DEVICE_MEM_BASE_ADDR_ALIGN). A 3D volume is depth × height rows.
    template <class T>
    PitchedBuffer<T> alloc_pitched(std::size_t width, std::size_t height, std::size_t depth = 1) const
    {
        auto [raw, pitch] = alloc_pitched_bytes(checked_bytes(width, sizeof(T)), checked_bytes(height, depth));
        return PitchedBuffer<T>(std::move(raw), pitch, width, height, depth);
    }

    /// Host memory of the given kind; a kind the backend cannot give throws Unsupported, memory the
    /// machine cannot give throws OutOfMemory.
    HostBuffer alloc_host(std::size_t bytes, HostMemoryKind kind) const;
    /// Page-locks existing host memory for this device (cuMemHostRegister / CL_MEM_USE_HOST_PTR).
    HostBuffer register_host(void* pointer, std::size_t bytes) const;

    /// Builds (or fetches from the cache) the program for this device, with the flags of a
    /// BuildOptionsScope of this device after its own options.
    Program build(const ProgramSource& source) const;
    Program build(const ProgramSource& source, const BuildOptions& options) const;

    NativeDevice native() const;

    const std::shared_ptr<const detail::DeviceState>& state() const { return state_; }
    friend bool operator==(const Device& a, const Device& b) { return a.state_ == b.state_; }

private:
    std::pair<RawBuffer, std::size_t> alloc_pitched_bytes(std::size_t width_bytes, std::size_t rows) const;
    std::size_t checked_bytes(std::size_t count, std::size_t size) const;

    std::shared_ptr<const detail::DeviceState> state_;
};

} // namespace duet
