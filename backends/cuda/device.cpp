// Loading the driver, discovering devices, and their properties: under duet's common names and,
// deviceQuery-like, as every CU_DEVICE_ATTRIBUTE_* the driver reports.
#include "common.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <utility>

namespace duet::backend::cuda {
namespace {

/// The devices and version of every backend, and the driver's functions.
struct Backend : BackendState<duet_device_s> {
    Driver driver;
};

Backend& backend()
{
    return process_state<Backend>();
}

/// dlopen's libcuda.so.1 and resolves every function of DUET_CUDA_DRIVER_FUNCTIONS.
Driver load_driver()
{
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr)
        fail(DUET_ERROR_UNAVAILABLE,
             std::string("libcuda.so.1 not found: no NVIDIA driver on this machine (") + dlerror() + ")", "dlopen");
    using GetProcAddress = CUresult(CUDAAPI*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
    const auto get_proc_address = reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
    if (get_proc_address == nullptr)
        fail(DUET_ERROR_UNAVAILABLE,
             "the NVIDIA driver is too old: libcuda.so.1 has no cuGetProcAddress_v2 (CUDA 12 or newer is needed)",
             "dlsym");

    Driver loaded;
    const auto resolve = [&](const char* symbol, void** pointer) {
        CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
        const CUresult code = get_proc_address(symbol, pointer, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found);
        if (code != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || *pointer == nullptr)
            fail(DUET_ERROR_UNAVAILABLE,
                 std::string("the NVIDIA driver lacks ") + symbol + " for CUDA " + std::to_string(CUDA_VERSION / 1000) +
                     "." + std::to_string(CUDA_VERSION % 1000 / 10) +
                     (found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                          ? ": the driver is older than the toolkit duet was built with"
                          : ""),
                 "cuGetProcAddress", code);
    };
#define DUET_RESOLVE(name) resolve(#name, reinterpret_cast<void**>(&loaded.name));
    DUET_CUDA_DRIVER_FUNCTIONS(DUET_RESOLVE)
#undef DUET_RESOLVE
    return loaded;
}

/// The attributes listed in device_raw_properties, under their enum names.
constexpr std::pair<CUdevice_attribute, const char*> listed_attributes[] = {
#define DUET_ATTRIBUTE(name)                                                                                           \
    {                                                                                                                  \
        CU_DEVICE_ATTRIBUTE_##name, "CU_DEVICE_ATTRIBUTE_" #name                                                       \
    }
    DUET_ATTRIBUTE(COMPUTE_CAPABILITY_MAJOR),
    DUET_ATTRIBUTE(COMPUTE_CAPABILITY_MINOR),
    DUET_ATTRIBUTE(MULTIPROCESSOR_COUNT),
    DUET_ATTRIBUTE(MAX_THREADS_PER_BLOCK),
    DUET_ATTRIBUTE(MAX_BLOCK_DIM_X),
    DUET_ATTRIBUTE(MAX_BLOCK_DIM_Y),
    DUET_ATTRIBUTE(MAX_BLOCK_DIM_Z),
    DUET_ATTRIBUTE(MAX_GRID_DIM_X),
    DUET_ATTRIBUTE(MAX_GRID_DIM_Y),
    DUET_ATTRIBUTE(MAX_GRID_DIM_Z),
    DUET_ATTRIBUTE(WARP_SIZE),
    DUET_ATTRIBUTE(MAX_SHARED_MEMORY_PER_BLOCK),
    DUET_ATTRIBUTE(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
    DUET_ATTRIBUTE(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
    DUET_ATTRIBUTE(MAX_REGISTERS_PER_BLOCK),
    DUET_ATTRIBUTE(MAX_REGISTERS_PER_MULTIPROCESSOR),
    DUET_ATTRIBUTE(MAX_THREADS_PER_MULTIPROCESSOR),
    DUET_ATTRIBUTE(MAX_BLOCKS_PER_MULTIPROCESSOR),
    DUET_ATTRIBUTE(TOTAL_CONSTANT_MEMORY),
    DUET_ATTRIBUTE(L2_CACHE_SIZE),
    DUET_ATTRIBUTE(MAX_PERSISTING_L2_CACHE_SIZE),
    DUET_ATTRIBUTE(CLOCK_RATE),
    DUET_ATTRIBUTE(MEMORY_CLOCK_RATE),
    DUET_ATTRIBUTE(GLOBAL_MEMORY_BUS_WIDTH),
    DUET_ATTRIBUTE(ASYNC_ENGINE_COUNT),
    DUET_ATTRIBUTE(UNIFIED_ADDRESSING),
    DUET_ATTRIBUTE(CAN_MAP_HOST_MEMORY),
    DUET_ATTRIBUTE(INTEGRATED),
    DUET_ATTRIBUTE(ECC_ENABLED),
    DUET_ATTRIBUTE(TEXTURE_PITCH_ALIGNMENT),
    DUET_ATTRIBUTE(CONCURRENT_KERNELS),
    DUET_ATTRIBUTE(CONCURRENT_MANAGED_ACCESS),
    DUET_ATTRIBUTE(MANAGED_MEMORY),
    DUET_ATTRIBUTE(PAGEABLE_MEMORY_ACCESS),
    DUET_ATTRIBUTE(COOPERATIVE_LAUNCH),
    DUET_ATTRIBUTE(PCI_BUS_ID),
    DUET_ATTRIBUTE(PCI_DEVICE_ID),
    DUET_ATTRIBUTE(PCI_DOMAIN_ID),
    DUET_ATTRIBUTE(COMPUTE_MODE),
    DUET_ATTRIBUTE(TCC_DRIVER),
    DUET_ATTRIBUTE(GLOBAL_L1_CACHE_SUPPORTED),
    DUET_ATTRIBUTE(LOCAL_L1_CACHE_SUPPORTED),
    DUET_ATTRIBUTE(STREAM_PRIORITIES_SUPPORTED),
    DUET_ATTRIBUTE(MEMORY_POOLS_SUPPORTED),
    DUET_ATTRIBUTE(CLUSTER_LAUNCH),
    DUET_ATTRIBUTE(HOST_REGISTER_SUPPORTED),
#undef DUET_ATTRIBUTE
};

std::string version_text(int version)
{
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

} // namespace

int attribute(const duet_device_s& device, CUdevice_attribute which)
{
    int value = 0;
    check(driver().cuDeviceGetAttribute(&value, which, device.device), "cuDeviceGetAttribute");
    return value;
}

BackendState<duet_device_s>& state()
{
    return backend();
}

const Driver& driver()
{
    return backend().driver;
}

duet_status initialize()
{
    return guard([&] {
        Backend& state = backend();
        std::lock_guard lock(state.init_mutex);
        if (state.ready.load(std::memory_order_relaxed))
            return;
        state.driver = load_driver();
        const Driver& cu = state.driver;
        const CUresult init = cu.cuInit(0);
        if (init == CUDA_ERROR_NO_DEVICE)
            fail(DUET_ERROR_UNAVAILABLE, "the NVIDIA driver is installed but sees no CUDA device", "cuInit", init,
                 error_name(init));
        check(init, "cuInit");
        check(cu.cuDriverGetVersion(&state.driver.version), "cuDriverGetVersion");
        if (state.driver.version < CUDA_VERSION)
            fail(DUET_ERROR_UNAVAILABLE,
                 "the NVIDIA driver supports CUDA " + version_text(state.driver.version) + ", older than the CUDA " +
                     version_text(CUDA_VERSION) + " toolkit duet was built with",
                 "cuDriverGetVersion");
        int count = 0;
        check(cu.cuDeviceGetCount(&count), "cuDeviceGetCount");
        if (count == 0)
            fail(DUET_ERROR_UNAVAILABLE, "the NVIDIA driver found no CUDA device", "cuDeviceGetCount");
        for (int i = 0; i < count; ++i) {
            auto device = std::make_unique<duet_device_s>();
            check(cu.cuDeviceGet(&device->device, i), "cuDeviceGet");
            char name[256] = {};
            check(cu.cuDeviceGetName(name, sizeof(name), device->device), "cuDeviceGetName");
            device->name = name;
            check(cu.cuDevicePrimaryCtxRetain(&device->context, device->device), "cuDevicePrimaryCtxRetain");
            device->compute_major = attribute(*device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
            device->compute_minor = attribute(*device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
            state.devices.push_back(std::move(device));
        }
        const std::string compiler = nvrtc_version();
        state.version = "CUDA driver " + version_text(state.driver.version) + ", built with CUDA " +
                        version_text(CUDA_VERSION) + (compiler.empty() ? ", no NVRTC" : ", " + compiler);
        state.ready.store(true, std::memory_order_release);
    });
}

duet_status device_properties(duet_device device, duet_device_properties* properties)
{
    return guard([&] {
        const auto& d = *device;
        duet_device_properties p{};
        const auto at = [&](CUdevice_attribute which) { return attribute(d, which); };
        copy_text(p.name, d.name);
        copy_text(p.vendor, "NVIDIA Corporation");
        copy_text(p.driver_version, version_text(driver().version));
        copy_text(p.platform, "CUDA");
        copy_text(p.api_version, "CUDA " + version_text(driver().version));
        p.type = DUET_DEVICE_GPU;
        p.compute_units = at(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
        p.max_block_size = at(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
        p.max_block_dims[0] = at(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
        p.max_block_dims[1] = at(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
        p.max_block_dims[2] = at(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
        p.max_grid_dims[0] = at(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
        p.max_grid_dims[1] = at(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
        p.max_grid_dims[2] = at(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
        p.warp_width = at(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
        p.local_memory_per_block = at(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
        p.local_memory_per_block_optin = at(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
        std::size_t total = 0;
        check(driver().cuDeviceTotalMem(&total, d.device), "cuDeviceTotalMem");
        p.global_memory = total;
        p.max_allocation = total;
        p.l2_cache = at(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
        p.clock_mhz = at(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
        p.compute_capability_major = d.compute_major;
        p.compute_capability_minor = d.compute_minor;
        p.base_address_alignment = at(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
        p.copy_engines = at(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
        p.can_map_host_memory = at(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
        p.unified_addressing = at(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
        p.integrated = at(CU_DEVICE_ATTRIBUTE_INTEGRATED);
        p.ecc = at(CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
        p.registers_per_block = at(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
        p.max_threads_per_multiprocessor = at(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
        p.memory_bus_width_bits = at(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
        p.memory_clock_mhz = at(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000;
        // Re-printed in the OpenCL backend's format, so one GPU reads the same through both APIs.
        char bus_id[32] = {};
        check(driver().cuDeviceGetPCIBusId(bus_id, sizeof(bus_id), d.device), "cuDeviceGetPCIBusId");
        unsigned domain = 0, bus = 0, slot = 0, function = 0;
        if (std::sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &slot, &function) == 4) {
            std::snprintf(bus_id, sizeof(bus_id), "%04x:%02x:%02x.%x", domain, bus, slot, function);
            copy_text(p.pci_bus_id, bus_id);
        }
        write_sized(properties, p);
    });
}

duet_status device_raw_properties(duet_device device, duet_property_sink sink, void* context)
{
    return guard([&] {
        for (const auto& [which, name] : listed_attributes) {
            int value = 0;
            // Attributes newer than the driver answer CUDA_ERROR_INVALID_VALUE; leave them out.
            if (driver().cuDeviceGetAttribute(&value, which, device->device) == CUDA_SUCCESS)
                sink(context, name, std::to_string(value).c_str());
        }
        char bus_id[32] = {};
        if (driver().cuDeviceGetPCIBusId(bus_id, sizeof(bus_id), device->device) == CUDA_SUCCESS)
            sink(context, "PCI bus id", bus_id);
        std::size_t total = 0;
        check(driver().cuDeviceTotalMem(&total, device->device), "cuDeviceTotalMem");
        sink(context, "cuDeviceTotalMem", std::to_string(total).c_str());
        sink(context, "cuDriverGetVersion", std::to_string(driver().version).c_str());
    });
}

duet_status device_native(duet_device device, void** native_device, void** native_context)
{
    return guard([&] {
        *native_device = reinterpret_cast<void*>(static_cast<std::intptr_t>(device->device));
        *native_context = device->context;
    });
}

duet_status device_peer_access(duet_device from, duet_device to, int* possible)
{
    return guard([&] {
        // A device reaches its own memory; the driver answers 0 for a device paired with itself.
        if (from == to) {
            *possible = 1;
            return;
        }
        check(driver().cuDeviceCanAccessPeer(possible, to->device, from->device), "cuDeviceCanAccessPeer");
    });
}

duet_status device_program_format(duet_device, std::uint32_t index, duet_program_format* format)
{
    // Offline fatbins first (no compiler at run time), then NVRTC for source, then cached cubins.
    static constexpr duet_program_format formats[] = {DUET_FORMAT_FATBIN, DUET_FORMAT_CUDA_C, DUET_FORMAT_NATIVE};
    return guard([&] { *format = index < std::size(formats) ? formats[index] : DUET_FORMAT_NONE; });
}

} // namespace duet::backend::cuda
