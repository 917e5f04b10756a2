// Registry: every known backend listed with its state, selectors (backend:index, backend:type,
// name substring), unknown selectors refused with the devices that exist, DUET_DEVICE, and a
// registry over a directory with no plugins.
#include <algorithm>

#include "duet_test.hpp"

namespace duet::test {
namespace {

const Registry& registry()
{
    return Registry::global();
}

// The message lists every device: by selector or by name.
::testing::AssertionResult lists_every_device(const std::string& message)
{
    for (const Device& device : registry().devices()) {
        if (!mentions_any(message, {device.selector(), device.properties().name})) {
            return ::testing::AssertionFailure() << "the message does not list " << device.selector() << " ("
                                                 << device.properties().name << "): " << message;
        }
    }
    return ::testing::AssertionSuccess();
}

std::optional<Device> first_of(const std::string& backend, std::optional<DeviceType> type = std::nullopt)
{
    for (const Device& device : registry().devices()) {
        if (device.backend() == backend && (!type || device.properties().type == *type)) {
            return device;
        }
    }
    return std::nullopt;
}

TEST(Registry, ListsEveryKnownBackendWithItsState)
{
    for (const std::string known : {"opencl", "cuda"}) {
        const auto& backends = registry().backends();
        const auto info =
            std::find_if(backends.begin(), backends.end(), [&](const auto& b) { return b.name == known; });
        ASSERT_NE(info, backends.end()) << "backend " << known << " is not listed";
        if (info->loaded) {
            EXPECT_FALSE(info->path.empty());
            EXPECT_FALSE(info->version.empty());
            EXPECT_GT(info->device_count, 0u) << known << " loaded with no devices should say why instead";
        } else {
            EXPECT_FALSE(info->reason.empty()) << known << " did not load and gives no reason";
            EXPECT_EQ(info->device_count, 0u);
        }
    }
}

TEST(Registry, DeviceCountsMatchTheDeviceList)
{
    std::size_t total = 0;
    for (const BackendInfo& info : registry().backends()) {
        const auto count = std::count_if(registry().devices().begin(), registry().devices().end(),
                                         [&](const Device& d) { return d.backend() == info.name; });
        EXPECT_EQ(static_cast<std::size_t>(count), info.device_count) << info.name;
        total += info.device_count;
    }
    EXPECT_EQ(total, registry().devices().size());
}

TEST(Registry, DevicesOfABackendAreIndexedInOrder)
{
    std::map<std::string, std::uint32_t> next;
    for (const Device& device : registry().devices()) {
        EXPECT_EQ(device.index(), next[device.backend()]++) << device.selector();
    }
}

TEST(Registry, BackendAndIndexSelectorFindsTheDevice)
{
    if (registry().devices().empty()) {
        GTEST_SKIP() << "no devices found";
    }
    for (const Device& device : registry().devices()) {
        EXPECT_TRUE(registry().select(device.backend() + ":" + std::to_string(device.index())) == device);
    }
    if (const auto opencl = first_of("opencl")) {
        EXPECT_TRUE(registry().select("opencl:0") == *opencl);
    }
}

TEST(Registry, TypeSelectorsFindADeviceOfThatType)
{
    bool any = false;
    for (const auto& [selector, backend, type] :
         std::initializer_list<std::tuple<const char*, const char*, DeviceType>>{
             {"opencl:cpu", "opencl", DeviceType::cpu}, {"opencl:gpu", "opencl", DeviceType::gpu}}) {
        const auto expected = first_of(backend, type);
        if (!expected) {
            continue;
        }
        any = true;
        const Device selected = registry().select(selector);
        EXPECT_EQ(selected.backend(), backend) << selector;
        EXPECT_EQ(selected.properties().type, type) << selector;
    }
    if (const auto gpu = std::find_if(registry().devices().begin(), registry().devices().end(),
                                      [](const Device& d) { return d.properties().type == DeviceType::gpu; });
        gpu != registry().devices().end()) {
        any = true;
        EXPECT_EQ(registry().select("gpu").properties().type, DeviceType::gpu);
    }
    if (!any) {
        GTEST_SKIP() << "no OpenCL CPU or GPU and no GPU at all: nothing to select by type";
    }
}

TEST(Registry, NameSubstringSelectsTheDevice)
{
    if (registry().devices().empty()) {
        GTEST_SKIP() << "no devices found";
    }
    const Device& device = registry().devices().back();
    const std::string& name = device.properties().name;
    // A middle part of the name, so neither prefix nor exact match is needed.
    const std::string part = name.size() > 6 ? name.substr(2, name.size() - 4) : name;
    const Device selected = registry().select(part);
    EXPECT_NE(selected.properties().name.find(part), std::string::npos) << "selected " << selected.properties().name;
}

TEST(Registry, UnknownBackendIsRefusedListingTheDevices)
{
    auto error = expect_error<NotFound>([] { (void)registry().select("nosuchbackend:0"); });
    if (error) {
        EXPECT_TRUE(mentions(error->what(), {"nosuchbackend"}));
        EXPECT_TRUE(lists_every_device(error->what()));
    }
}

TEST(Registry, IndexPastTheEndIsRefusedListingTheDevices)
{
    const auto opencl = first_of("opencl");
    if (!opencl) {
        GTEST_SKIP() << "no OpenCL device to index past";
    }
    auto error = expect_error<NotFound>([] { (void)registry().select("opencl:99"); });
    if (error) {
        EXPECT_TRUE(mentions(error->what(), {"99"}));
        EXPECT_TRUE(lists_every_device(error->what()));
    }
}

TEST(Registry, UnmatchedNameIsRefusedListingTheDevices)
{
    auto error = expect_error<NotFound>([] { (void)registry().select("no device is called this"); });
    if (error) {
        EXPECT_TRUE(lists_every_device(error->what()));
    }
}

TEST(Registry, BackendThatDidNotLoadIsUnavailableWithItsReason)
{
    bool any = false;
    for (const BackendInfo& info : registry().backends()) {
        if (info.loaded) {
            continue;
        }
        any = true;
        SCOPED_TRACE(info.name);
        auto error = expect_error<Unavailable>([&] { (void)registry().select(info.name + ":0"); });
        if (error) {
            EXPECT_NE(std::string(error->what()).find(info.reason), std::string::npos)
                << "the reason \"" << info.reason << "\" is not in: " << error->what();
        }
    }
    if (!any) {
        GTEST_SKIP() << "every known backend loaded";
    }
}

TEST(Registry, DuetDeviceChoosesTheDefault)
{
    if (registry().devices().empty()) {
        GTEST_SKIP() << "no devices found";
    }
    for (const Device& device : registry().devices()) {
        const ScopedEnv env("DUET_DEVICE", device.selector());
        EXPECT_TRUE(registry().default_device() == device) << "DUET_DEVICE=" << device.selector();
    }
    {
        const ScopedEnv env("DUET_DEVICE", "nosuchbackend:7");
        auto error = expect_error<NotFound>([] { (void)registry().default_device(); });
        if (error) {
            EXPECT_TRUE(mentions(error->what(), {"nosuchbackend:7"}));
        }
    }
}

TEST(Registry, DefaultIsTheFirstGpuElseTheFirstDevice)
{
    if (registry().devices().empty()) {
        GTEST_SKIP() << "no devices found";
    }
    const ScopedEnv env("DUET_DEVICE", std::nullopt);
    const auto& devices = registry().devices();
    const auto gpu = std::find_if(devices.begin(), devices.end(),
                                  [](const Device& d) { return d.properties().type == DeviceType::gpu; });
    const Device expected = gpu != devices.end() ? *gpu : devices.front();
    EXPECT_TRUE(registry().default_device() == expected) << "default " << registry().default_device().selector();
}

TEST(Registry, SearchPathStartsWithDuetBackendPath)
{
    const ScopedEnv env("DUET_BACKEND_PATH", "/duet/first:/duet/second");
    const auto path = Registry::default_search_path();
    ASSERT_GE(path.size(), 2u);
    EXPECT_EQ(path[0], std::filesystem::path("/duet/first"));
    EXPECT_EQ(path[1], std::filesystem::path("/duet/second"));
}

TEST(Registry, DirectoryWithoutPluginsListsKnownBackendsAsNotFound)
{
    TempDir empty;
    const Registry local({empty.path()});
    EXPECT_TRUE(local.devices().empty());
    for (const std::string known : {"opencl", "cuda"}) {
        const auto& backends = local.backends();
        const auto info =
            std::find_if(backends.begin(), backends.end(), [&](const auto& b) { return b.name == known; });
        ASSERT_NE(info, backends.end()) << known << " is not listed";
        EXPECT_FALSE(info->loaded);
        EXPECT_FALSE(info->reason.empty());
        EXPECT_TRUE(info->path.empty()) << info->path;
    }
    expect_error<Unavailable>([&] { (void)local.select("opencl:0"); });
    EXPECT_THROW((void)local.default_device(), Error);
}

TEST(Registry, ASecondRegistryFindsTheSameDevices)
{
    const Registry second(Registry::default_search_path());
    ASSERT_EQ(second.devices().size(), registry().devices().size());
    for (std::size_t i = 0; i < second.devices().size(); ++i) {
        EXPECT_EQ(second.devices()[i].selector(), registry().devices()[i].selector());
        EXPECT_EQ(second.devices()[i].properties().name, registry().devices()[i].properties().name);
    }
}

} // namespace
} // namespace duet::test
