// Sequences as cl_khr_command_buffer command buffers: between begin and end the queue's copies,
// fills and launches (queue.cpp) are recorded into one instead of enqueued; finalised once,
// replayed with clEnqueueCommandBufferKHR. A device without the extension, or with a version or
// queue requirements this backend cannot meet, is refused with the reason, and the core replays
// the commands itself.
#include "common.hpp"

#include <cstring>
#include <memory>

// OpenCL 2.1: a 1.2 target's header does not declare it; the ICD loader exports it.
extern "C" CL_API_ENTRY cl_kernel CL_API_CALL clCloneKernel(cl_kernel kernel, cl_int* errcode_ret);

namespace duet::backend::opencl {
namespace {

// OpenCL 3.0 and cl_khr_command_buffer names, which a 1.2 target or a newer header lacks.
constexpr cl_device_info extensions_with_version = 0x1060;
constexpr cl_device_info command_buffer_capabilities = 0x12A9;
constexpr cl_device_info command_buffer_required_queue_properties = 0x12AA;
constexpr cl_device_info command_buffer_supported_queue_properties = 0x129A;
constexpr cl_bitfield simultaneous_use_capability = 1 << 2;
constexpr cl_ulong command_buffer_flags_property = 0x1293;
constexpr cl_ulong simultaneous_use_flag = 1 << 0;
constexpr cl_int incompatible_command_queue = -1140;
/// duet's queues: in order, with profiling (queue_create).
constexpr cl_bitfield queue_properties = CL_QUEUE_PROFILING_ENABLE;

/// cl_name_version
struct NameVersion {
    cl_uint version;
    char name[64];
};

constexpr cl_uint make_version(cl_uint major, cl_uint minor, cl_uint patch)
{
    return (major << 22) | (minor << 12) | patch;
}

std::string version_text(cl_uint version)
{
    return std::to_string(version >> 22) + "." + std::to_string((version >> 12) & 0x3ff) + "." +
           std::to_string(version & 0xfff);
}

/// The version of cl_khr_command_buffer the device reports; 0 when it does not say.
cl_uint extension_version(cl_device_id device)
{
    std::vector<unsigned char> bytes;
    if (query_bytes(clGetDeviceInfo, device, extensions_with_version, bytes) != CL_SUCCESS)
        return 0;
    for (std::size_t at = 0; at + sizeof(NameVersion) <= bytes.size(); at += sizeof(NameVersion)) {
        NameVersion entry{};
        std::memcpy(&entry, bytes.data() + at, sizeof entry);
        if (std::string(entry.name, strnlen(entry.name, sizeof entry.name)) == "cl_khr_command_buffer")
            return entry.version;
    }
    return 0;
}

template <class Function> bool resolve(const duet_device_s& device, const char* name, Function& function)
{
    function = reinterpret_cast<Function>(clGetExtensionFunctionAddressForPlatform(device.platform, name));
    return function != nullptr;
}

CommandBuffers look_up(const duet_device_s& device)
{
    CommandBuffers found;
    const std::string where = "the OpenCL device '" +
                              info_text(clGetDeviceInfo, device.id, CL_DEVICE_NAME, "clGetDeviceInfo") +
                              "' of platform '" + device.platform_name + "'";
    if (!device.lists_command_buffers) {
        found.unsupported = "this OpenCL platform has no cl_khr_command_buffer: " + where + " does not list it";
        return found;
    }
    if (device.opencl_major * 10 + device.opencl_minor < 21) {
        found.unsupported =
            where + " lists cl_khr_command_buffer, but a recorded launch needs clCloneKernel (OpenCL 2.1)";
        return found;
    }
    const cl_uint version = extension_version(device.id);
    if (version == 0) {
        found.unsupported = where +
                            " lists cl_khr_command_buffer without its version (CL_DEVICE_EXTENSIONS_WITH_VERSION), "
                            "and the extension's entry points differ between versions";
        return found;
    }
    if (version < make_version(0, 9, 0) || version >= make_version(1, 1, 0)) {
        found.unsupported = where + " has cl_khr_command_buffer " + version_text(version) +
                            ", whose entry points this build does not know (it knows 0.9.0 to 1.0)";
        return found;
    }
    found.command_properties = version >= make_version(0, 9, 5);
    // Before 0.9.8 a command buffer may be enqueued while an earlier replay is pending only
    // when created for simultaneous use; from then on, an in-order queue serialising them is enough.
    if (version < make_version(0, 9, 8)) {
        const cl_bitfield capabilities =
            optional_info<cl_bitfield>(clGetDeviceInfo, device.id, command_buffer_capabilities).value_or(0);
        if ((capabilities & simultaneous_use_capability) == 0) {
            found.unsupported =
                where + "'s cl_khr_command_buffer " + version_text(version) +
                " cannot replay a command buffer again before its last replay ends (no simultaneous use)";
            return found;
        }
        found.flags = simultaneous_use_flag;
    }
    const cl_bitfield required =
        optional_info<cl_bitfield>(clGetDeviceInfo, device.id, command_buffer_required_queue_properties).value_or(0);
    const auto supported =
        optional_info<cl_bitfield>(clGetDeviceInfo, device.id, command_buffer_supported_queue_properties);
    if ((required & ~queue_properties) != 0 || (supported && (*supported & queue_properties) != queue_properties)) {
        found.unsupported = where + "'s command buffers need queue properties (required " + std::to_string(required) +
                            ") that duet's in-order queues with profiling do not have";
        return found;
    }
    if (!resolve(device, "clCreateCommandBufferKHR", found.create) ||
        !resolve(device, "clFinalizeCommandBufferKHR", found.finalize) ||
        !resolve(device, "clReleaseCommandBufferKHR", found.release) ||
        !resolve(device, "clEnqueueCommandBufferKHR", found.enqueue) ||
        !resolve(device, "clCommandNDRangeKernelKHR", found.launch) ||
        !resolve(device, "clCommandCopyBufferKHR", found.copy) ||
        !resolve(device, "clCommandCopyBufferRectKHR", found.copy_rect) ||
        !resolve(device, "clCommandFillBufferKHR", found.fill))
        found.unsupported = where +
                            " lists cl_khr_command_buffer, but its platform does not hand out every entry point "
                            "(clGetExtensionFunctionAddressForPlatform)";
    return found;
}

} // namespace

cl_kernel recorded_kernel(duet_sequence_s& sequence, duet_kernel_s& kernel)
{
    sequence.kernels.reserve(sequence.kernels.size() + 1);
    cl_int code = CL_SUCCESS;
    cl_kernel copy = nullptr;
    {
        // The clone reads the kernel's arguments, which another queue's launch may be setting.
        const std::lock_guard lock(kernel.launch_mutex);
        copy = clCloneKernel(kernel.kernel, &code);
    }
    check(code, "clCloneKernel");
    sequence.kernels.push_back(copy);
    return copy;
}

duet_status queue_begin_recording(duet_queue queue, duet_replay_method* method)
{
    return guard([&] {
        duet_device_s& device = *queue->device;
        std::call_once(device.command_buffers_once, [&] { device.command_buffers = look_up(device); });
        const CommandBuffers& api = device.command_buffers;
        if (!api.unsupported.empty())
            fail(DUET_ERROR_UNSUPPORTED, api.unsupported);
        auto created = std::make_unique<duet_sequence_s>();
        created->api = &api;
        created->queue = queue->queue;
        const cl_ulong properties[] = {command_buffer_flags_property, api.flags, 0};
        cl_int code = CL_SUCCESS;
        created->buffer = api.create(1, &queue->queue, api.flags != 0 ? properties : nullptr, &code);
        if (code == incompatible_command_queue)
            fail(DUET_ERROR_UNSUPPORTED,
                 "the driver's command buffers do not take duet's queues (in order, with profiling)",
                 "clCreateCommandBufferKHR", code, error_name(code));
        check(code, "clCreateCommandBufferKHR");
        queue->recording = std::move(created);
        *method = DUET_REPLAY_COMMAND_BUFFER;
    });
}

duet_status queue_end_recording(duet_queue queue, duet_sequence* sequence)
{
    return guard([&] {
        std::unique_ptr<duet_sequence_s> recorded = std::move(queue->recording);
        if (sequence == nullptr || recorded == nullptr)
            return;
        check(recorded->api->finalize(recorded->buffer), "clFinalizeCommandBufferKHR");
        *sequence = recorded.release();
    });
}

duet_status sequence_replay(duet_sequence sequence, duet_queue queue)
{
    return guard([&] {
        // On the queue it was recorded for, the command buffer needs no queue named; another
        // queue of the device is named, and the driver checks that it is compatible.
        cl_command_queue target = queue->queue;
        const bool recorded_for = target == sequence->queue;
        check(sequence->api->enqueue(recorded_for ? 0 : 1, recorded_for ? nullptr : &target, sequence->buffer, 0,
                                     nullptr, nullptr),
              "clEnqueueCommandBufferKHR");
    });
}

duet_status sequence_release(duet_sequence sequence)
{
    return guard([&] { delete sequence; });
}

} // namespace duet::backend::opencl

duet_sequence_s::~duet_sequence_s()
{
    // The driver frees a command buffer still running once it completes, and keeps what it uses.
    if (buffer != nullptr)
        api->release(buffer);
    for (const cl_kernel kernel : kernels)
        clReleaseKernel(kernel);
}
