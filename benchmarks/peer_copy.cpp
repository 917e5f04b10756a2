// Copy bandwidth between two devices of one backend, for each ordered pair (its GPUs, or every
// device of a backend that has none): duet's own route and its staged route forced, against the
// raw API on the same buffers: cuMemcpyPeerAsync with peer access enabled, and a serial staging
// through one pinned host buffer (device to host, then host to device, not overlapped).
// Usage: duet_peer_copy [MiB per copy, 256] [rounds, 10]. The staged route's chunk size and count
// come from DUET_PEER_CHUNK_BYTES and DUET_PEER_CHUNKS (see README), for tuning on a machine.
#include <duet/duet.hpp>

#include "measure.hpp"

#include <CL/cl.h>
#ifdef DUET_BENCH_CUDA
#include <cuda.h>
#include <dlfcn.h>
#endif

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

using duet::bench::require;

#ifdef DUET_BENCH_CUDA
/// The driver calls of the raw CUDA rows, resolved at run time (cuGetProcAddress), so that the
/// benchmark starts where no NVIDIA driver is installed; the members keep the header's names.
#define DUET_RAW_CUDA(X)                                                                                               \
    X(cuCtxSetCurrent)                                                                                                 \
    X(cuStreamSynchronize)                                                                                             \
    X(cuMemcpyDtoHAsync)                                                                                               \
    X(cuMemcpyHtoDAsync)                                                                                               \
    X(cuDeviceCanAccessPeer)                                                                                           \
    X(cuCtxEnablePeerAccess)                                                                                           \
    X(cuMemcpyPeerAsync)

struct RawCuda {
#define DUET_DECLARE(name) decltype(&::name) name = nullptr;
    DUET_RAW_CUDA(DUET_DECLARE)
#undef DUET_DECLARE
};

