// Opening libnccl.so.2 and libcuda.so.1 with Boost.DLL, and turning their failures into duet::Error.
#include "nccl.hpp"

#include <duet/detail/plugins.hpp>
#include <duet/error.hpp>

#include <boost/dll/shared_library.hpp>

#include <optional>
#include <vector>

namespace duet::distributed::nccl {

namespace {

/// Opens `name` from the system's library path, for good (see open_plugin: a library that the
/// driver may still call back into at exit is never unloaded).
std::optional<boost::dll::shared_library> open_system_library(const char* name, std::string& reason)
{
    try {
        return boost::dll::shared_library(name, boost::dll::load_mode::search_system_folders |
                                                    boost::dll::load_mode::rtld_now |
                                                    boost::dll::load_mode::rtld_local);
    } catch (const std::exception& error) {
        reason = std::string(name) + " could not be opened: " + detail::load_failure_text(error);
        return std::nullopt;
    }
}

template <class Function>
bool resolve(const boost::dll::shared_library& library, const char* library_name, const char* symbol,
             Function*& function, std::string& reason)
{
    if (!library.has(symbol)) {
        reason = std::string(library_name) + " has no " + symbol;
        return false;
    }
    function = &library.get<Function>(symbol);
    return true;
}

std::shared_ptr<const Library> open(std::string& reason)
{
    auto nccl = open_system_library("libnccl.so.2", reason);
    if (!nccl) {
        return nullptr;
    }
    auto cuda = open_system_library("libcuda.so.1", reason);
    if (!cuda) {
        return nullptr;
    }
    // Both stay loaded for the process's life, as plugins do.
    static std::vector<boost::dll::shared_library> kept;
    kept.push_back(*nccl);
    kept.push_back(*cuda);

    auto library = std::make_shared<Library>();
    const auto from_nccl = [&](const char* symbol, auto*& function) {
        return resolve(*nccl, "libnccl.so.2", symbol, function, reason);
    };
    const auto from_cuda = [&](const char* symbol, auto*& function) {
        return resolve(*cuda, "libcuda.so.1", symbol, function, reason);
    };
    const bool complete =
        from_nccl("ncclGetVersion", library->get_version) && from_nccl("ncclGetUniqueId", library->get_unique_id) &&
        from_nccl("ncclCommInitRank", library->comm_init_rank) && from_nccl("ncclCommDestroy", library->comm_destroy) &&
        from_nccl("ncclAllReduce", library->all_reduce) && from_nccl("ncclAllGather", library->all_gather) &&
        from_nccl("ncclBroadcast", library->broadcast) && from_nccl("ncclSend", library->send) &&
        from_nccl("ncclRecv", library->recv) && from_nccl("ncclGroupStart", library->group_start) &&
        from_nccl("ncclGroupEnd", library->group_end) && from_nccl("ncclGetErrorString", library->get_error_string) &&
        from_cuda("cuCtxSetCurrent", library->cu_ctx_set_current) &&
        from_cuda("cuGetErrorName", library->cu_get_error_name);
    if (!complete) {
        return nullptr;
    }
    return library;
}

} // namespace

void Library::check(Result result, const char* call) const
{
    if (result != success) {
        const char* text = get_error_string(result);
        throw Error("NCCL", call, result, "", text != nullptr ? text : "no description from ncclGetErrorString");
    }
}

void Library::make_current(void* context) const
{
    if (const int code = cu_ctx_set_current(context); code != 0) {
        const char* name = nullptr;
        cu_get_error_name(code, &name);
        throw Error("cuda", "cuCtxSetCurrent", code, name != nullptr ? name : "",
                    "cannot make the device's primary context current for NCCL");
    }
}

std::shared_ptr<const Library> load(std::string& reason)
{
    struct Loaded {
        std::shared_ptr<const Library> library;
        std::string reason;
    };
    static const Loaded loaded = [] {
        Loaded tried;
        tried.library = open(tried.reason);
        return tried;
    }();
    reason = loaded.reason;
    return loaded.library;
}

} // namespace duet::distributed::nccl
