// Discovery of every device of every OpenCL platform, and their properties: under duet's common
// names (duet_device_properties) and, clinfo-like, under their own CL_DEVICE_* names.
#include "common.hpp"

#include <CL/cl_ext.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <utility>

namespace duet::backend::opencl {
namespace {

// Queries of cl_nv_device_attribute_query that cl_ext.h does not name; NVIDIA's drivers answer them.
constexpr cl_device_info async_engine_count_nv = 0x4007; // CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT
constexpr cl_device_info pci_bus_id_nv = 0x4008;
constexpr cl_device_info pci_slot_id_nv = 0x4009;
constexpr cl_device_info pci_domain_id_nv = 0x400A;
// OpenCL 3.0 names it; a 1.2 target does not.
constexpr cl_device_info preferred_work_group_size_multiple = 0x1067;

template <class T> T device_info(cl_device_id device, cl_device_info param)
{
    return info<T>(clGetDeviceInfo, device, param, "clGetDeviceInfo");
}

std::string device_text(cl_device_id device, cl_device_info param)
{
    return info_text(clGetDeviceInfo, device, param, "clGetDeviceInfo");
}

std::string platform_text(cl_platform_id platform, cl_platform_info param)
{
    return info_text(clGetPlatformInfo, platform, param, "clGetPlatformInfo");
}

bool has_extension(const std::string& extensions, const std::string& name)
{
    return (" " + extensions + " ").find(" " + name + " ") != std::string::npos;
}

std::vector<cl_platform_id> platform_ids()
{
    cl_uint count = 0;
    const cl_int code = clGetPlatformIDs(0, nullptr, &count);
    if (code == CL_PLATFORM_NOT_FOUND_KHR || (code == CL_SUCCESS && count == 0))
        fail(DUET_ERROR_UNAVAILABLE,
             "the OpenCL ICD loader found no platform: no vendor driver is registered in /etc/OpenCL/vendors "
             "(or in the directory named by OCL_ICD_VENDORS)",
             "clGetPlatformIDs", code, error_name(code));
    check(code, "clGetPlatformIDs");
    std::vector<cl_platform_id> platforms(count);
    check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
    return platforms;
}

std::unique_ptr<duet_device_s> open_device(cl_platform_id platform, const std::string& platform_name, cl_device_id id)
{
    auto device = std::make_unique<duet_device_s>();
    device->platform = platform;
    device->id = id;
    device->platform_name = platform_name;

    const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform),
                                                0};
    cl_int code = CL_SUCCESS;
    device->context = clCreateContext(properties, 1, &id, nullptr, nullptr, &code);
    check(code, "clCreateContext");
    device->mapping_queue = clCreateCommandQueue(device->context, id, 0, &code);
    check(code, "clCreateCommandQueue");

