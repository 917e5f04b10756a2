// Fault workload plugin: the right ABI version, but its entry point throws while making the
// workload; the registry must list it as not loaded with the exception's text, and go on.
#include <duet/workload.hpp>

#include <stdexcept>

extern "C" __attribute__((visibility("default"))) duet::Workload* duet_workload_entry(std::uint32_t)
{
    throw std::runtime_error("simulated: the workload entry threw");
}

extern "C" __attribute__((visibility("default"))) std::uint32_t duet_workload_abi_version()
{
    return DUET_WORKLOAD_ABI_VERSION;
}
