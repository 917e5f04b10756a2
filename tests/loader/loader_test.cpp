// The loader against purpose-built fault plugins (wrong ABI major, missing entry symbol, failing
// initialisation, missing dependency, tables of the wrong size or with an empty required slot,
// calls that throw across the C ABI, workload plugins that throw or hand out nothing): each is
// listed, not loaded, with a reason naming its cause, and the process goes on. Tables and device
// properties of an older or newer minor load, with only what both sides know.
#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include <duet/abi/backend.h>

#include "duet_test.hpp"

namespace duet::test {
namespace {

const std::filesystem::path fault_dir = DUET_FAULT_PLUGIN_DIR;
const std::filesystem::path table_dir = DUET_TABLE_PLUGIN_DIR;
const std::filesystem::path fault_workload_dir = DUET_FAULT_WORKLOAD_DIR;

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

/// Whether `reason` holds, for each inner list, one of its texts; else a failure naming them.
::testing::AssertionResult mentions(const std::string& reason, const std::vector<std::vector<std::string>>& wanted)
{
    for (const auto& alternatives : wanted) {
        const bool found = std::any_of(alternatives.begin(), alternatives.end(),
                                       [&](const std::string& text) { return reason.find(text) != std::string::npos; });
        if (!found) {
            std::string names;
            for (const std::string& text : alternatives) {
                names += (names.empty() ? "\"" : " or \"") + text + "\"";
            }
            return ::testing::AssertionFailure() << "the reason does not name " << names << ": " << reason;
        }
    }
    return ::testing::AssertionSuccess();
}

struct FaultCase {
    std::string backend;
    std::vector<std::vector<std::string>> reason_mentions; // each inner list: one of these must appear
    bool failed = true;                                    // the plugin's own fault, rather than nothing to run on here
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
    EXPECT_EQ(info->failed, c.failed);
    EXPECT_EQ(std::filesystem::weakly_canonical(info->path), std::filesystem::weakly_canonical(plugin));
    EXPECT_TRUE(mentions(info->reason, c.reason_mentions));
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
    ::testing::Values(
        FaultCase{"fault_wrong_abi", {{"99"}, {std::to_string(DUET_ABI_MAJOR)}, {"ABI", "abi"}}},
        FaultCase{"fault_missing_entry", {{"duet_backend_entry"}}},
        // UNAVAILABLE from initialize: nothing to run on here, not a broken plugin.
        FaultCase{"fault_failing_init", {{"simulated initialisation failure: no such driver"}}, false},
        FaultCase{"fault_missing_dependency", {{"libduet_absent_dependency.so"}, {"cannot open shared object file"}}},
        FaultCase{"fault_table_size_zero",
                  {{"declares a size of 0 bytes"},
                   {"at least " + std::to_string(offsetof(duet_backend_v1, kernel_properties) +
                                                 sizeof(duet_backend_v1::kernel_properties))}}},
        FaultCase{"fault_short_table",
                  {{"declares a size of " + std::to_string(offsetof(duet_backend_v1, queue_create)) + " bytes"},
                   {"at least"}}},
        FaultCase{"fault_empty_required_slot", {{"queue_launch"}}},
        FaultCase{"fault_throwing_entry", {{"duet_backend_entry"}, {"simulated: the entry point threw"}}},
        FaultCase{"fault_throwing_init", {{"initialize"}, {"simulated: initialize threw"}}},
        FaultCase{"fault_throwing_device_properties", {{"device_properties"}, {"simulated: device_properties threw"}}},
        FaultCase{"fault_endless_formats", {{"device_program_format"}, {"DUET_FORMAT_NONE"}}}),
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
    for (const BackendInfo& fault : fault_registry().backends()) {
        if (!fault.name.starts_with("fault_")) {
            continue; // opencl and cuda, which the fault directory lacks
        }
        const BackendInfo* info = find_backend(mixed, fault.name);
        ASSERT_NE(info, nullptr) << fault.name;
        EXPECT_FALSE(info->loaded) << fault.name;
        EXPECT_EQ(info->reason, fault.reason);
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

// --- tables that differ in size from this core's, and still load ---

const ProgramSource fake_program{"fake", {{ProgramFormat::opencl_c, "the fake backend takes any source"}}};

/// The fake backend's kernel on the one device of the table plugin `backend`, whose properties
/// come through as the plugin gave them but for what it got wrong (fake_backend.hpp).
Kernel fake_kernel(const Registry& registry, const std::string& backend)
{
    const Device device = registry.select(backend + ":0");
    EXPECT_EQ(device.properties().name, "fake device");
    EXPECT_EQ(device.properties().vendor, std::string(sizeof(duet_device_properties::vendor), 'v'))
        << "an unterminated text field is read to its end, and no further";
    const std::vector<std::pair<std::string, std::string>> raw{{"FAKE_NAME", "fake device"}, {"FAKE_NO_VALUE", ""}};
    EXPECT_EQ(device.properties().raw, raw) << "a raw property without a key is dropped, a null value is empty";
    BuildOptions uncached;
    uncached.use_cache = false;
    return device.build(fake_program, uncached).kernel("fake_kernel");
}

TEST(Loader, AnOlderMinorTableLoadsAndTheSlotsItLacksAreUnsupported)
{
    const Registry registry({table_dir});
    const BackendInfo* info = find_backend(registry, "fake_older_minor_table");
    ASSERT_NE(info, nullptr);
    ASSERT_TRUE(info->loaded) << info->reason;
    EXPECT_EQ(info->version, "fake 1.0");
    const Kernel kernel = fake_kernel(registry, "fake_older_minor_table");
    EXPECT_EQ(kernel.properties().max_block_size, 1u);
    // The plugin's memory past its declared size holds a set_cache_preference that succeeds: the
    // core must not have read it.
    auto error = expect_error<Unsupported>([&] { kernel.set_cache_preference(CachePreference::prefer_l1); });
    if (error) {
        EXPECT_NE(std::string(error->what()).find("cache preferences"), std::string::npos) << error->what();
    }
}

TEST(Loader, ANewerMinorTableLoadsWhatThisCoreKnows)
{
    const Registry registry({table_dir});
    const BackendInfo* info = find_backend(registry, "fake_oversized_table");
    ASSERT_NE(info, nullptr);
    ASSERT_TRUE(info->loaded) << info->reason;
    EXPECT_FALSE(info->failed);
    const Kernel kernel = fake_kernel(registry, "fake_oversized_table");
    // The last slot this core knows is copied and called.
    EXPECT_NO_THROW(kernel.set_cache_preference(CachePreference::prefer_l1));
}

// --- device properties of another size than this core's: older and newer backends, older and newer cores ---

/// The properties of the one device of the table plugin `backend`, as the core read them.
DeviceProperties table_plugin_properties(const std::string& backend)
{
    const Registry registry({table_dir});
    const BackendInfo* info = find_backend(registry, backend);
    if (info == nullptr || !info->loaded) {
        ADD_FAILURE() << backend << " did not load: " << (info ? info->reason : "not listed");
        return {};
    }
    return registry.select(backend + ":0").properties();
}

TEST(Loader, AnOlderBackendsSmallerPropertiesLeaveWhatItLacksUnknown)
{
    const DeviceProperties properties = table_plugin_properties("fake_older_properties");
    EXPECT_EQ(properties.name, "fake device");
    EXPECT_EQ(properties.max_block_size, 1u);
    // Past the older struct's end: zero, "not known", as the core filled it.
    EXPECT_EQ(properties.l2_cache, 0u);
    EXPECT_EQ(properties.pci_bus_id, "");
}

TEST(Loader, ANewerBackendsLargerPropertiesBringWhatThisCoreKnows)
{
    const DeviceProperties properties = table_plugin_properties("fake_newer_properties");
    EXPECT_EQ(properties.name, "fake device");
    EXPECT_EQ(properties.l2_cache, 4096u);
    EXPECT_EQ(properties.pci_bus_id, "0000:01:00.0") << "the last field this core knows is read";
}

/// A backend plugin's table straight from its entry symbol, initialized, for calls with struct
/// sizes other than this core's; the reason in `why` when there is none. Never unloaded, as the
/// registry's plugins are not.
const duet_backend_v1* initialized_table(const std::filesystem::path& plugin, std::string& why)
{
    void* library = dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        why = dlerror();
        return nullptr;
    }
    const auto entry = reinterpret_cast<duet_backend_entry_fn>(dlsym(library, DUET_BACKEND_ENTRY_SYMBOL));
    const duet_backend_v1* table = nullptr;
    if (entry == nullptr || entry(DUET_ABI_MAJOR, DUET_ABI_MINOR, &table) != DUET_SUCCESS) {
        why = "no table for ABI " + std::to_string(DUET_ABI_MAJOR);
        return nullptr;
    }
    if (table->initialize() != DUET_SUCCESS) {
        duet_error_detail detail{sizeof(duet_error_detail), "", 0, "", ""};
        table->last_error(&detail);
        why = detail.message;
        return nullptr;
    }
    return table;
}

/// duet_device_properties with room after it, every byte set to a mark the backend never writes.
struct MarkedProperties {
    static constexpr unsigned char mark = 0xab;
    duet_device_properties properties;
    unsigned char room[64];

