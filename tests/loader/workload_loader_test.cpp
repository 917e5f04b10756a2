// Files other than plugin libraries that give workloads, through the loaders registered with the
// workload registry (the CLI registers the manifest loader): a folder's plugin libraries are searched
// before a loader's files, the first file of a name wins, a file the loader refuses is listed with
// why, a registry without the loader does not see such files, and a workload not found names them.
#include <gtest/gtest.h>

#include <duet/error.hpp>
#include <duet/workload.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "environment.hpp"

namespace duet::test {
namespace {

namespace fs = std::filesystem;

/// A workload that only has a name.
class Named final : public Workload {
public:
    explicit Named(std::string name) : name_(std::move(name)) {}
    WorkloadInfo info() const override
    {
        return {.name = name_,
                .description = "named by its file",
                .variants = {"default"},
                .parameters = {},
                .test_cases = {{}},
                .rules = {}};
    }
    Footprint footprint(const RunRequest&) const override { return {}; }
    Measurement run(const RunRequest&) const override { throw std::logic_error("not run"); }

private:
    std::string name_;
};

/// Files named <name>.fake holding the workload's name, or "refuse" for one it cannot load.
WorkloadLoader fake_loader()
{
    return {.suffix = ".fake", .files = "fakes", .load = [](const fs::path& path) -> std::shared_ptr<const Workload> {
                std::ifstream file(path);
                const std::string text{std::istreambuf_iterator<char>(file), {}};
                if (text == "refuse") {
                    throw std::runtime_error("not a fake workload");
                }
                return std::make_shared<Named>(text);
            }};
}

const WorkloadPluginInfo* listed(const WorkloadRegistry& registry, const fs::path& path)
{
    const auto& plugins = registry.plugins();
    const auto found = std::find_if(plugins.begin(), plugins.end(),
                                    [&](const WorkloadPluginInfo& plugin) { return plugin.path == path; });
    return found == plugins.end() ? nullptr : &*found;
}

TEST(WorkloadLoaders, AFoldersLibrariesComeBeforeALoadersFilesAndTheFirstOfANameWins)
{
    const TempDir folder;
    const fs::path library = folder.path() / "libduet_workload_vector_add.so";
    fs::copy_file(fs::path(DUET_BUILD_WORKLOAD_DIR) / "libduet_workload_vector_add.so", library);
    const fs::path same_file = folder.path() / "vector_add.fake";
    const fs::path same_workload = folder.path() / "another.fake";
    const fs::path own = folder.path() / "mine.fake";
    const fs::path refused = folder.path() / "broken.fake";
    std::ofstream(same_file) << "fake_vector_add";
    std::ofstream(same_workload) << "vector_add";
    std::ofstream(own) << "mine";
    std::ofstream(refused) << "refuse";

    const WorkloadRegistry registry({folder.path()}, {fake_loader()});
    std::vector<fs::path> order;
    for (const auto& plugin : registry.plugins()) {
        order.push_back(plugin.path);
    }
    EXPECT_EQ(order, (std::vector<fs::path>{library, same_workload, refused, own, same_file}));
    EXPECT_TRUE(listed(registry, library)->loaded);
    // The library's file name, vector_add, is taken: not even opened.
    EXPECT_EQ(listed(registry, same_file)->shadowed_by, library);
    // Its workload's name is taken.
    EXPECT_EQ(listed(registry, same_workload)->shadowed_by, library);
    EXPECT_TRUE(listed(registry, own)->loaded);
    const WorkloadPluginInfo* broken = listed(registry, refused);
    EXPECT_TRUE(broken->failed());
    EXPECT_EQ(broken->reason, "not a fake workload");
    EXPECT_EQ(registry.find("mine")->info().name, "mine");
    EXPECT_EQ(registry.workloads().size(), 2u);

    // Without the loader its files are not workloads at all.
    const WorkloadRegistry plugins_only({folder.path()}, {});
    EXPECT_EQ(plugins_only.plugins().size(), 1u);
    EXPECT_EQ(listed(plugins_only, own), nullptr);
}

TEST(WorkloadLoaders, AWorkloadNotFoundNamesEachLoadersFiles)
{
    const TempDir empty;
    for (const bool with_loader : {false, true}) {
        const WorkloadRegistry registry({empty.path()},
                                        with_loader ? std::vector{fake_loader()} : std::vector<WorkloadLoader>{});
        try {
            registry.find("absent");
            ADD_FAILURE() << "found 'absent'";
        } catch (const NotFound& error) {
            const std::string files =
                with_loader ? "libduet_workload_<name>.so and <name>.fake in: " : "libduet_workload_<name>.so in: ";
            EXPECT_NE(error.message().find("searched for " + files), std::string::npos) << error.message();
            const std::string kinds =
                with_loader ? "workload plugins or fakes goes there" : "workload plugins goes there";
            EXPECT_NE(error.message().find(kinds), std::string::npos) << error.message();
        }
    }
}

TEST(WorkloadLoaders, ARegisteredLoaderServesTheRegistriesMadeAfterItAndOneOfItsSuffixReplacesIt)
{
    const TempDir folder;
    std::ofstream(folder.path() / "mine.fake") << "mine";
    register_workload_loader(fake_loader());
    WorkloadLoader renamed = fake_loader();
    renamed.files = "renamed fakes";
    register_workload_loader(renamed);
    const auto loaders = registered_workload_loaders();
    EXPECT_EQ(std::count_if(loaders.begin(), loaders.end(),
                            [](const WorkloadLoader& loader) { return loader.suffix == ".fake"; }),
              1);
    const auto fake = std::find_if(loaders.begin(), loaders.end(),
                                   [](const WorkloadLoader& loader) { return loader.suffix == ".fake"; });
    ASSERT_NE(fake, loaders.end());
    EXPECT_EQ(fake->files, "renamed fakes");
    const WorkloadRegistry registry({folder.path()});
    EXPECT_EQ(registry.find("mine")->info().name, "mine");
}

} // namespace
} // namespace duet::test