    unsigned major = 0;
    unsigned minor = 0;
    if (std::sscanf(device_text(id, CL_DEVICE_VERSION).c_str(), "OpenCL %u.%u", &major, &minor) == 2) {
        device->opencl_major = major;
        device->opencl_minor = minor;
    }
    device->base_address_alignment = device_info<cl_uint>(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
    const std::string extensions = device_text(id, CL_DEVICE_EXTENSIONS);
    device->nv_attributes = has_extension(extensions, "cl_nv_device_attribute_query");
    device->nv_compiler_options = has_extension(extensions, "cl_nv_compiler_options");
    device->lists_command_buffers = has_extension(extensions, "cl_khr_command_buffer");
    device->max_block_size = device_info<std::size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    if (device->nv_attributes) {
        device->registers_per_block = device_info<cl_uint>(id, CL_DEVICE_REGISTERS_PER_BLOCK_NV);
        device->warp_width = device_info<cl_uint>(id, CL_DEVICE_WARP_SIZE_NV);
    }
    // Deprecated since OpenCL 2.0, so a newer driver may refuse it.
    device->host_unified_memory =
        optional_info<cl_bool>(clGetDeviceInfo, id, CL_DEVICE_HOST_UNIFIED_MEMORY).value_or(CL_FALSE);
    return device;
}

duet_device_type device_type(cl_device_type type)
{
    if (type & CL_DEVICE_TYPE_GPU)
        return DUET_DEVICE_GPU;
    if (type & CL_DEVICE_TYPE_CPU)
        return DUET_DEVICE_CPU;
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return DUET_DEVICE_ACCELERATOR;
    return DUET_DEVICE_OTHER;
}

// How device_raw_properties turns each answer into text.
enum class Shape {
    text,
    uint,
    ulong,
    size,
    boolean,
    sizes,   // size_t[]
    flags,   // a cl_bitfield, its bits by name
    choice,  // a cl_uint enumeration, by name
    choices, // a zero-terminated cl_device_partition_property[], by name
};

struct Named {
    cl_ulong value;
    const char* name;
};

struct RawQuery {
    const char* key;
    cl_device_info param;
    Shape shape;
    std::span<const Named> names = {};
};

constexpr Named device_types[] = {{CL_DEVICE_TYPE_DEFAULT, "DEFAULT"},
                                  {CL_DEVICE_TYPE_CPU, "CPU"},
                                  {CL_DEVICE_TYPE_GPU, "GPU"},
                                  {CL_DEVICE_TYPE_ACCELERATOR, "ACCELERATOR"},
                                  {CL_DEVICE_TYPE_CUSTOM, "CUSTOM"}};
constexpr Named fp_configs[] = {{CL_FP_DENORM, "DENORM"},
                                {CL_FP_INF_NAN, "INF_NAN"},
                                {CL_FP_ROUND_TO_NEAREST, "ROUND_TO_NEAREST"},
                                {CL_FP_ROUND_TO_ZERO, "ROUND_TO_ZERO"},
                                {CL_FP_ROUND_TO_INF, "ROUND_TO_INF"},
                                {CL_FP_FMA, "FMA"},
                                {CL_FP_SOFT_FLOAT, "SOFT_FLOAT"},
                                {CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, "CORRECTLY_ROUNDED_DIVIDE_SQRT"}};
constexpr Named execution_capabilities[] = {{CL_EXEC_KERNEL, "KERNEL"}, {CL_EXEC_NATIVE_KERNEL, "NATIVE_KERNEL"}};
constexpr Named queue_properties[] = {{CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, "OUT_OF_ORDER_EXEC_MODE_ENABLE"},
                                      {CL_QUEUE_PROFILING_ENABLE, "PROFILING_ENABLE"},
                                      {1 << 2, "ON_DEVICE"},
                                      {1 << 3, "ON_DEVICE_DEFAULT"}};
constexpr Named cache_types[] = {
    {CL_NONE, "NONE"}, {CL_READ_ONLY_CACHE, "READ_ONLY_CACHE"}, {CL_READ_WRITE_CACHE, "READ_WRITE_CACHE"}};
constexpr Named local_memory_types[] = {{CL_NONE, "NONE"}, {CL_LOCAL, "LOCAL"}, {CL_GLOBAL, "GLOBAL"}};
constexpr Named partition_properties[] = {{CL_DEVICE_PARTITION_EQUALLY, "EQUALLY"},
                                          {CL_DEVICE_PARTITION_BY_COUNTS, "BY_COUNTS"},
                                          {CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, "BY_AFFINITY_DOMAIN"}};
constexpr Named affinity_domains[] = {{CL_DEVICE_AFFINITY_DOMAIN_NUMA, "NUMA"},
                                      {CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, "L4_CACHE"},
                                      {CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, "L3_CACHE"},
                                      {CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, "L2_CACHE"},
                                      {CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, "L1_CACHE"},
                                      {CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, "NEXT_PARTITIONABLE"}};
constexpr Named svm_capabilities[] = {
    {1 << 0, "COARSE_GRAIN_BUFFER"}, {1 << 1, "FINE_GRAIN_BUFFER"}, {1 << 2, "FINE_GRAIN_SYSTEM"}, {1 << 3, "ATOMICS"}};

// Every OpenCL 1.2 device query with a meaningful value, then a few of 2.x and 3.0 by number.
// A query the device does not answer is left out of the list.
constexpr RawQuery standard_queries[] = {
    {"CL_DEVICE_NAME", CL_DEVICE_NAME, Shape::text},
    {"CL_DEVICE_VENDOR", CL_DEVICE_VENDOR, Shape::text},
    {"CL_DEVICE_VENDOR_ID", CL_DEVICE_VENDOR_ID, Shape::uint},
    {"CL_DRIVER_VERSION", CL_DRIVER_VERSION, Shape::text},
    {"CL_DEVICE_VERSION", CL_DEVICE_VERSION, Shape::text},
    {"CL_DEVICE_OPENCL_C_VERSION", CL_DEVICE_OPENCL_C_VERSION, Shape::text},
    {"CL_DEVICE_PROFILE", CL_DEVICE_PROFILE, Shape::text},
    {"CL_DEVICE_TYPE", CL_DEVICE_TYPE, Shape::flags, device_types},
    {"CL_DEVICE_AVAILABLE", CL_DEVICE_AVAILABLE, Shape::boolean},
    {"CL_DEVICE_COMPILER_AVAILABLE", CL_DEVICE_COMPILER_AVAILABLE, Shape::boolean},
    {"CL_DEVICE_LINKER_AVAILABLE", CL_DEVICE_LINKER_AVAILABLE, Shape::boolean},
    {"CL_DEVICE_MAX_COMPUTE_UNITS", CL_DEVICE_MAX_COMPUTE_UNITS, Shape::uint},
    {"CL_DEVICE_MAX_CLOCK_FREQUENCY", CL_DEVICE_MAX_CLOCK_FREQUENCY, Shape::uint},
    {"CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS", CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, Shape::uint},
    {"CL_DEVICE_MAX_WORK_ITEM_SIZES", CL_DEVICE_MAX_WORK_ITEM_SIZES, Shape::sizes},
    {"CL_DEVICE_MAX_WORK_GROUP_SIZE", CL_DEVICE_MAX_WORK_GROUP_SIZE, Shape::size},
    {"CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR", CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, Shape::uint},
    {"CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT", CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, Shape::uint},
    {"CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT", CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, Shape::uint},
    {"CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG", CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, Shape::uint},
    {"CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF", CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, Shape::uint},
    {"CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT", CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, Shape::uint},
    {"CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE", CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, Shape::uint},
    {"CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR", CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, Shape::uint},
    {"CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT", CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, Shape::uint},
    {"CL_DEVICE_NATIVE_VECTOR_WIDTH_INT", CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, Shape::uint},
    {"CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG", CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, Shape::uint},
    {"CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF", CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, Shape::uint},
    {"CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT", CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, Shape::uint},
    {"CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE", CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, Shape::uint},
    {"CL_DEVICE_HALF_FP_CONFIG", CL_DEVICE_HALF_FP_CONFIG, Shape::flags, fp_configs},
    {"CL_DEVICE_SINGLE_FP_CONFIG", CL_DEVICE_SINGLE_FP_CONFIG, Shape::flags, fp_configs},
    {"CL_DEVICE_DOUBLE_FP_CONFIG", CL_DEVICE_DOUBLE_FP_CONFIG, Shape::flags, fp_configs},
    {"CL_DEVICE_ADDRESS_BITS", CL_DEVICE_ADDRESS_BITS, Shape::uint},
    {"CL_DEVICE_ENDIAN_LITTLE", CL_DEVICE_ENDIAN_LITTLE, Shape::boolean},
    {"CL_DEVICE_GLOBAL_MEM_SIZE", CL_DEVICE_GLOBAL_MEM_SIZE, Shape::ulong},
    {"CL_DEVICE_MAX_MEM_ALLOC_SIZE", CL_DEVICE_MAX_MEM_ALLOC_SIZE, Shape::ulong},
    {"CL_DEVICE_MEM_BASE_ADDR_ALIGN", CL_DEVICE_MEM_BASE_ADDR_ALIGN, Shape::uint},
    {"CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE", CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, Shape::uint},
    {"CL_DEVICE_GLOBAL_MEM_CACHE_TYPE", CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, Shape::choice, cache_types},
    {"CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE", CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, Shape::uint},
    {"CL_DEVICE_GLOBAL_MEM_CACHE_SIZE", CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, Shape::ulong},
    {"CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE", CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, Shape::ulong},
    {"CL_DEVICE_MAX_CONSTANT_ARGS", CL_DEVICE_MAX_CONSTANT_ARGS, Shape::uint},
    {"CL_DEVICE_LOCAL_MEM_TYPE", CL_DEVICE_LOCAL_MEM_TYPE, Shape::choice, local_memory_types},
    {"CL_DEVICE_LOCAL_MEM_SIZE", CL_DEVICE_LOCAL_MEM_SIZE, Shape::ulong},
    {"CL_DEVICE_ERROR_CORRECTION_SUPPORT", CL_DEVICE_ERROR_CORRECTION_SUPPORT, Shape::boolean},
    {"CL_DEVICE_HOST_UNIFIED_MEMORY", CL_DEVICE_HOST_UNIFIED_MEMORY, Shape::boolean},
    {"CL_DEVICE_MAX_PARAMETER_SIZE", CL_DEVICE_MAX_PARAMETER_SIZE, Shape::size},
    {"CL_DEVICE_PROFILING_TIMER_RESOLUTION", CL_DEVICE_PROFILING_TIMER_RESOLUTION, Shape::size},
    {"CL_DEVICE_EXECUTION_CAPABILITIES", CL_DEVICE_EXECUTION_CAPABILITIES, Shape::flags, execution_capabilities},
    {"CL_DEVICE_QUEUE_PROPERTIES", CL_DEVICE_QUEUE_PROPERTIES, Shape::flags, queue_properties},
    {"CL_DEVICE_PREFERRED_INTEROP_USER_SYNC", CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, Shape::boolean},
    {"CL_DEVICE_PRINTF_BUFFER_SIZE", CL_DEVICE_PRINTF_BUFFER_SIZE, Shape::size},
    {"CL_DEVICE_IMAGE_SUPPORT", CL_DEVICE_IMAGE_SUPPORT, Shape::boolean},
    {"CL_DEVICE_MAX_READ_IMAGE_ARGS", CL_DEVICE_MAX_READ_IMAGE_ARGS, Shape::uint},
    {"CL_DEVICE_MAX_WRITE_IMAGE_ARGS", CL_DEVICE_MAX_WRITE_IMAGE_ARGS, Shape::uint},
    {"CL_DEVICE_MAX_SAMPLERS", CL_DEVICE_MAX_SAMPLERS, Shape::uint},
    {"CL_DEVICE_IMAGE2D_MAX_WIDTH", CL_DEVICE_IMAGE2D_MAX_WIDTH, Shape::size},
    {"CL_DEVICE_IMAGE2D_MAX_HEIGHT", CL_DEVICE_IMAGE2D_MAX_HEIGHT, Shape::size},
    {"CL_DEVICE_IMAGE3D_MAX_WIDTH", CL_DEVICE_IMAGE3D_MAX_WIDTH, Shape::size},
    {"CL_DEVICE_IMAGE3D_MAX_HEIGHT", CL_DEVICE_IMAGE3D_MAX_HEIGHT, Shape::size},
    {"CL_DEVICE_IMAGE3D_MAX_DEPTH", CL_DEVICE_IMAGE3D_MAX_DEPTH, Shape::size},
    {"CL_DEVICE_IMAGE_MAX_BUFFER_SIZE", CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, Shape::size},
    {"CL_DEVICE_IMAGE_MAX_ARRAY_SIZE", CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, Shape::size},
    {"CL_DEVICE_PARTITION_MAX_SUB_DEVICES", CL_DEVICE_PARTITION_MAX_SUB_DEVICES, Shape::uint},
    {"CL_DEVICE_PARTITION_PROPERTIES", CL_DEVICE_PARTITION_PROPERTIES, Shape::choices, partition_properties},
    {"CL_DEVICE_PARTITION_AFFINITY_DOMAIN", CL_DEVICE_PARTITION_AFFINITY_DOMAIN, Shape::flags, affinity_domains},
    {"CL_DEVICE_BUILT_IN_KERNELS", CL_DEVICE_BUILT_IN_KERNELS, Shape::text},
    {"CL_DEVICE_EXTENSIONS", CL_DEVICE_EXTENSIONS, Shape::text},
    {"CL_DEVICE_SVM_CAPABILITIES", 0x1053, Shape::flags, svm_capabilities},
    {"CL_DEVICE_IL_VERSION", 0x105B, Shape::text},
    {"CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE", preferred_work_group_size_multiple, Shape::size},
    {"CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED", 0x1072, Shape::text},
};

constexpr RawQuery nv_queries[] = {
    {"CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV", CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, Shape::uint},
    {"CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV", CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, Shape::uint},
    {"CL_DEVICE_REGISTERS_PER_BLOCK_NV", CL_DEVICE_REGISTERS_PER_BLOCK_NV, Shape::uint},
    {"CL_DEVICE_WARP_SIZE_NV", CL_DEVICE_WARP_SIZE_NV, Shape::uint},
    {"CL_DEVICE_GPU_OVERLAP_NV", CL_DEVICE_GPU_OVERLAP_NV, Shape::boolean},
    {"CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV", CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV, Shape::boolean},
    {"CL_DEVICE_INTEGRATED_MEMORY_NV", CL_DEVICE_INTEGRATED_MEMORY_NV, Shape::boolean},
    {"CL_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT_NV", async_engine_count_nv, Shape::uint},
    {"CL_DEVICE_PCI_BUS_ID_NV", pci_bus_id_nv, Shape::uint},
    {"CL_DEVICE_PCI_SLOT_ID_NV", pci_slot_id_nv, Shape::uint},
    {"CL_DEVICE_PCI_DOMAIN_ID_NV", pci_domain_id_nv, Shape::uint},
};

constexpr std::pair<const char*, cl_platform_info> platform_queries[] = {
    {"CL_PLATFORM_NAME", CL_PLATFORM_NAME},
    {"CL_PLATFORM_VENDOR", CL_PLATFORM_VENDOR},
    {"CL_PLATFORM_VERSION", CL_PLATFORM_VERSION},
    {"CL_PLATFORM_PROFILE", CL_PLATFORM_PROFILE},
    {"CL_PLATFORM_EXTENSIONS", CL_PLATFORM_EXTENSIONS},
};

template <class T> T element(const std::vector<unsigned char>& bytes, std::size_t index)
{
    T value;
    std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
    return value;
}

std::string hex(cl_ulong value)
{
    char text[24];
    std::snprintf(text, sizeof text, "0x%" PRIx64, static_cast<std::uint64_t>(value));
    return text;
}

std::string name_of(cl_ulong value, std::span<const Named> names)
{
    const auto found = std::find_if(names.begin(), names.end(), [value](const Named& n) { return n.value == value; });
    return found == names.end() ? hex(value) : found->name;
}

std::string flag_names(cl_ulong bits, std::span<const Named> names)
{
    std::string text;
    auto append = [&text](const std::string& name) { text += (text.empty() ? "" : " | ") + name; };
    for (const Named& flag : names) {
        if (bits & flag.value) {
            append(flag.name);
            bits &= ~flag.value;
        }
    }
    if (bits)
        append(hex(bits));
    return text.empty() ? "0" : text;
}

/// The answer as text, or nothing when it is too short for its shape.
std::optional<std::string> format(const RawQuery& query, const std::vector<unsigned char>& bytes)
{
    auto holds = [&bytes](std::size_t size) { return bytes.size() >= size; };
    switch (query.shape) {
    case Shape::text:
        return std::string(bytes.begin(), std::find(bytes.begin(), bytes.end(), '\0'));
    case Shape::uint:
        return holds(sizeof(cl_uint)) ? std::optional(std::to_string(element<cl_uint>(bytes, 0))) : std::nullopt;
    case Shape::ulong:
        return holds(sizeof(cl_ulong)) ? std::optional(std::to_string(element<cl_ulong>(bytes, 0))) : std::nullopt;
    case Shape::size:
        return holds(sizeof(std::size_t)) ? std::optional(std::to_string(element<std::size_t>(bytes, 0)))
                                          : std::nullopt;
    case Shape::boolean:
        return holds(sizeof(cl_bool)) ? std::optional<std::string>(element<cl_bool>(bytes, 0) ? "true" : "false")
                                      : std::nullopt;
    case Shape::flags:
        return holds(sizeof(cl_bitfield)) ? std::optional(flag_names(element<cl_bitfield>(bytes, 0), query.names))
                                          : std::nullopt;
    case Shape::choice:
        return holds(sizeof(cl_uint)) ? std::optional(name_of(element<cl_uint>(bytes, 0), query.names)) : std::nullopt;
    case Shape::sizes: {
        std::string text;
        for (std::size_t i = 0; i < bytes.size() / sizeof(std::size_t); ++i)
            text += (i ? " x " : "") + std::to_string(element<std::size_t>(bytes, i));
        return text;
    }
    case Shape::choices: {
        std::string text;
        for (std::size_t i = 0; i < bytes.size() / sizeof(cl_device_partition_property); ++i) {
            const auto value = element<cl_device_partition_property>(bytes, i);
            if (value == 0)
                break;
            text += (text.empty() ? "" : ", ") + name_of(static_cast<cl_ulong>(value), query.names);
        }
        return text.empty() ? "none" : text;
    }
    }
    return std::nullopt;
}

void report(cl_device_id device, std::span<const RawQuery> queries, duet_property_sink sink, void* context)
{
    std::vector<unsigned char> bytes;
    for (const RawQuery& query : queries) {
        if (query_bytes(clGetDeviceInfo, device, query.param, bytes) != CL_SUCCESS)
            continue;
        if (const std::optional<std::string> value = format(query, bytes))
            sink(context, query.key, value->c_str());
    }
}

} // namespace