    explicit MarkedProperties(std::size_t size)
    {
        std::memset(static_cast<void*>(this), mark, sizeof(*this));
        properties.size = size;
    }
    /// Whether every byte from `offset` on still holds the mark.
    bool marked_from(std::size_t offset) const
    {
        const auto* bytes = reinterpret_cast<const unsigned char*>(this);
        return std::all_of(bytes + offset, bytes + sizeof(*this), [](unsigned char b) { return b == mark; });
    }
};

/// Device 0's properties from `plugin`, asked for by a caller that knows `size` bytes of them.
std::optional<MarkedProperties> properties_of_size(const std::filesystem::path& plugin, std::size_t size)
{
    std::string why;
    const duet_backend_v1* table = initialized_table(plugin, why);
    if (table == nullptr) {
        ADD_FAILURE() << plugin << ": " << why;
        return std::nullopt;
    }
    duet_device device = nullptr;
    EXPECT_EQ(table->device_get(0, &device), DUET_SUCCESS);
    MarkedProperties marked(size);
    EXPECT_EQ(table->device_properties(device, &marked.properties), DUET_SUCCESS);
    return marked;
}

TEST(Loader, ABackendWritesNoMoreThanAnOlderCoreKnows)
{
    // An older core's struct ended before l2_cache; the newer fake and the real backends know more.
    constexpr std::size_t older = offsetof(duet_device_properties, l2_cache);
    std::vector<std::filesystem::path> plugins{table_dir / "libduet_backend_fake_newer_properties.so"};
    for (const BackendInfo& info : Registry::global().backends()) {
        if (info.loaded) {
            plugins.push_back(info.path);
        }
    }
    for (const auto& plugin : plugins) {
        SCOPED_TRACE(plugin.string());
        const auto marked = properties_of_size(plugin, older);
        ASSERT_TRUE(marked);
        EXPECT_EQ(marked->properties.size, older) << "the size written";
        EXPECT_NE(marked->properties.name[0], MarkedProperties::mark) << "the fields both know are written";
        EXPECT_TRUE(marked->marked_from(older)) << "a byte past the older core's struct was written";
    }
}

TEST(Loader, ABackendWritesOnlyItsOwnStructForANewerCore)
{
    // A newer core's struct is larger than any backend here knows.
    constexpr std::size_t newer = sizeof(MarkedProperties);
    std::vector<std::pair<std::filesystem::path, std::size_t>> plugins{
        {table_dir / "libduet_backend_fake_older_properties.so", offsetof(duet_device_properties, l2_cache)}};
    for (const BackendInfo& info : Registry::global().backends()) {
        if (info.loaded) {
            plugins.emplace_back(info.path, sizeof(duet_device_properties));
        }
    }
    for (const auto& [plugin, known] : plugins) {
        SCOPED_TRACE(plugin.string());
        const auto marked = properties_of_size(plugin, newer);
        ASSERT_TRUE(marked);
        EXPECT_EQ(marked->properties.size, known) << "the size written is the backend's own";
        EXPECT_TRUE(marked->marked_from(known)) << "a byte past the backend's own struct was written";
    }
}

// --- workload plugins ---

const WorkloadRegistry& fault_workloads()
{
    static const WorkloadRegistry registry({fault_workload_dir});
    return registry;
}

struct WorkloadFaultCase {
    std::string plugin;
    std::vector<std::vector<std::string>> reason_mentions; // each inner list: one of these must appear
};

void PrintTo(const WorkloadFaultCase& c, std::ostream* os)
{
    *os << c.plugin;
}

class WorkloadFaultPlugin : public ::testing::TestWithParam<WorkloadFaultCase> {};

TEST_P(WorkloadFaultPlugin, IsListedNotLoadedWithItsCause)
{
    const WorkloadFaultCase& c = GetParam();
    const std::filesystem::path plugin = fault_workload_dir / ("libduet_workload_" + c.plugin + ".so");
    ASSERT_TRUE(std::filesystem::exists(plugin)) << plugin << " was not built";
    const auto& plugins = fault_workloads().plugins();
    const auto info = std::find_if(plugins.begin(), plugins.end(), [&](const auto& p) { return p.name == c.plugin; });
    ASSERT_NE(info, plugins.end()) << c.plugin << " is not listed";
    EXPECT_FALSE(info->loaded);
    EXPECT_EQ(std::filesystem::weakly_canonical(info->path), std::filesystem::weakly_canonical(plugin));
    EXPECT_TRUE(mentions(info->reason, c.reason_mentions));
    std::cout << c.plugin << ": " << info->reason << "\n";
    RecordProperty("reason", info->reason);
}

TEST_P(WorkloadFaultPlugin, FindingItIsNotFoundWithTheReason)
{
    const WorkloadFaultCase& c = GetParam();
    auto error = expect_error<NotFound>([&] { (void)fault_workloads().find(c.plugin); });
    if (error) {
        EXPECT_TRUE(mentions(error->what(), c.reason_mentions));
    }
}

INSTANTIATE_TEST_SUITE_P(
    Loader, WorkloadFaultPlugin,
    ::testing::Values(WorkloadFaultCase{"fault_throwing_entry",
                                        {{"duet_workload_entry"}, {"simulated: the workload entry threw"}}},
                      WorkloadFaultCase{"fault_throwing_info", {{"info()"}, {"simulated: info() threw"}}},
                      WorkloadFaultCase{"fault_null_entry", {{"returned no workload"}}}),
    [](const ::testing::TestParamInfo<WorkloadFaultCase>& info) { return info.param.plugin; });

TEST(Loader, WorkloadFaultsLeaveNoWorkloadAndStopNoOther)
{
    EXPECT_TRUE(fault_workloads().workloads().empty());
    const WorkloadRegistry mixed({fault_workload_dir, DUET_BUILD_WORKLOAD_DIR});
    EXPECT_EQ(mixed.plugins().size(),
              fault_workloads().plugins().size() + WorkloadRegistry({DUET_BUILD_WORKLOAD_DIR}).plugins().size());
    const auto vector_add = mixed.find("vector_add");
    ASSERT_NE(vector_add, nullptr);
    EXPECT_EQ(vector_add->info().name, "vector_add");
}

} // namespace
} // namespace duet::test
