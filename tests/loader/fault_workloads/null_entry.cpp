// Fault workload plugin: the right ABI version, but its entry point returns no workload; the
// registry must list it as not loaded, saying so, and go on.
#include <duet/workload.hpp>

extern "C" __attribute__((visibility("default"))) duet::Workload* duet_workload_entry(std::uint32_t)
{
    return nullptr;
}

extern "C" __attribute__((visibility("default"))) std::uint32_t duet_workload_abi_version()
{
    return DUET_WORKLOAD_ABI_VERSION;
}