BackendState<duet_device_s>& state()
{
    return process_state<BackendState<duet_device_s>>();
}

duet_status initialize()
{
    return guard([] {
        auto& state = opencl::state();
        std::lock_guard lock(state.init_mutex);
        if (state.ready.load(std::memory_order_relaxed))
            return;

        std::vector<std::unique_ptr<duet_device_s>> devices;
        std::string version;
        std::string why_no_devices;
        for (cl_platform_id platform : platform_ids()) {
            const std::string name = platform_text(platform, CL_PLATFORM_NAME);
            version += (version.empty() ? "" : "; ") + name + " " + platform_text(platform, CL_PLATFORM_VERSION);

            cl_uint count = 0;
            // A platform that fails to list its devices is passed over, so that one broken
            // driver does not hide the devices of the others; its reason is kept for the report.
            if (const cl_int code = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
                code != CL_SUCCESS) {
                why_no_devices += "; platform '" + name + "': clGetDeviceIDs gave " + error_name(code);
                continue;
            }
            std::vector<cl_device_id> ids(count);
            check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr), "clGetDeviceIDs");
            for (cl_device_id id : ids)
                devices.push_back(open_device(platform, name, id));
        }
        if (devices.empty())
            fail(DUET_ERROR_UNAVAILABLE, "OpenCL platforms were found but no device" + why_no_devices, "clGetDeviceIDs",
                 CL_DEVICE_NOT_FOUND, error_name(CL_DEVICE_NOT_FOUND));

        state.devices = std::move(devices);
        state.version = std::move(version);
        state.ready.store(true, std::memory_order_release);
    });
}

