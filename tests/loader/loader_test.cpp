// The loader against purpose-built fault plugins (wrong ABI major, missing entry symbol, failing
// initialisation, missing dependency): each is listed, not loaded, with a reason naming its cause,
// and the process goes on.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <duet/abi/backend.h>

#include "duet_test.hpp"

namespace duet::test {
namespace {

const std::filesystem::path fault_dir = DUET_FAULT_PLUGIN_DIR;

const Registry& fault_registry()
{
    static const Registry registry({fault_dir});
    return registry;
}

const BackendInfo* find_backend(const Registry& registry, const std::string& name)
{
    const auto& backends = registry.backends();
    const auto found = std::find_if(backends.begin(), backends.end(), [&](const auto& b) { return b.name == name; });
    return found == backends.end() ? nullptr : &*found;
}

struct FaultCase {
    std::string backend;
    std::vector<std::vector<std::string>> reason_mentions; // each inner list: one of these must appear
};

void PrintTo(const FaultCase& c, std::ostream* os)
{
    *os << c.backend;
}

class FaultPlugin : public ::testing::TestWithParam<FaultCase> {};

TEST_P(FaultPlugin, IsListedNotLoadedWithItsCause)
{
    const FaultCase& c = GetParam();
    const std::filesystem::path plugin = fault_dir / ("libduet_backend_" + c.backend + ".so");
    ASSERT_TRUE(std::filesystem::exists(plugin)) << plugin << " was not built";

    const BackendInfo* info = find_backend(fault_registry(), c.backend);
    ASSERT_NE(info, nullptr) << c.backend << " is not listed";
    EXPECT_FALSE(info->loaded);
    EXPECT_EQ(info->device_count, 0u);
    EXPECT_EQ(std::filesystem::weakly_canonical(info->path), std::filesystem::weakly_canonical(plugin));
    for (const auto& alternatives : c.reason_mentions) {
        bool found = false;
        for (const std::string& text : alternatives) {
            found = found || info->reason.find(text) != std::string::npos;
        }
        std::string wanted;
        for (const std::string& text : alternatives) {
            wanted += (wanted.empty() ? "\"" : " or \"") + text + "\"";
        }
        EXPECT_TRUE(found) << "the reason does not name " << wanted << ": " << info->reason;
    }
    // Visible in the test log: what a user asking for this backend would read.
    std::cout << c.backend << ": " << info->reason << "\n";
    RecordProperty("reason", info->reason);
}

TEST_P(FaultPlugin, SelectingItIsUnavailableWithTheReason)
{
    const FaultCase& c = GetParam();
    const BackendInfo* info = find_backend(fault_registry(), c.backend);
    ASSERT_NE(info, nullptr);
    auto error = expect_error<Unavailable>([&] { (void)fault_registry().select(c.backend + ":0"); });
    if (error) {
        EXPECT_NE(std::string(error->what()).find(info->reason), std::string::npos)
            << "the reason \"" << info->reason << "\" is not in: " << error->what();
    }
}

INSTANTIATE_TEST_SUITE_P(
    Loader, FaultPlugin,
    ::testing::Values(FaultCase{"fault_wrong_abi", {{"99"}, {std::to_string(DUET_ABI_MAJOR)}, {"ABI", "abi"}}},
                      FaultCase{"fault_missing_entry", {{"duet_backend_entry"}}},
                      FaultCase{"fault_failing_init", {{"simulated initialisation failure: no such driver"}}},
                      FaultCase{"fault_missing_dependency",
                                {{"libduet_absent_dependency.so"}, {"cannot open shared object file"}}}),
    [](const ::testing::TestParamInfo<FaultCase>& info) { return info.param.backend; });

TEST(Loader, FaultRegistryHasNoDevicesAndListsTheKnownBackendsAsNotFound)
{
    EXPECT_TRUE(fault_registry().devices().empty());
    for (const std::string known : {"opencl", "cuda"}) {
        const BackendInfo* info = find_backend(fault_registry(), known);
        ASSERT_NE(info, nullptr) << known << " is not listed";
        EXPECT_FALSE(info->loaded);
        EXPECT_FALSE(info->reason.empty());
    }
    EXPECT_THROW((void)fault_registry().default_device(), Error);
}

TEST(Loader, LoadingTheFaultsAgainIsHarmless)
{
    const Registry again({fault_dir});
    EXPECT_EQ(again.backends().size(), fault_registry().backends().size());
    for (const BackendInfo& info : again.backends()) {
        EXPECT_FALSE(info.loaded) << info.name;
    }
}

TEST(Loader, ProcessGoesOnToUseTheRealBackends)
{
    (void)fault_registry();
    // A registry over the faults and the real backends together: the faults do not stop the rest.
    const Registry mixed({fault_dir, DUET_BUILD_BACKEND_DIR});
    EXPECT_EQ(mixed.devices().size(), Registry::global().devices().size());
    for (const std::string fault :
         {"fault_wrong_abi", "fault_missing_entry", "fault_failing_init", "fault_missing_dependency"}) {
        const BackendInfo* info = find_backend(mixed, fault);
        ASSERT_NE(info, nullptr) << fault;
        EXPECT_FALSE(info->loaded);
    }
    if (mixed.devices().empty()) {
        GTEST_SKIP() << "no real device to run on after the faults";
    }
    const Device& device = mixed.devices().front();
    Queue queue = device.create_queue();
    const std::vector<float> values = random_floats(100, test_seed());
    Buffer<float> buffer = make_buffer(device, queue, values);
    EXPECT_TRUE(bitwise_equal(values, download(queue, buffer)));
}

TEST(Loader, FirstFileOfANameWins)
{
    // The wrong-ABI plugin under the failing one's name, in a directory searched first: the
    // registry must try it, and only it, for that name.
    TempDir first;
    std::filesystem::copy_file(fault_dir / "libduet_backend_fault_wrong_abi.so",
                               first.path() / "libduet_backend_fault_failing_init.so");
    const Registry registry({first.path(), fault_dir});
    const BackendInfo* info = find_backend(registry, "fault_failing_init");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->path, first.path() / "libduet_backend_fault_failing_init.so");
    EXPECT_NE(info->reason.find("99"), std::string::npos) << info->reason;
    EXPECT_EQ(info->reason.find("simulated"), std::string::npos)
        << "the later file of the name was tried: " << info->reason;
}

TEST(Loader, EachBackendIsListedOnce)
{
    // The real directory given twice: each backend is loaded from the first and listed once.
    const Registry registry({DUET_BUILD_BACKEND_DIR, fault_dir, DUET_BUILD_BACKEND_DIR});
    for (const BackendInfo& info : registry.backends()) {
        const auto count = std::count_if(registry.backends().begin(), registry.backends().end(),
                                         [&](const BackendInfo& other) { return other.name == info.name; });
        EXPECT_EQ(count, 1) << info.name << " is listed more than once";
    }
}

} // namespace
} // namespace duet::test
