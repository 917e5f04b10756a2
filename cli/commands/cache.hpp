// The kernel cache as the commands show it: `duet cache ls|clear`, doctor's section and check, and
// the note a command that builds kernels prints when the cache cannot be used. The core owns the
// cache's rules and file format (duet/cache.hpp); nothing here reads cache files.
#pragma once

#include "render/json.hpp"

#include <string>

namespace duet::cli {

/// Before a command that builds kernels: a bad DUET_CACHE is a UsageError naming it; a cache
/// directory that cannot be used is said once on standard error, and the builds go on without it.
void check_kernel_cache();

/// What doctor shows of the kernel cache.
struct CacheDiagnosis {
    bool ok = true;      ///< false when DUET_CACHE is bad or the directory cannot be used
    std::string check;   ///< doctor's check line
    std::string summary; ///< what follows "Kernel cache: "
    json::Value json;
};
CacheDiagnosis diagnose_kernel_cache();

} // namespace duet::cli
