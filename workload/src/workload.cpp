// Workload settings (parameter values checked against their declared ranges) and the registry
// that finds and loads workload plugins.
#include <duet/error.hpp>
#include <duet/workload.hpp>
#include <duet/workload/communicator.hpp>

#include <duet/detail/plugins.hpp>
#include <duet/detail/saturating.hpp>
#include <duet/detail/text.hpp>

#include <boost/dll/runtime_symbol_info.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <tuple>
#include <type_traits>

namespace duet {

namespace fs = std::filesystem;

namespace {

constexpr const char* plugin_path_variable = "DUET_PLUGIN_PATH";

/// Whole numbers in full ("2147483648", not "2.14748e+09"); others as the shortest round trip.
std::string number(double value)
{
    char text[32];
    const auto [end, error] = value == std::floor(value) && std::abs(value) < 1e18
                                  ? std::to_chars(text, text + sizeof(text), static_cast<std::int64_t>(value))
                                  : std::to_chars(text, text + sizeof(text), value);
    return error == std::errc() ? std::string(text, end) : "?";
}

/// A whole number held as a double, as an int64: beyond int64's range, the end of the range nearest.
std::int64_t clamped_to_int64(double whole)
{
    constexpr double two_to_63 = 9223372036854775808.0;
    if (whole >= two_to_63) {
        return std::numeric_limits<std::int64_t>::max();
    }
    return whole < -two_to_63 ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(whole);
}

std::string accepted(const WorkloadParameter& parameter)
{
    switch (parameter.type) {
    case WorkloadParameter::Type::integer:
        return "an integer from " + std::to_string(integer_min(parameter)) + " to " +
               std::to_string(integer_max(parameter));
    case WorkloadParameter::Type::real:
        return "a number from " + number(parameter.min) + " to " + number(parameter.max);
    case WorkloadParameter::Type::choice: {
        std::string text = "one of";
        for (const auto& choice : parameter.choices) {
            text += " " + choice;
        }
        return text;
    }
    }
    return "";
}

/// Whether `text` is a value of `parameter`; whole-string parses only ("12x" is not 12).
bool valid(const WorkloadParameter& parameter, const std::string& text)
{
    const char* end = text.data() + text.size();
    switch (parameter.type) {
    case WorkloadParameter::Type::integer: {
        std::int64_t value = 0;
        const auto [rest, error] = std::from_chars(text.data(), end, value);
        return error == std::errc() && rest == end && value >= parameter.min && value <= parameter.max;
    }
    case WorkloadParameter::Type::real: {
        double value = 0;
        const auto [rest, error] = std::from_chars(text.data(), end, value);
        return error == std::errc() && rest == end && std::isfinite(value) && value >= parameter.min &&
               value <= parameter.max;
    }
    case WorkloadParameter::Type::choice:
        return std::find(parameter.choices.begin(), parameter.choices.end(), text) != parameter.choices.end();
    }
    return false;
}

/// A failure of the workload layer, in the shape of the core's own.
template <class E> [[noreturn]] void fail(const std::string& backend, const char* call, std::string message)
{
    throw E(backend, call, 0, "", std::move(message));
}

} // namespace

using detail::bytes_text;
using detail::saturating_add;

std::int64_t integer_min(const WorkloadParameter& parameter)
{
    return clamped_to_int64(std::ceil(parameter.min));
}

std::int64_t integer_max(const WorkloadParameter& parameter)
{
    return clamped_to_int64(std::floor(parameter.max));
}

namespace {

/// Host memory a run can still have, and the sentence that says what limits it.
struct HostLimit {
    std::uint64_t bytes;
    std::string text;
};

std::optional<std::uint64_t> meminfo_available()
{
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit) {
        if (key == "MemAvailable:") {
            return kib * 1024;
        }
    }
    return std::nullopt;
}

/// The address space this process maps now (VmSize): what an address-space limit leaves is above it.
std::optional<std::uint64_t> address_space_in_use()
{
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0;
    const long page_size = ::sysconf(_SC_PAGESIZE);
    if (!(statm >> pages) || page_size <= 0) {
        return std::nullopt;
    }
    return pages * static_cast<std::uint64_t>(page_size);
}

/// The tighter of the memory the machine has available and, under an address-space limit
/// (`ulimit -v`), what that limit leaves: an allocation past the limit fails however much memory
/// is free, and a driver may abort on it rather than report it.
std::optional<HostLimit> host_limit()
{
    std::optional<HostLimit> limit;
    if (const auto available = meminfo_available()) {
        limit = HostLimit{*available, "this machine has " + bytes_text(*available) + " available"};
    }
    rlimit address_space{};
    if (::getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY) {
        const std::uint64_t cap = address_space.rlim_cur;
        const std::uint64_t used = address_space_in_use().value_or(0);
        const std::uint64_t left = cap > used ? cap - used : 0;
        if (!limit || left < limit->bytes) {
            limit =
                HostLimit{left, "the address-space limit (RLIMIT_AS, ulimit -v) of " + bytes_text(cap) + " leaves " +
                                    bytes_text(left) + " above the " + bytes_text(used) + " this process maps already"};
        }
    }
    return limit;
}

} // namespace

