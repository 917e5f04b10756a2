// `duet doctor`: each backend and workload plugin, the file tried, loaded or exactly why not; versions;
// the kernel cache; with --kernel, one source file's kernels on every device with their limits. Fails (exit 1) for what
// was asked for that cannot work (a device named by DUET_DEVICE or --devices, a plugin on a search path), for a plugin
// that failed to load (a workload plugin, or a backend through its own fault rather than for want of a driver), for a
// kernel cache that cannot be used, or when there is no device at all.
#include "commands/cache.hpp"
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/environment.hpp"
#include "model/workloads.hpp"
#include "render/environment.hpp"
#include "render/format.hpp"
#include "render/table.hpp"

#include <duet/detail/file.hpp>
#include <duet/manifest.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>

namespace duet::cli {

namespace fs = std::filesystem;

namespace {

struct Check {
    bool ok;
    std::string what;
};

bool is_inside(const fs::path& file, const std::vector<fs::path>& directories)
{
    for (const auto& directory : directories) {
        std::error_code error;
        if (!file.empty() && fs::equivalent(file.parent_path(), directory, error)) {
            return true;
        }
    }
    return false;
}

/// Each directory on a user's search path (`directories`, named by `variable`) must exist and hold
/// a plugin the registry found there (`found`: the files it tried): a typo, or a folder one level
/// off, is why a plugin is missing.
void check_search_path(const char* variable, const std::vector<fs::path>& directories, const std::string& plugin_file,
                       const std::vector<fs::path>& found, std::vector<Check>& checks)
{
    for (const auto& directory : directories) {
        std::error_code error;
        const std::string named = std::string(variable) + " names " + directory.string();
        const auto in_directory = [&](const fs::path& file) { return is_inside(file, {directory}); };
        if (!fs::is_directory(directory, error)) {
            checks.push_back({false, named + ", which is not a directory"});
        } else if (std::none_of(found.begin(), found.end(), in_directory)) {
            checks.push_back({false, named + ", which holds no " + plugin_file});
        } else {
            checks.push_back({true, named + ", which holds plugins"});
        }
    }
}

void check_selector(const std::string& selector, const std::string& source, std::vector<Check>& checks)
{
    try {
        const Device device = Registry::global().select(selector);
        checks.push_back({true, source + " '" + selector + "' selects " + device_title(device)});
    } catch (const Error& error) {
        checks.push_back({false, source + " '" + selector + "': " + error.message()});
    }
}

std::string search_path_text(const std::vector<fs::path>& directories)
{
    std::string text;
    for (const auto& directory : directories) {
        std::error_code error;
        text += "\n    " + directory.string() + (fs::is_directory(directory, error) ? "" : "  (does not exist)");
    }
    return text;
}

/// One kernel of --kernel's file on one device, or why the file did not build there.
struct KernelLimits {
    Device device;
    std::string kernel;
    KernelProperties properties;
    std::string problem; ///< why it has no limits: the build's error (with its log), or the kernel's absence
};

/// `FILE` or `FILE:NAME`: the source file and the kernel named, empty for all of them.
std::pair<fs::path, std::string> kernel_request(const std::string& request)
{
    std::error_code error;
    const auto colon = request.rfind(':');
    if (colon != std::string::npos && !fs::exists(request, error)) {
        return {request.substr(0, colon), request.substr(colon + 1)};
    }
    return {request, ""};
}

/// The file's kernels (or the one named) built on every device whose backend takes its language
/// (.cl OpenCL C, .cu CUDA C through NVRTC): what a launch of each may have, and why. A device of
/// another language is left out; a build that fails on a device of its language fails a check.
std::vector<KernelLimits> kernel_limits(const std::string& request, std::vector<Check>& checks)
{
    const auto [file, wanted] = kernel_request(request);
    const std::string extension = file.extension().string();
    if (extension != ".cl" && extension != ".cu") {
        checks.push_back({false, "--kernel " + file.string() + ": not a .cl (OpenCL C) or .cu (CUDA C) file"});
        return {};
    }
    std::string source_text;
    if (const auto problem = detail::read_regular_file(file, workload::max_source_bytes, source_text);
        !problem.empty()) {
        checks.push_back({false, "--kernel " + file.string() + ": " + problem});
        return {};
    }
    const ProgramFormat format = extension == ".cl" ? ProgramFormat::opencl_c : ProgramFormat::cuda_c;
    const std::string backend = extension == ".cl" ? "opencl" : "cuda";
    const std::string labelled = workload::labelled_source(file, source_text);
    const ProgramSource source{file.stem().string(), {{format, labelled}}};
    std::vector<KernelLimits> limits;
    bool any_device = false;
    for (const auto& device : Registry::global().devices()) {
        if (device.backend() != backend) {
            continue;
        }
        any_device = true;
        const std::string built = "--kernel " + file.string() + " builds on " + device_title(device);
        std::optional<Program> program;
        try {
            program = device.build(source);
        } catch (const Error& error) {
            limits.push_back({device, wanted, {}, "did not build: " + error.message()});
            checks.push_back({false, "--kernel " + file.string() + " on " + device_title(device) + ": " +
                                         headline(error.message(), 160)});
            continue;
        }
        const std::vector<std::string> names = wanted.empty() ? program->kernel_names() : std::vector{wanted};
        bool found = !names.empty();
        for (const auto& name : names) {
            // The program built: a kernel missing from it (not declared, or renamed by the
            // compiler, which the message says) is its own problem.
            try {
                limits.push_back({device, name, program->kernel(name).properties(), ""});
            } catch (const Error& error) {
                limits.push_back({device, name, {}, "built, but " + error.message()});
                checks.push_back({false, built + ", but " + headline(error.message(), 160)});
                found = false;
            }
        }
        if (names.empty()) {
            checks.push_back({false, built + " but declares no kernel"});
        } else if (found) {
            checks.push_back({true, built});
        }
    }
    if (!any_device) {
        checks.push_back({false, "--kernel " + file.string() + ": no " + backend + " device to build it on"});
    }
    return limits;
}

void print_kernel_limits(const std::vector<KernelLimits>& limits)
{
    std::cout << "\nKernel limits: a larger block than \"max block\" is refused for the reason under \"set by\"; "
                 "\"driver's figure\" is what the API's own query answers.\n"
                 "Registers where the API tells them: NVIDIA's OpenCL tells them only when it compiles, not from its "
                 "compute cache (CUDA_CACHE_DISABLE=1 makes it compile).\n";
    std::vector<Table::Column> columns{{"device"}, {"kernel"}};
    for (const auto& field : kernel_fields({})) {
        columns.push_back({field.label});
    }
    Table table(std::move(columns));
    for (const auto& limit : limits) {
        std::vector<std::string> cells{limit.device.selector(), limit.kernel.empty() ? "(all)" : limit.kernel};
        if (!limit.problem.empty()) {
            table.add_row_with_text(std::move(cells), headline(limit.problem, 100));
            continue;
        }
        for (auto& field : kernel_fields(limit.properties)) {
            cells.push_back(std::move(field.text));
        }
        table.add_row(std::move(cells));
    }
    table.print(std::cout);
}

/// A failed build's row names the device, the kernel asked for and the problem; a kernel's adds
/// its fields.
json::Value kernel_limits_json(const std::vector<KernelLimits>& limits)
{
    json::Array rows;
    for (const auto& limit : limits) {
        json::Object row{{"device", limit.device.selector()}, {"kernel", limit.kernel}, {"problem", limit.problem}};
        if (limit.problem.empty()) {
            for (auto& field : kernel_fields(limit.properties)) {
                row.emplace_back(std::move(field.key), std::move(field.value));
            }
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace

namespace {

bool all_ok(const std::vector<Check>& checks)
{
    return std::all_of(checks.begin(), checks.end(), [](const Check& check) { return check.ok; });
}

/// Whether a backend that did not load is one the user asked for by DUET_BACKEND_PATH, or failed
/// through its own fault; otherwise it is merely unavailable here (no driver).
bool backend_problem(const BackendInfo& backend)
{
    return !backend.loaded && (backend.failed || is_inside(backend.path, Registry::environment_search_path()));
}

/// Everything doctor checks, in the order it prints them.
std::vector<Check> run_checks(const Arguments& arguments, const CacheDiagnosis& cache)
{
    const auto& registry = Registry::global();
    const auto& workloads = WorkloadRegistry::global();
    std::vector<Check> checks;
    checks.push_back({!registry.devices().empty(),
                      registry.devices().empty() ? "no backend found a device: nothing can run"
                                                 : format::count(registry.devices().size(), "device") + " to run on"});
    std::vector<fs::path> backend_files, workload_files;
    for (const auto& backend : registry.backends()) {
        backend_files.push_back(backend.path);
    }
    for (const auto& plugin : workloads.plugins()) {
        workload_files.push_back(plugin.path);
    }
    check_search_path("DUET_BACKEND_PATH", Registry::environment_search_path(), "libduet_backend_<name>.so",
                      backend_files, checks);
    check_search_path("DUET_PLUGIN_PATH", WorkloadRegistry::environment_search_path(),
                      "libduet_workload_<name>.so or <name>.duet.toml", workload_files, checks);
    for (const auto& backend : registry.backends()) {
        if (backend_problem(backend)) {
            checks.push_back({false, "backend plugin " + backend.name + " (" + backend.path.string() +
                                         ") did not load: " + backend.reason});
        }
    }
    for (const auto& plugin : workloads.plugins()) {
        if (plugin.failed()) {
            checks.push_back({false, "workload plugin " + plugin.name + " (" + plugin.path.string() +
                                         ") did not load: " + plugin.reason});
        }
    }
    checks.push_back(
        {!workloads.workloads().empty(), workloads.workloads().empty()
                                             ? "no workload plugin loaded: nothing to compare"
                                             : format::count(workloads.workloads().size(), "workload") + " to run"});
    if (const char* selector = std::getenv("DUET_DEVICE"); selector != nullptr && *selector != '\0') {
        check_selector(selector, "DUET_DEVICE", checks);
    }
    for (const auto& selector : arguments.list("devices")) {
        check_selector(selector, "--devices", checks);
    }
    checks.push_back({cache.ok, cache.check});
    return checks;
}

json::Value doctor_json(const std::vector<Check>& checks, const CacheDiagnosis& cache,
                        const std::vector<KernelLimits>& limits)
{
    json::Array plugins, check_list;
    for (const auto& plugin : WorkloadRegistry::global().plugins()) {
        plugins.push_back(json::Object{{"name", plugin.name},
                                       {"path", plugin.path.string()},
                                       {"loaded", plugin.loaded},
                                       {"reason", plugin.reason},
                                       {"shadowed_by", plugin.shadowed_by.string()}});
    }
    for (const auto& check : checks) {
        check_list.push_back(json::Object{{"ok", check.ok}, {"what", check.what}});
    }
    return json::Object{{"schema", "duet.doctor/2"},
                        {"ok", all_ok(checks)},
                        {"checks", std::move(check_list)},
                        {"environment", environment_json(Registry::global())},
                        {"workload_plugins", std::move(plugins)},
                        {"cache", cache.json},
                        {"kernel_limits", kernel_limits_json(limits)}};
}

void print_build()
{
    const auto& build = build_info();
    std::cout << "duet " << build.version << " (" << build.commit << "), built by " << build.compiler << "\n"
              << "CUDA kernels: "
              << (build.cuda_compiler.empty()
                      ? "no nvcc at build time; the CUDA backend compiles their source with NVRTC at run time"
                      : "compiled offline by " + build.cuda_compiler + " for sm " + build.cuda_architectures +
                            " (+PTX), source kept for NVRTC")
              << "\n";
}

void print_backends()
{
    const auto& registry = Registry::global();
    std::cout << "\nBackend plugins, searched in:" << search_path_text(Registry::default_search_path()) << "\n";
    for (const auto& backend : registry.backends()) {
        std::cout << "  " << backend.name << ": " << (backend.loaded ? "loaded" : "NOT LOADED")
                  << "\n    file: " << (backend.path.empty() ? "(none found)" : backend.path.string()) << "\n";
        if (!backend.loaded) {
            std::cout << "    why: " << backend.reason << "\n";
            continue;
        }
        std::cout << "    version: " << backend.version << "\n";
        for (const auto& device : registry.devices()) {
            if (device.backend() == backend.name) {
                const auto& p = device.properties();
                std::cout << "    " << device_title(device) << ": driver " << p.driver_version << ", " << p.api_version
                          << "\n";
            }
        }
    }
}

void print_workload_plugins()
{
    const auto& plugins = WorkloadRegistry::global().plugins();
    std::cout << "\nWorkload plugins, searched in:" << search_path_text(WorkloadRegistry::default_search_path())
              << "\n";
    for (const auto& plugin : plugins) {
        std::cout << "  " << plugin.name << ": "
                  << (plugin.loaded     ? "loaded"
                      : plugin.failed() ? "NOT LOADED"
                                        : "shadowed, not used")
                  << "\n    file: " << plugin.path.string() << "\n";
        if (!plugin.loaded) {
            std::cout << "    why: " << plugin.reason << "\n";
        }
    }
    if (plugins.empty()) {
        std::cout << "  none found\n";
    }
}

void print_environment()
{
    std::cout << "\nEnvironment:";
    bool any = false;
    for (const char* variable :
         {"DUET_DEVICE", "DUET_BACKEND_PATH", "DUET_PLUGIN_PATH", "DUET_CACHE_DIR", "DUET_CACHE"}) {
        if (const char* value = std::getenv(variable)) {
            std::cout << "\n  " << variable << "=" << value;
            any = true;
        }
    }
    std::cout << (any ? "\n" : " no DUET_* variable set\n");
}

void print_checks(const std::vector<Check>& checks)
{
    std::cout << "\nChecks\n";
    for (const auto& check : checks) {
        std::cout << "  " << (check.ok ? "ok    " : "FAIL  ") << check.what << "\n";
    }
    for (const auto& backend : Registry::global().backends()) {
        if (!backend.loaded && !backend_problem(backend)) {
            std::cout << "  note  " << backend.name << " is unavailable (see above); runs use the other backends\n";
        }
    }
    // A note, not a failure: putting a file of a name first is how a user replaces a workload, and
    // everything asked for still works; the note makes an accidental one visible.
    for (const auto& plugin : WorkloadRegistry::global().plugins()) {
        if (!plugin.shadowed_by.empty()) {
            std::cout << "  note  workload plugin " << plugin.path.string() << " is shadowed by "
                      << plugin.shadowed_by.string() << ", found first: runs use that one\n";
        }
    }
}

} // namespace

int doctor_command(const Arguments& arguments)
{
    const auto cache = diagnose_kernel_cache();
    std::vector<Check> checks = run_checks(arguments, cache);
    std::vector<KernelLimits> limits;
    if (const auto request = arguments.value("kernel")) {
        limits = kernel_limits(*request, checks);
    }
    const int exit_code = all_ok(checks) ? exit_ok : exit_wrong;
    if (auto json = Output::from(arguments, "json")) {
        json->write_json(doctor_json(checks, cache, limits));
        if (json->is_stdout()) {
            return exit_code;
        }
    }
    print_build();
    print_backends();
    print_workload_plugins();
    std::cout << "\nKernel cache: " << cache.summary << "\n";
    print_environment();
    if (!limits.empty()) {
        print_kernel_limits(limits);
    }
    print_checks(checks);
    return exit_code;
}

} // namespace duet::cli
