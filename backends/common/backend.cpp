// What duet's own backends share beyond the edge: the slots that read only the backend's state,
// the extension look-up, the function table filled from DUET_BACKEND_SLOTS, and the one exported
// symbol. Compiled into each backend in its namespace, DUET_BACKEND_NAMESPACE (duet_add_backend).
#include "common.hpp"

#include "backend_state.hpp"

#include <cstring>

#define DUET_STRINGIFY(name) #name
#define DUET_NAME_OF(name) DUET_STRINGIFY(name)

namespace duet::backend::DUET_BACKEND_NAMESPACE {

duet_status version(const char** text)
{
    return guard([&] { *text = state().initialized(api_name).version.c_str(); });
}

duet_status device_count(std::uint32_t* count)
{
    return guard([&] { *count = static_cast<std::uint32_t>(state().initialized(api_name).devices.size()); });
}

duet_status device_get(std::uint32_t index, duet_device* device)
{
    return guard([&] { *device = &state().device(index, api_name); });
}

duet_status extension(const char* name, duet_function* function)
{
    return guard([&] {
        *function = nullptr;
        for (const Extension& known : extensions) {
            if (std::strcmp(known.name, name) == 0) {
                *function = known.function;
                return;
            }
        }
        fail(DUET_ERROR_NOT_FOUND, std::string("the ") + api_name + " backend has no extension '" + name + "'");
    });
}

namespace {
constexpr duet_backend_v1 table{.abi_major = DUET_ABI_MAJOR,
                                .abi_minor = DUET_ABI_MINOR,
                                .table_size = sizeof(duet_backend_v1),
                                .name = DUET_NAME_OF(DUET_BACKEND_NAMESPACE),
                                .last_error = duet::backend::last_error,
#define DUET_FILL_SLOT(name, required, parameters) .name = name,
                                DUET_BACKEND_SLOTS(DUET_FILL_SLOT)
#undef DUET_FILL_SLOT
};
} // namespace

} // namespace duet::backend::DUET_BACKEND_NAMESPACE

/// Hands out the table even on a major mismatch, so that the core can name both versions.
extern "C" DUET_BACKEND_EXPORT duet_status duet_backend_entry(uint32_t abi_major, uint32_t,
                                                              const duet_backend_v1** table)
{
    *table = &duet::backend::DUET_BACKEND_NAMESPACE::table;
    return abi_major == DUET_ABI_MAJOR ? DUET_SUCCESS : DUET_ERROR_ABI_MISMATCH;
}