std::optional<std::uint64_t> host_available_memory()
{
    const auto limit = host_limit();
    return limit ? std::optional(limit->bytes) : std::nullopt;
}

std::uint64_t host_bytes_needed(const Footprint& footprint, const Device& device)
{
    // A CPU device's memory is the host's: its buffers come out of the same memory as the run's own.
    return device.properties().type == DeviceType::cpu ? saturating_add(footprint.host_bytes, footprint.device_bytes)
                                                       : footprint.host_bytes;
}

void check_fits(const Footprint& footprint, const Device& device, const std::string& what)
{
    const auto& p = device.properties();
    const std::string on = device.selector() + " (" + p.name + ")";
    const auto refuse = [&](const std::string& why) {
        fail<OutOfMemory>(device.backend(), "check_fits", what + " " + why);
    };
    if (p.global_memory != 0 && footprint.device_bytes > p.global_memory) {
        refuse("needs " + bytes_text(footprint.device_bytes) + " of device memory; " + on + " has " +
               bytes_text(p.global_memory));
    }
    if (p.max_allocation != 0 && footprint.largest_buffer > p.max_allocation) {
        refuse("needs a buffer of " + bytes_text(footprint.largest_buffer) + "; the largest allocation " + on +
               " allows is " + bytes_text(p.max_allocation));
    }
    const bool device_is_host = p.type == DeviceType::cpu;
    const std::uint64_t host_bytes = host_bytes_needed(footprint, device);
    if (const auto limit = host_limit(); limit && host_bytes > limit->bytes) {
        refuse("needs " + bytes_text(host_bytes) + " of host memory" +
               (device_is_host ? " (" + bytes_text(footprint.host_bytes) + " of its own and " +
                                     bytes_text(footprint.device_bytes) + " of buffers on " + on +
                                     ", a CPU device, whose memory is the host's)"
                               : std::string()) +
               "; " + limit->text);
    }
}

std::string foreign_exception_text(const std::string& workload, const std::string& call)
{
    return "the workload plugin '" + workload + "' threw an exception that is not a std::exception" +
           (call.empty() ? "" : " from its " + call) + ", so duet cannot say what went wrong";
}

Measurement run_within_limits(const Workload& workload, const RunRequest& request)
{
    const WorkloadInfo info = workload.info(); // by value, rules and all: read once
    if (const auto broken = request.settings.broken_rule(info, request.variant)) {
        fail<InvalidArgument>(info.name, "Settings", *broken);
    }
    const int ranks = request.communicator != nullptr ? request.communicator->size() : 1;
    if (ranks > 1 && !info.runs_on_ranks) {
        fail<Unsupported>(info.name, "run",
                          "the workload '" + info.name + "' cannot share a run between " + std::to_string(ranks) +
                              " ranks: it is a plain duet::Workload, whose run() would do the whole job on every "
                              "rank; workloads built on duet::workload::Spec do. Run it without mpirun");
    }
    // A distributed run's ranks check theirs inside the run, as they agree to start it (kit.cpp).
    if (ranks == 1) {
        check_fits(workload.footprint(request), request.device, info.name + "/" + request.variant);
    }
    return workload.run(request);
}