/// The driver, loaded on first use; the CUDA backend has loaded it already when it has devices.
const RawCuda& raw_cuda()
{
    static const RawCuda loaded = [] {
        RawCuda raw;
        void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        require(library != nullptr, "dlopen libcuda.so.1", 0);
        using GetProcAddress =
            CUresult(CUDAAPI*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
        const auto get = reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
        require(get != nullptr, "dlsym cuGetProcAddress_v2", 0);
        CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
#define DUET_RESOLVE(name)                                                                                             \
    require(get(#name, reinterpret_cast<void**>(&raw.name), CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found) ==      \
                    CUDA_SUCCESS &&                                                                                    \
                found == CU_GET_PROC_ADDRESS_SUCCESS,                                                                  \
            "cuGetProcAddress " #name, 0);
        DUET_RAW_CUDA(DUET_RESOLVE)
#undef DUET_RESOLVE
        return raw;
    }();
    return loaded;
}
#endif

/// The raw API's copies between the two buffers, where this build has them; empty otherwise.
struct RawCopies {
    std::function<void()> peer;   ///< direct, peer access enabled (CUDA only)
    std::function<void()> serial; ///< device to host, then host to device, through `host`
};

RawCopies raw_copies(duet::Queue& from_queue, duet::Queue& to_queue, const duet::RawBuffer& src,
                     const duet::RawBuffer& dst, void* host, std::size_t bytes)
{
    const duet::Device from = src.device();
    const duet::Device to = dst.device();
    if (from.backend() == "opencl") {
        const auto read_queue = static_cast<cl_command_queue>(from_queue.native());
        const auto write_queue = static_cast<cl_command_queue>(to_queue.native());
        const auto source = static_cast<cl_mem>(src.native());
        const auto target = static_cast<cl_mem>(dst.native());
        return {{}, [=] {
                    cl_int code = clEnqueueReadBuffer(read_queue, source, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr);
                    require(code == CL_SUCCESS, "clEnqueueReadBuffer", code);
                    code = clEnqueueWriteBuffer(write_queue, target, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr);
                    require(code == CL_SUCCESS, "clEnqueueWriteBuffer", code);
                }};
    }
#ifdef DUET_BENCH_CUDA
    if (from.backend() == "cuda") {
        const RawCuda& cu = raw_cuda();
        const auto from_context = static_cast<CUcontext>(from.native().context);
        const auto to_context = static_cast<CUcontext>(to.native().context);
        const auto read_stream = static_cast<CUstream>(from_queue.native());
        const auto write_stream = static_cast<CUstream>(to_queue.native());
        const auto source = reinterpret_cast<CUdeviceptr>(src.native());
        const auto target = reinterpret_cast<CUdeviceptr>(dst.native());
        RawCopies raw;
        raw.serial = [=, &cu] {
            require(cu.cuCtxSetCurrent(from_context) == CUDA_SUCCESS, "cuCtxSetCurrent", 0);
            CUresult code = cu.cuMemcpyDtoHAsync(host, source, bytes, read_stream);
            require(code == CUDA_SUCCESS, "cuMemcpyDtoHAsync", code);
            require(cu.cuStreamSynchronize(read_stream) == CUDA_SUCCESS, "cuStreamSynchronize", 0);
            require(cu.cuCtxSetCurrent(to_context) == CUDA_SUCCESS, "cuCtxSetCurrent", 0);
            code = cu.cuMemcpyHtoDAsync(target, host, bytes, write_stream);
            require(code == CUDA_SUCCESS, "cuMemcpyHtoDAsync", code);
        };
        // The CUdevice as duet holds it: cuGetProcAddress("cuCtxGetDevice") gives CUDA 13's two-argument
        // cuCtxGetDevice_v2, which the one-argument declaration would call with a stray context.
        int possible = 0;
        const auto from_device = static_cast<CUdevice>(reinterpret_cast<std::uintptr_t>(from.native().device));
        const auto to_device = static_cast<CUdevice>(reinterpret_cast<std::uintptr_t>(to.native().device));
        require(cu.cuDeviceCanAccessPeer(&possible, to_device, from_device) == CUDA_SUCCESS, "cuDeviceCanAccessPeer",
                0);
        if (possible != 0) {
            require(cu.cuCtxSetCurrent(to_context) == CUDA_SUCCESS, "cuCtxSetCurrent", 0);
            const CUresult enabled = cu.cuCtxEnablePeerAccess(from_context, 0);
            require(enabled == CUDA_SUCCESS || enabled == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
                    "cuCtxEnablePeerAccess", enabled);
            raw.peer = [=, &cu] {
                require(cu.cuCtxSetCurrent(to_context) == CUDA_SUCCESS, "cuCtxSetCurrent", 0);
                const CUresult code =
                    cu.cuMemcpyPeerAsync(target, to_context, source, from_context, bytes, write_stream);
                require(code == CUDA_SUCCESS, "cuMemcpyPeerAsync", code);
            };
        }
        return raw;
    }
#endif
    return {};
}

/// GB/s of `copy` over `rounds`, host-timed from both queues idle to both drained: the median
/// and half the interquartile range.
struct Rate {
    double median = 0, spread = 0;
};

Rate measure(duet::Queue& from_queue, duet::Queue& to_queue, const std::function<void()>& copy, std::size_t bytes,
             int rounds)
{
    std::vector<double> values;
    for (int round = 0; round < rounds + 1; ++round) {
        from_queue.finish();
        to_queue.finish();
        const auto start = std::chrono::steady_clock::now();
        copy();
        to_queue.finish();
        from_queue.finish();
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (round > 0) { // the first is a warm-up: peer access, staging chunks, caches
            values.push_back(static_cast<double>(bytes) / seconds / 1e9);
        }
    }
    return {duet::bench::median(values), duet::bench::half_iqr(values)};
}

std::string rate_text(const std::optional<Rate>& rate)
{
    if (!rate) {
        return "-";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.2f±%.2f", rate->median, rate->spread);
    return text;
}

std::string ratio_text(const std::optional<Rate>& ours, const std::optional<Rate>& raw)
{
    if (!ours || !raw || raw->median <= 0) {
        return "-";
    }
    char text[16];
    std::snprintf(text, sizeof text, "%.1f%%", 100 * ours->median / raw->median);
    return text;
}

/// The devices whose pairs are measured: a backend's GPUs, or all of its devices where it has none.
std::map<std::string, std::vector<duet::Device>> measured_devices()
{
    std::map<std::string, std::vector<duet::Device>> all, gpus;
    for (const auto& device : duet::Registry::global().devices()) {
        all[device.backend()].push_back(device);
        if (device.properties().type == duet::DeviceType::gpu) {
            gpus[device.backend()].push_back(device);
        }
    }
    for (auto& [backend, devices] : all) {
        if (gpus[backend].size() >= 2) {
            devices = gpus[backend];
        }
    }
    return all;
}

} // namespace

int main(int argc, char** argv)
{
    // Each row as it is measured: a pair that fails still leaves the rows before it.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    const std::size_t bytes = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256) << 20;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 10;
    if (bytes == 0 || rounds < 1) {
        std::fprintf(stderr, "usage: duet_peer_copy [MiB per copy, at least 1] [rounds, at least 1]\n");
        return 2;
    }
    const char* chunk = std::getenv("DUET_PEER_CHUNK_BYTES");
    const char* chunks = std::getenv("DUET_PEER_CHUNKS");
    std::printf("copies between devices: %zu MiB per copy, median ± half IQR of %d, GB/s (1e9 bytes/s), issued on "
                "the destination's queue; staging chunks: DUET_PEER_CHUNK_BYTES=%s, DUET_PEER_CHUNKS=%s\n",
                bytes >> 20, rounds, chunk ? chunk : "(duet's default)", chunks ? chunks : "(duet's default)");
    std::printf("%-22s %-7s %13s %13s %13s %13s %8s %8s\n", "pair", "route", "duet", "duet staged", "raw peer",
                "raw serial", "vs peer", "vs serial");
    // One pattern for every pair's source.
    std::vector<unsigned char> pattern(bytes);
    for (std::size_t i = 0; i < bytes; ++i) {
        pattern[i] = static_cast<unsigned char>(i * 131 + 7);
    }
    bool measured = false;
    for (const auto& [backend, devices] : measured_devices()) {
        for (const auto& from : devices) {
            for (const auto& to : devices) {
                if (from == to) {
                    continue;
                }
                measured = true;
                auto from_queue = from.create_queue();
                auto to_queue = to.create_queue();
                const auto src = from.alloc_bytes(bytes);
                const auto dst = to.alloc_bytes(bytes);
                from_queue.write_bytes(src, 0, pattern.data(), bytes);
                from_queue.finish();
                auto host = from.alloc_host(bytes, duet::HostMemoryKind::pinned);
                const RawCopies raw = raw_copies(from_queue, to_queue, src, dst, host.data(), bytes);

                const duet::PeerRoute route = to.peer_route(from);
                const Rate automatic = measure(
                    from_queue, to_queue, [&] { to_queue.copy_bytes(dst, 0, src, 0, bytes); }, bytes, rounds);
                const Rate staged = measure(
                    from_queue, to_queue, [&] { to_queue.copy_bytes(dst, 0, src, 0, bytes, duet::PeerRoute::staged); },
                    bytes, rounds);
                // The numbers mean nothing if the copy is wrong.
                std::vector<unsigned char> back(bytes);
                to_queue.read_bytes(back.data(), dst, 0, bytes);
                to_queue.finish();
                require(back == pattern, "the staged copy's bytes", 0);
                std::optional<Rate> raw_peer, raw_serial;
                if (raw.peer) {
                    raw_peer = measure(from_queue, to_queue, raw.peer, bytes, rounds);
                }
                if (raw.serial) {
                    raw_serial = measure(from_queue, to_queue, raw.serial, bytes, rounds);
                }
                const std::string pair = from.selector() + " -> " + to.selector();
                std::printf(
                    "%-22s %-7s %13s %13s %13s %13s %8s %8s\n", pair.c_str(),
                    std::string(duet::to_string(route)).c_str(), rate_text(automatic).c_str(),
                    rate_text(staged).c_str(), rate_text(raw_peer).c_str(), rate_text(raw_serial).c_str(),
                    ratio_text(route == duet::PeerRoute::direct ? std::optional(automatic) : std::nullopt, raw_peer)
                        .c_str(),
                    ratio_text(staged, raw_serial).c_str());
            }
        }
    }
    if (!measured) {
        std::printf("no backend has two devices (with PoCL: POCL_DEVICES=\"pthread pthread\")\n");
    }
    return 0;
}
