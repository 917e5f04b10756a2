// The workload registry's search order: a folder named twice adds nothing, and of two files of one
// workload name the first found is used, the other listed as shadowed by it, not as broken.
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

TEST(WorkloadRegistrySearch, AFolderNamedTwiceLoadsEachFileOnce)
{
    const WorkloadRegistry once({DUET_BUILD_WORKLOAD_DIR});
    // A second spelling of the same folder, as DUET_PLUGIN_PATH may hold the build's or the installed one.
    const WorkloadRegistry twice({DUET_BUILD_WORKLOAD_DIR, fs::path(DUET_BUILD_WORKLOAD_DIR) / "."});
    EXPECT_EQ(twice.plugins().size(), once.plugins().size());
    EXPECT_EQ(twice.workloads().size(), once.workloads().size());
    for (const auto& plugin : twice.plugins()) {
        EXPECT_TRUE(plugin.shadowed_by.empty()) << plugin.path << " shadowed by " << plugin.shadowed_by;
    }
}

TEST(WorkloadRegistrySearch, TheFirstFileOfAWorkloadNameWinsAndTheOtherIsShadowedNotBroken)
{
    // A copy of vector_add's plugin under another name still gives the workload "vector_add".
    const TempDir mine;
    const fs::path copy = mine.path() / "libduet_workload_my_vector_add.so";
    fs::copy_file(fs::path(DUET_BUILD_WORKLOAD_DIR) / "libduet_workload_vector_add.so", copy);
    const WorkloadRegistry registry({mine.path(), DUET_BUILD_WORKLOAD_DIR});
    const auto& plugins = registry.plugins();
    const auto built = std::find_if(plugins.begin(), plugins.end(), [](const WorkloadPluginInfo& plugin) {
        return plugin.path.filename() == "libduet_workload_vector_add.so";
    });
    ASSERT_NE(built, plugins.end());
    EXPECT_EQ(built->shadowed_by, copy);
    EXPECT_FALSE(built->loaded);
    EXPECT_FALSE(built->failed());
    EXPECT_NE(built->reason.find("the first file of a name that loads wins"), std::string::npos) << built->reason;
    EXPECT_EQ(std::count_if(registry.workloads().begin(), registry.workloads().end(),
                            [](const auto& workload) { return workload->info().name == "vector_add"; }),
              1);
}

} // namespace
} // namespace duet::test