Settings::Settings(const WorkloadInfo& info, const std::map<std::string, std::string>& values)
    : Settings(info, values, true)
{
}

Settings Settings::without_rules(const WorkloadInfo& info, const std::map<std::string, std::string>& values)
{
    return Settings(info, values, false);
}

bool applies_to(const std::vector<std::string>& variants, const std::string& variant)
{
    return variants.empty() || std::find(variants.begin(), variants.end(), variant) != variants.end();
}

std::optional<std::string> Settings::broken_rule(const WorkloadInfo& info, const std::string& variant) const
{
    return first_broken(info, variant, false);
}

std::optional<std::string> Settings::broken_own_rule(const WorkloadInfo& info, const std::string& variant) const
{
    return first_broken(info, variant, true);
}

std::optional<std::string> Settings::first_broken(const WorkloadInfo& info, const std::string& variant,
                                                  bool own_only) const
{
    for (const auto& rule : info.rules) {
        const bool own = !rule.variants.empty();
        if ((own && (variant.empty() || !applies_to(rule.variants, variant))) || (own_only && !own)) {
            continue;
        }
        std::string broken = rule.text;
        try {
            if (rule.holds(*this)) {
                continue;
            }
        } catch (const InvalidArgument& error) {
            broken += ": " + error.message();
        }
        std::string named;
        for (std::size_t i = 0; i < rule.parameters.size(); ++i) {
            const std::string& name = rule.parameters[i];
            named += (i == 0                            ? ""
                      : i + 1 == rule.parameters.size() ? " and "
                                                        : ", ") +
                     ("'" + name + "' (") + value(name) + ")";
        }
        const bool one = rule.parameters.size() == 1;
        return (one ? "parameter " : "parameters ") + named + " of workload '" + info.name + "' " +
               (one ? "breaks" : "break") + " a rule" +
               (rule.variants.empty() ? std::string() : " of variant '" + variant + "'") + ": " + broken;
    }
    return std::nullopt;
}

Settings::Settings(const WorkloadInfo& info, const std::map<std::string, std::string>& values, bool check_rules)
{
    for (const auto& parameter : info.parameters) {
        values_[parameter.name] = parameter.default_value;
    }
    for (const auto& [name, text] : values) {
        const auto parameter = std::find_if(info.parameters.begin(), info.parameters.end(),
                                            [&](const WorkloadParameter& p) { return p.name == name; });
        if (parameter == info.parameters.end()) {
            std::string known;
            for (const auto& p : info.parameters) {
                known += (known.empty() ? "" : ", ") + p.name;
            }
            fail<InvalidArgument>(info.name, "Settings",
                                  "workload '" + info.name + "' has no parameter '" + name +
                                      "'; its parameters: " + known);
        }
        if (!valid(*parameter, text)) {
            fail<InvalidArgument>(info.name, "Settings",
                                  "parameter '" + name + "' of workload '" + info.name + "' is '" + text +
                                      "'; it takes " + accepted(*parameter));
        }
        values_[name] = text;
    }
    if (const auto broken = check_rules ? broken_rule(info) : std::nullopt) {
        fail<InvalidArgument>(info.name, "Settings", *broken);
    }
}

const std::string& Settings::value(const std::string& name) const
{
    const auto found = values_.find(name);
    if (found == values_.end()) {
        fail<NotFound>("duet", "Settings", "no parameter '" + name + "'");
    }
    return found->second;
}

std::int64_t Settings::integer(const std::string& name) const
{
    return std::stoll(value(name));
}
double Settings::real(const std::string& name) const
{
    return std::stod(value(name));
}
const std::string& Settings::text(const std::string& name) const
{
    return value(name);
}

const char* to_string(Phase phase)
{
    switch (phase) {
    case Phase::h2d:
        return "h2d";
    case Phase::kernel:
        return "kernel";
    case Phase::d2h:
        break;
    }
    return "d2h";
}

double& Sample::operator[](Phase phase)
{
    return phase == Phase::h2d ? h2d_ms : phase == Phase::kernel ? kernel_ms : d2h_ms;
}

double Sample::operator[](Phase phase) const
{
    return phase == Phase::h2d ? h2d_ms : phase == Phase::kernel ? kernel_ms : d2h_ms;
}

