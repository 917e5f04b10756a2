// A file of a workload name that did not load shadows nothing: a stale plugin (or a broken manifest)
// found first is listed as not loaded, with why and the file used instead, and the next file of
// that name, which loads, gives the workload.
#include <gtest/gtest.h>

#include <duet/manifest.hpp>
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
        const WorkloadRegistry registry({bad.parent_path(), DUET_BUILD_WORKLOAD_DIR}, {workload::manifest_loader()});
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

// Of each workload name exactly one loaded file is used, and every note names the file used: a file
// whose workload another file, found before it, gives claims nothing, so the next file of its file
// name is opened and may give its own workload; and a file that did not load is told of that one,
// not of the shadowed file between them.
TEST(WorkloadRegistrySearch, AFileWhoseWorkloadIsShadowedLetsTheNextFileOfItsNameBeUsed)
{
    const fs::path built(DUET_BUILD_WORKLOAD_DIR);
    // In search order: vector_add; a stale plugin named bandwidth; vector_add again under bandwidth's
    // file name; bandwidth itself.
    const TempDir first, stale, impostor, last;
    const fs::path vector_add = first.path() / "libduet_workload_vector_add.so";
    const fs::path failed = stale.path() / "libduet_workload_bandwidth.so";
    const fs::path shadowed = impostor.path() / "libduet_workload_bandwidth.so";
    const fs::path bandwidth = last.path() / "libduet_workload_bandwidth.so";
    fs::copy_file(built / "libduet_workload_vector_add.so", vector_add);
    fs::copy_file(fs::path(DUET_FAULT_WORKLOAD_DIR) / "libduet_workload_fault_throwing_entry.so", failed);
    fs::copy_file(built / "libduet_workload_vector_add.so", shadowed);
    fs::copy_file(built / "libduet_workload_bandwidth.so", bandwidth);
    const WorkloadRegistry registry({first.path(), stale.path(), impostor.path(), last.path()});

    for (const char* name : {"vector_add", "bandwidth"}) {
        EXPECT_EQ(std::count_if(registry.workloads().begin(), registry.workloads().end(),
                                [&](const auto& workload) { return workload->info().name == name; }),
                  1)
            << name;
    }
    EXPECT_TRUE(plugin_at(registry, vector_add).loaded) << plugin_at(registry, vector_add).reason;
    const WorkloadPluginInfo& used = plugin_at(registry, bandwidth);
    EXPECT_TRUE(used.loaded) << used.reason;
    EXPECT_TRUE(used.shadowed_by.empty()) << "shadowed by " << used.shadowed_by;
    const WorkloadPluginInfo& impostor_info = plugin_at(registry, shadowed);
    EXPECT_FALSE(impostor_info.loaded);
    EXPECT_EQ(impostor_info.shadowed_by, vector_add) << impostor_info.reason;
    const WorkloadPluginInfo& failed_info = plugin_at(registry, failed);
    EXPECT_TRUE(failed_info.failed());
    EXPECT_NE(failed_info.reason.find(bandwidth.string() + ", found after it, is used instead"), std::string::npos)
        << failed_info.reason;
    EXPECT_EQ(failed_info.reason.find(shadowed.string()), std::string::npos) << failed_info.reason;
}

} // namespace
} // namespace duet::test
