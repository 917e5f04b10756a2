// The OpenCL backend's function table and the one symbol the plugin exports.
#include "common.hpp"

namespace duet::backend::opencl {
namespace {

constexpr duet_backend_v1 table{
    .abi_major = DUET_ABI_MAJOR,
    .abi_minor = DUET_ABI_MINOR,
    .table_size = sizeof(duet_backend_v1),
    .name = "opencl",
    .last_error = duet::backend::last_error,
    .initialize = initialize,
    .version = version,
    .device_count = device_count,
    .device_get = device_get,
    .device_properties = device_properties,
    .device_raw_properties = device_raw_properties,
    .device_native = device_native,
    .device_program_format = device_program_format,
    .queue_create = queue_create,
    .queue_release = queue_release,
    .queue_finish = queue_finish,
    .queue_write = queue_write,
    .queue_read = queue_read,
    .queue_copy = queue_copy,
    .queue_fill = queue_fill,
    .queue_write_rect = queue_write_rect,
    .queue_read_rect = queue_read_rect,
    .queue_copy_rect = queue_copy_rect,
    .queue_launch = queue_launch,
    .queue_record = queue_record,
    .queue_wait = queue_wait,
    .queue_native = queue_native,
    .buffer_create = buffer_create,
    .buffer_create_pitched = buffer_create_pitched,
    .buffer_release = buffer_release,
    .buffer_native = buffer_native,
    .host_alloc = host_alloc,
    .host_register = host_register,
    .host_release = host_release,
    .host_device_buffer = host_device_buffer,
    .event_release = event_release,
    .event_wait = event_wait,
    .event_query = event_query,
    .event_elapsed_ms = event_elapsed_ms,
    .program_create = program_create,
    .program_release = program_release,
    .program_binary = program_binary,
    .program_kernel_names = program_kernel_names,
    .kernel_create = kernel_create,
    .kernel_release = kernel_release,
    .kernel_limits = kernel_limits,
};

} // namespace
} // namespace duet::backend::opencl

/// Hands out the table even on a major mismatch, so that the core can name both versions.
extern "C" DUET_BACKEND_EXPORT duet_status duet_backend_entry(uint32_t abi_major, uint32_t,
                                                              const duet_backend_v1** table)
{
    *table = &duet::backend::opencl::table;
    return abi_major == DUET_ABI_MAJOR ? DUET_SUCCESS : DUET_ERROR_ABI_MISMATCH;
}