double Sample::extra_phase_ms(const std::string& name) const
{
    const auto found =
        std::find_if(extra_phases.begin(), extra_phases.end(), [&](const auto& extra) { return extra.first == name; });
    return found == extra_phases.end() ? 0 : found->second;
}

namespace {

template <class Field> workload::Summary summarize_samples(const std::vector<Sample>& samples, Field&& field)
{
    std::vector<double> values;
    for (const auto& sample : samples) {
        values.push_back(field(sample));
    }
    return workload::summarize(values);
}

} // namespace

workload::Summary Measurement::summary(Phase phase) const
{
    return summarize_samples(samples, [&](const Sample& sample) { return sample[phase]; });
}

workload::Summary Measurement::summary(const std::string& extra_phase) const
{
    return summarize_samples(samples, [&](const Sample& sample) { return sample.extra_phase_ms(extra_phase); });
}

workload::Summary Measurement::total_summary() const
{
    return summarize_samples(samples, [](const Sample& sample) { return sample.total_ms; });
}

workload::Summary Measurement::rate_summary() const
{
    return summarize_samples(samples, [](const Sample& sample) { return sample.rate_basis_ms(); });
}

void Measurement::set_medians()
{
    h2d_ms = summary(Phase::h2d).median;
    kernel_ms = summary(Phase::kernel).median;
    d2h_ms = summary(Phase::d2h).median;
    total_ms = total_summary().median;
    rate_ms = summarize_samples(samples, [](const Sample& sample) { return sample.rate_ms; }).median;
}

std::vector<fs::path> WorkloadRegistry::default_search_path()
{
    const fs::path here = boost::dll::this_line_location().parent_path();
    return detail::search_path(plugin_path_variable, here, DUET_BUILD_LIBRARY_DIR, DUET_BUILD_WORKLOAD_DIR,
                               here / "duet" / "workloads");
}

std::vector<fs::path> WorkloadRegistry::environment_search_path()
{
    return detail::directories_from(plugin_path_variable);
}

const WorkloadRegistry& WorkloadRegistry::global()
{
    static const auto* registry = new WorkloadRegistry(default_search_path()); // never destroyed, as its plugins
    return *registry;
}

namespace {

/// A loaded workload behind the one guard every later call into it passes: its description, read
/// once at load, and whatever its footprint() or run() throw that is not a std::exception turned
/// into a duet::Error naming the workload, so that it fails that run instead of aborting duet and
/// with it every other result (`compare all`). Its rules' checks likewise: whatever one throws
/// becomes the InvalidArgument a rule's check may throw, naming the workload and the rule, so that
/// the value is a rule broken (a point skipped, a limit listed) rather than the end of list or bench.
class GuardedWorkload final : public Workload {
public:
    GuardedWorkload(std::shared_ptr<const Workload> workload, WorkloadInfo info)
        : workload_(std::move(workload)), info_(std::move(info))
    {
        for (auto& rule : info_.rules) {
            rule.holds = [holds = std::move(rule.holds), workload = info_.name,
                          check = "check of the rule '" + rule.text + "'"](const Settings& settings) {
                try {
                    return holds(settings);
                } catch (const InvalidArgument&) {
                    throw;
                } catch (const std::exception& error) {
                    fail<InvalidArgument>("duet", "WorkloadRule::holds",
                                          "the workload plugin '" + workload + "' threw from its " + check + ": " +
                                              error.what());
                } catch (...) {
                    fail<InvalidArgument>("duet", "WorkloadRule::holds", foreign_exception_text(workload, check));
                }
            };
        }
    }
    WorkloadInfo info() const override { return info_; }
    Footprint footprint(const RunRequest& request) const override
    {
        return guarded("footprint", [&] { return workload_->footprint(request); });
    }
    Measurement run(const RunRequest& request) const override
    {
        return guarded("run", [&] { return workload_->run(request); });
    }

private:
    template <class Call> std::invoke_result_t<Call&> guarded(const std::string& what, Call&& call) const
    {
        try {
            return call();
        } catch (const std::exception&) {
            throw;
        } catch (...) {
            fail<Error>("duet", ("Workload::" + what).c_str(), foreign_exception_text(info_.name, what + "()"));
        }
    }

