// A backend with one fake device, on duet's edge, that fills every slot the core requires: what
// the table fault plugins start from before each breaks one thing. Its programs take any source
// and hand out kernels that are never run; queues, buffers and events are unsupported. Its device
// reports what a careless plugin may: a text field with no terminator, raw properties with a null
// key or value.
#pragma once

#include <edge.hpp>

#include <cstring>

struct duet_device_s {};
struct duet_program_s {};
struct duet_kernel_s {};

namespace fake {

using duet::backend::fail;
using duet::backend::guard;

inline duet_device_s device;
inline duet_program_s program;
inline duet_kernel_s kernel;

inline duet_status unsupported()
{
    return guard([] { fail(DUET_ERROR_UNSUPPORTED, "the fake backend runs nothing"); });
}

/// What the fake device reports; a plugin of another ABI minor starts from it too.
inline duet_device_properties device_properties()
{
    duet_device_properties properties{};
    duet::backend::copy_text(properties.name, "fake device");
    duet::backend::copy_text(properties.platform, "fake");
    std::memset(properties.vendor, 'v', sizeof(properties.vendor)); // runs on into driver_version
    duet::backend::copy_text(properties.driver_version, "fake driver");
    properties.type = DUET_DEVICE_CPU;
    properties.max_block_size = 1;
    return properties;
}

/// The fake backend's table under `name`; each fault plugin changes what it tests and exports it.
inline duet_backend_v1 table(const char* name)
{
    duet_backend_v1 t{};
    t.abi_major = DUET_ABI_MAJOR;
    t.abi_minor = DUET_ABI_MINOR;
    t.table_size = sizeof(duet_backend_v1);
    t.name = name;
    t.last_error = duet::backend::last_error;
    t.initialize = [] { return DUET_SUCCESS; };
    t.version = [](const char** text) {
        *text = "fake 1.0";
        return DUET_SUCCESS;
    };
    t.device_count = [](uint32_t* count) {
        *count = 1;
        return DUET_SUCCESS;
    };
    t.device_get = [](uint32_t index, duet_device* out) {
        return guard([&] {
            if (index != 0)
                fail(DUET_ERROR_INVALID_ARGUMENT, "the fake backend has one device");
            *out = &device;
        });
    };
    t.device_properties = [](duet_device, duet_device_properties* properties) {
        duet::backend::write_sized(properties, device_properties());
        return DUET_SUCCESS;
    };
    t.device_raw_properties = [](duet_device, duet_property_sink sink, void* context) {
        sink(context, "FAKE_NAME", "fake device");
        sink(context, nullptr, "a value without a key");
        sink(context, "FAKE_NO_VALUE", nullptr);
        return DUET_SUCCESS;
    };
    t.device_program_format = [](duet_device, uint32_t index, duet_program_format* format) {
        *format = index == 0 ? DUET_FORMAT_OPENCL_C : DUET_FORMAT_NONE;
        return DUET_SUCCESS;
    };
    t.queue_release = [](duet_queue) { return unsupported(); };
    t.queue_finish = [](duet_queue) { return unsupported(); };
    t.queue_write = [](duet_queue, duet_buffer, size_t, const void*, size_t) { return unsupported(); };
    t.queue_read = [](duet_queue, void*, duet_buffer, size_t, size_t) { return unsupported(); };
    t.queue_copy = [](duet_queue, duet_buffer, size_t, duet_buffer, size_t, size_t) { return unsupported(); };
    t.queue_launch = [](duet_queue, duet_kernel, const duet_launch_range*, const duet_kernel_arg*, uint32_t) {
        return unsupported();
    };
    t.queue_record = [](duet_queue, duet_event*) { return unsupported(); };
    t.queue_wait = [](duet_queue, duet_event) { return unsupported(); };
    t.buffer_release = [](duet_buffer) { return unsupported(); };
    t.host_release = [](duet_host_memory) { return unsupported(); };
    t.event_release = [](duet_event) { return unsupported(); };
    t.event_wait = [](duet_event) { return unsupported(); };
    t.event_query = [](duet_event, int*) { return unsupported(); };
    t.program_create = [](duet_device, duet_program_format, const void*, size_t, const char*, duet_program* out) {
        *out = &program;
        return DUET_SUCCESS;
    };
    t.program_release = [](duet_program) { return DUET_SUCCESS; };
    t.program_kernel_names = [](duet_program, const char** names) {
        *names = "fake_kernel";
        return DUET_SUCCESS;
    };
    t.kernel_create = [](duet_program, const char* name, duet_kernel* out) {
        return guard([&] {
            if (std::strcmp(name, "fake_kernel") != 0)
                fail(DUET_ERROR_NOT_FOUND, std::string("no kernel '") + name + "'; the fake program has fake_kernel");
            *out = &kernel;
        });
    };
    t.kernel_release = [](duet_kernel) { return DUET_SUCCESS; };
    t.kernel_properties = [](duet_kernel, duet_kernel_properties* properties) {
        properties->max_block_size = 1;
        properties->max_block_limit = DUET_BLOCK_LIMIT_DECLARED;
        return DUET_SUCCESS;
    };
    t.extension = [](const char* name, duet_function* function) {
        return guard([&] {
            if (std::strcmp(name, DUET_EXTENSION_KERNEL_SET_CACHE_PREFERENCE) != 0)
                fail(DUET_ERROR_NOT_FOUND, std::string("the fake backend has no extension '") + name + "'");
            const duet_kernel_set_cache_preference_fn set = [](duet_kernel, duet_cache_preference) {
                return DUET_SUCCESS;
            };
            *function = reinterpret_cast<duet_function>(set);
        });
    };
    return t;
}

} // namespace fake

/// Exports `table` (a duet_backend_v1 lvalue) as the plugin's entry, refusing other ABI majors.
#define FAKE_EXPORT_TABLE(table)                                                                                       \
    extern "C" DUET_BACKEND_EXPORT duet_status duet_backend_entry(uint32_t abi_major, uint32_t,                        \
                                                                  const duet_backend_v1** out)                         \
    {                                                                                                                  \
        *out = &(table);                                                                                               \
        return abi_major == DUET_ABI_MAJOR ? DUET_SUCCESS : DUET_ERROR_ABI_MISMATCH;                                   \
    }
