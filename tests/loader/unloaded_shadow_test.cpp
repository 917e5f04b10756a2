// A file of a workload name that did not load shadows nothing: a stale plugin (or a broken manifest)
// found first is listed as not loaded, with why and the file used instead, and the next file of
// that name, which loads, gives the workload.
#include <gtest/gtest.h>

#include <duet/workload.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "environment.hpp"

namespace duet::test {
namespace {

namespace fs = std::filesystem;

const WorkloadPluginInfo& plugin_at(const WorkloadRegistry& registry, const fs::path& path)
{
    const auto& plugins = registry.plugins();
    const auto found = std::find_if(plugins.begin(), plugins.end(),
                                    [&](const WorkloadPluginInfo& plugin) { return plugin.path == path; });
    if (found == plugins.end()) {
        throw std::runtime_error("no plugin listed at " + path.string());
    }
    return *found;
}

TEST(WorkloadRegistrySearch, AFileThatDidNotLoadShadowsNothingAndTheNextOfItsNameWins)
{
    const fs::path built = fs::path(DUET_BUILD_WORKLOAD_DIR) / "libduet_workload_vector_add.so";
    // A plugin whose entry throws, and a manifest that is not one, each named vector_add.
    const TempDir stale;
    const fs::path library = stale.path() / "libduet_workload_vector_add.so";
    fs::copy_file(fs::path(DUET_FAULT_WORKLOAD_DIR) / "libduet_workload_fault_throwing_entry.so", library);
    const TempDir broken;
    const fs::path manifest = broken.path() / "vector_add.duet.toml";
    std::ofstream(manifest) << "this is not a manifest\n";
    for (const fs::path& bad : {library, manifest}) {
        SCOPED_TRACE(bad.string());
        const WorkloadRegistry registry({bad.parent_path(), DUET_BUILD_WORKLOAD_DIR});
        const WorkloadPluginInfo& failed = plugin_at(registry, bad);
        EXPECT_TRUE(failed.failed());
        EXPECT_TRUE(failed.shadowed_by.empty()) << failed.shadowed_by;
        EXPECT_NE(failed.reason.find(built.string() + ", found after it, is used instead"), std::string::npos)
            << failed.reason;
        const WorkloadPluginInfo& used = plugin_at(registry, built);
        EXPECT_TRUE(used.loaded) << used.reason;
        EXPECT_TRUE(used.shadowed_by.empty()) << "shadowed by " << used.shadowed_by << ": " << used.reason;
        EXPECT_EQ(std::count_if(registry.workloads().begin(), registry.workloads().end(),
                                [](const auto& workload) { return workload->info().name == "vector_add"; }),
                  1);
    }
}

} // namespace
} // namespace duet::test