    std::shared_ptr<const Workload> workload_;
    WorkloadInfo info_;
};

std::string shadowed_reason(const std::string& name, const fs::path& winner)
{
    return "shadowed by " + winner.string() + ", found before it in the search path, which gives the workload '" +
           name + "' too: the first file of a name that loads wins";
}

/// The workload of the plugin at `path`, once its entry and info() have answered; throws
/// NotLoaded with why not.
std::shared_ptr<const Workload> open_workload(const fs::path& path)
{
    using Entry = Workload*(std::uint32_t);
    using Version = std::uint32_t();
    std::string reason;
    const auto library = detail::open_plugin(path, reason);
    if (!library) {
        throw detail::NotLoaded(reason);
    }
    if (!library->has("duet_workload_entry") || !library->has("duet_workload_abi_version")) {
        throw detail::NotLoaded("it does not export duet_workload_entry and duet_workload_abi_version; "
                                "end the plugin with DUET_EXPORT_WORKLOAD(YourWorkload)");
    }
    const auto version =
        detail::call_plugin("its duet_workload_abi_version", library->get<Version>("duet_workload_abi_version"));
    if (version != DUET_WORKLOAD_ABI_VERSION) {
        throw detail::NotLoaded("it was built for workload ABI " + std::to_string(version) + "; this duet needs " +
                                std::to_string(DUET_WORKLOAD_ABI_VERSION) + ": rebuild it against this duet");
    }
    const std::shared_ptr<const Workload> workload(detail::call_plugin(
        "its entry duet_workload_entry", library->get<Entry>("duet_workload_entry"), DUET_WORKLOAD_ABI_VERSION));
    if (!workload) {
        throw detail::NotLoaded("its entry point returned no workload");
    }
    // Every command asks for the description first: a plugin that cannot give it is not listed.
    return std::make_shared<GuardedWorkload>(workload,
                                             detail::call_plugin("its info()", [&] { return workload->info(); }));
}

/// The workload a loader gives for the file at `path`, behind the guard plugins' are.
std::shared_ptr<const Workload> open_with(const WorkloadLoader& loader, const fs::path& path)
{
    auto workload = loader.load(path);
    if (!workload) {
        throw detail::NotLoaded("its loader gave no workload");
    }
    return std::make_shared<GuardedWorkload>(workload, workload->info());
}

/// A file that may provide a workload, in the order the registry searches.
struct Candidate {
    std::string name; ///< from the file's name: libduet_workload_<name>.so, <name><loader's suffix>
    fs::path path;
    std::size_t kind = 0; ///< 0: a plugin library; else the loader, from 1
};

std::mutex loaders_mutex;

std::vector<WorkloadLoader>& loaders()
{
    static auto* registered = new std::vector<WorkloadLoader>(); // never destroyed, as the registry
    return *registered;
}

} // namespace

void register_workload_loader(WorkloadLoader loader)
{
    const std::lock_guard lock(loaders_mutex);
    auto& registered = loaders();
    const auto same = std::find_if(registered.begin(), registered.end(),
                                   [&](const WorkloadLoader& known) { return known.suffix == loader.suffix; });
    if (same != registered.end()) {
        *same = std::move(loader);
    } else {
        registered.push_back(std::move(loader));
    }
}

std::vector<WorkloadLoader> registered_workload_loaders()
{
    const std::lock_guard lock(loaders_mutex);
    return loaders();
}