duet_status device_properties(duet_device device, duet_device_properties* properties)
{
    return guard([&] {
        const cl_device_id id = device->id;
        duet_device_properties props{};
        copy_text(props.name, device_text(id, CL_DEVICE_NAME));
        copy_text(props.vendor, device_text(id, CL_DEVICE_VENDOR));
        copy_text(props.driver_version, device_text(id, CL_DRIVER_VERSION));
        copy_text(props.platform, device->platform_name);
        copy_text(props.api_version, device_text(id, CL_DEVICE_VERSION));
        props.type = device_type(device_info<cl_device_type>(id, CL_DEVICE_TYPE));
        props.compute_units = device_info<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
        props.max_block_size = device->max_block_size;

        std::vector<unsigned char> item_sizes;
        check(query_bytes(clGetDeviceInfo, id, CL_DEVICE_MAX_WORK_ITEM_SIZES, item_sizes), "clGetDeviceInfo");
        const std::size_t dims = std::min<std::size_t>(3, item_sizes.size() / sizeof(std::size_t));
        for (std::size_t i = 0; i < dims; ++i)
            props.max_block_dims[i] = element<std::size_t>(item_sizes, i);

        // OpenCL bounds a launch only by the global size, a size_t of the device's address width.
        const cl_uint address_bits = device_info<cl_uint>(id, CL_DEVICE_ADDRESS_BITS);
        const std::uint64_t max_grid = address_bits >= 64 ? UINT64_MAX : (std::uint64_t{1} << address_bits) - 1;
        std::fill(std::begin(props.max_grid_dims), std::end(props.max_grid_dims), max_grid);

        if (device->opencl_major >= 3) {
            if (const auto multiple =
                    optional_info<std::size_t>(clGetDeviceInfo, id, preferred_work_group_size_multiple))
                props.warp_width = static_cast<std::uint32_t>(*multiple);
        }
        props.local_memory_per_block = device_info<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
        props.local_memory_per_block_optin = props.local_memory_per_block;
        props.global_memory = device_info<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
        props.max_allocation = device_info<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
        props.l2_cache = device_info<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
        props.clock_mhz = device_info<cl_uint>(id, CL_DEVICE_MAX_CLOCK_FREQUENCY);
        props.opencl_version_major = device->opencl_major;
        props.opencl_version_minor = device->opencl_minor;
        props.base_address_alignment = device->base_address_alignment;
        props.can_map_host_memory = device->host_unified_memory ? 1 : 0;
        props.ecc = device_info<cl_bool>(id, CL_DEVICE_ERROR_CORRECTION_SUPPORT) ? 1 : 0;
        props.integrated = device->host_unified_memory ? 1 : 0;

        if (device->nv_attributes) {
            props.compute_capability_major = device_info<cl_uint>(id, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV);
            props.compute_capability_minor = device_info<cl_uint>(id, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV);
            props.registers_per_block = device->registers_per_block;
            props.warp_width = device->warp_width;
            props.integrated = device_info<cl_bool>(id, CL_DEVICE_INTEGRATED_MEMORY_NV) ? 1 : 0;
            // NVIDIA's global memory cache is not the L2 (4.1 MiB on an H100, whose L2 holds
            // 50): not known, rather than a figure a reader or the kit's spacer takes for it. The
            // raw properties keep the driver's.
            props.l2_cache = 0;
            // Not in NVIDIA's extension text, so older drivers may refuse it.
            props.copy_engines = optional_info<cl_uint>(clGetDeviceInfo, id, async_engine_count_nv).value_or(0);
            const auto bus = optional_info<cl_uint>(clGetDeviceInfo, id, pci_bus_id_nv);
            // The slot is the PCI device number (seen on driver 580: 6 where CUDA says 0000:00:06.0);
            // NVIDIA's OpenCL names no function, and GPUs are function 0.
            const auto slot = optional_info<cl_uint>(clGetDeviceInfo, id, pci_slot_id_nv);
            const auto domain = optional_info<cl_uint>(clGetDeviceInfo, id, pci_domain_id_nv).value_or(0);
            if (bus && slot) {
                char text[32];
                std::snprintf(text, sizeof(text), "%04x:%02x:%02x.0", domain, *bus, *slot);
                copy_text(props.pci_bus_id, text);
            }
        }
        write_sized(properties, props);
    });
}