WorkloadRegistry::WorkloadRegistry(const std::vector<fs::path>& directories, std::vector<WorkloadLoader> loaders)
    : directories_(directories), loaders_(std::move(loaders))
{
    // Search order: the folders in order, in each the plugin libraries before the files of each
    // loader in turn. A folder named again (DUET_PLUGIN_PATH holding the build's) adds nothing: its
    // files are the same files.
    std::vector<Candidate> candidates;
    std::set<fs::path> searched;
    for (const auto& directory : directories) {
        std::error_code error;
        if (!searched.insert(fs::weakly_canonical(directory, error)).second) {
            continue;
        }
        for (auto& [name, path] : detail::find_named_files({directory}, "libduet_workload_", ".so")) {
            candidates.push_back({name, std::move(path), 0});
        }
        for (std::size_t kind = 1; kind <= loaders_.size(); ++kind) {
            for (auto& [name, path] : detail::find_named_files({directory}, "", loaders_[kind - 1].suffix)) {
                candidates.push_back({name, std::move(path), kind});
            }
        }
    }
    // Listed as before: the libraries by name, then each loader's files by name.
    std::vector<std::size_t> order(candidates.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::tie(candidates[a].kind, candidates[a].name) < std::tie(candidates[b].kind, candidates[b].name);
    });
    // Opened in search order, and used where it loads and gives a workload no file found before it
    // gives: of one workload name the first such file wins (a manifest whose `name` is not its file's
    // shadows likewise), and of one file name the first file used wins, the later ones not even
    // opened. A file found before it that did not load (a stale plugin of an older ABI), or whose
    // workload is another's, is listed with why, and shadows nothing.
    std::vector<WorkloadPluginInfo> infos;
    std::vector<std::shared_ptr<const Workload>> opened(candidates.size());
    std::map<std::string, std::size_t> used_file;     // file name -> the candidate of it used
    std::map<std::string, std::size_t> used_workload; // workload name -> the candidate giving it
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const Candidate& candidate = candidates[i];
        WorkloadPluginInfo& info =
            infos.emplace_back(WorkloadPluginInfo{candidate.name, candidate.path, false, {}, {}});
        if (const auto first = used_file.find(candidate.name); first != used_file.end()) {
            info.shadowed_by = candidates[first->second].path; // not even opened: the file name says whose it is
            info.reason = shadowed_reason(candidate.name, info.shadowed_by);
            continue;
        }
        std::shared_ptr<const Workload> workload;
        try {
            workload = candidate.kind == 0 ? open_workload(candidate.path)
                                           : open_with(loaders_[candidate.kind - 1], candidate.path);
        } catch (const std::exception& error) {
            info.reason = error.what();
            continue;
        }
        const std::string name = workload->info().name;
        if (const auto first = used_workload.find(name); first != used_workload.end()) {
            info.shadowed_by = candidates[first->second].path;
            info.reason = shadowed_reason(name, info.shadowed_by);
            continue;
        }
        info.loaded = true;
        opened[i] = std::move(workload);
        used_file.emplace(candidate.name, i);
        used_workload.emplace(name, i);
    }
    for (auto& info : infos) {
        if (const auto used = used_file.find(info.name);
            !info.loaded && info.shadowed_by.empty() && used != used_file.end()) {
            info.reason += "; " + candidates[used->second].path.string() + ", found after it, is used instead";
        }
    }
    for (const std::size_t i : order) {
        if (opened[i]) {
            workloads_.push_back(std::move(opened[i]));
        }
        plugins_.push_back(std::move(infos[i]));
    }
}

std::shared_ptr<const Workload> WorkloadRegistry::find(const std::string& name) const
{
    std::string known;
    for (const auto& workload : workloads_) {
        const auto info = workload->info();
        if (info.name == name) {
            return workload;
        }
        known += (known.empty() ? "" : ", ") + info.name;
    }
    std::string broken;
    for (const auto& plugin : plugins_) {
        if (plugin.failed()) {
            broken += "\n  " + plugin.name + " (" + plugin.path.string() + ") did not load: " + plugin.reason;
        }
    }
    std::string files = "libduet_workload_<name>.so", kinds = "workload plugins";
    for (std::size_t i = 0; i < loaders_.size(); ++i) {
        const char* separator = i + 1 == loaders_.size() ? " and " : ", ";
        files += separator + ("<name>" + loaders_[i].suffix);
        kinds += (i + 1 == loaders_.size() ? " or " : ", ") + loaders_[i].files;
    }
    const char* plugin_path = std::getenv(plugin_path_variable);
    fail<NotFound>("duet", "WorkloadRegistry::find",
                   "no workload '" + name + "'; workloads: " + (known.empty() ? "none" : known) + broken +
                       "\nsearched for " + files + " in: " + detail::join(directories_) + "\n(" +
                       std::string(plugin_path_variable) + " " +
                       (plugin_path && *plugin_path ? std::string("= ") + plugin_path : std::string("is unset")) +
                       "; a folder of your own " + kinds + " goes there)");
}

} // namespace duet