duet_status device_raw_properties(duet_device device, duet_property_sink sink, void* context)
{
    return guard([&] {
        for (const auto& [key, param] : platform_queries)
            sink(context, key, platform_text(device->platform, param).c_str());
        report(device->id, standard_queries, sink, context);
        if (device->nv_attributes)
            report(device->id, nv_queries, sink, context);
    });
}

duet_status device_native(duet_device device, void** native_device, void** native_context)
{
    return guard([&] {
        *native_device = device->id;
        *native_context = device->context;
    });
}

duet_status device_peer_access(duet_device from, duet_device to, int* possible)
{
    // Each device has a context of its own, and an OpenCL buffer lives in one context: no device
    // reaches another's memory, so copies between them go through the host.
    return guard([&] { *possible = from == to ? 1 : 0; });
}

duet_status device_program_format(duet_device, std::uint32_t index, duet_program_format* format)
{
    return guard([&] {
        constexpr duet_program_format accepted[] = {DUET_FORMAT_OPENCL_C, DUET_FORMAT_NATIVE};
        *format = index < std::size(accepted) ? accepted[index] : DUET_FORMAT_NONE;
    });
}

} // namespace duet::backend::opencl

duet_device_s::~duet_device_s()
{
    if (mapping_queue)
        clReleaseCommandQueue(mapping_queue);
    if (context)
        clReleaseContext(context);
}
