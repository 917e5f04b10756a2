// Building programs for a device, with the in-memory and on-disk caches, and kernel look-up.
#include <duet/device.hpp>
#include <duet/program.hpp>

#include "cache.hpp"
#include "state.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace duet {

std::string_view to_string(ProgramFormat format)
{
    switch (format) {
    case ProgramFormat::opencl_c:
        return "opencl_c";
    case ProgramFormat::cuda_c:
        return "cuda_c";
    case ProgramFormat::fatbin:
        return "fatbin";
    case ProgramFormat::native:
        return "native";
    case ProgramFormat::ptx:
        return "ptx";
    }
    return "unknown";
}

namespace {

namespace fs = std::filesystem;

bool is_source(ProgramFormat format)
{
    return format == ProgramFormat::opencl_c || format == ProgramFormat::cuda_c;
}

std::string option_text(const BuildOptions& options)
{
    std::string text = options.flags;
    const auto append = [&](const std::string& part) { text += (text.empty() ? "" : " ") + part; };
    for (const auto& [name, value] : options.defines) {
        append(value.empty() ? "-D" + name : "-D" + name + "=" + value);
    }
    for (const auto& dir : options.include_dirs) {
        append("-I" + dir.string());
    }
    return text;
}

/// Appends to `key` every header `text` includes that resolves in `include_dirs`, recursively, so
/// that editing a header invalidates the cached binary.
void append_headers(std::string& key, std::string_view text, const std::vector<fs::path>& include_dirs,
                    std::set<fs::path>& seen)
{
    static const std::regex include_line(R"(^\s*#\s*include\s*["<]([^">]+)[">])");
    std::istringstream lines{std::string(text)};
    for (std::string line; std::getline(lines, line);) {
        std::smatch match;
        if (!std::regex_search(line, match, include_line)) {
            continue;
        }
        for (const auto& dir : include_dirs) {
            const fs::path header = dir / match[1].str();
            std::ifstream file(header, std::ios::binary);
            if (!file || !seen.insert(fs::weakly_canonical(header)).second) {
                continue;
            }
            const std::string content((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
            key += "\nheader " + header.string() + "\n" + content;
            append_headers(key, content, include_dirs, seen);
            break;
        }
    }
}

/// Everything that changes the built binary.
std::string cache_key(const detail::DeviceState& device, const ProgramImage& image, const std::string& options,
                      const std::vector<fs::path>& include_dirs)
{
    const auto& p = device.properties;
    std::string key = "duet abi " + std::to_string(DUET_ABI_MAJOR) + "." + std::to_string(DUET_ABI_MINOR) +
                      "\nbackend " + device.backend->name() + " " + device.backend->version() + "\nplatform " +
                      p.platform + "\ndevice " + p.name + "\nvendor " + p.vendor + "\ndriver " + p.driver_version +
                      "\napi " + p.api_version + "\ncompute capability " + std::to_string(p.compute_capability_major) +
                      "." + std::to_string(p.compute_capability_minor) + "\nformat " +
                      std::string(to_string(image.format)) + "\noptions " + options + "\nsource\n";
    key += image.data;
    std::set<fs::path> seen;
    append_headers(key, image.data, include_dirs, seen);
    return key;
}

std::string format_list(const std::vector<ProgramFormat>& formats)
{
    std::string text;
    for (const auto format : formats) {
        text += (text.empty() ? "" : ", ") + std::string(to_string(format));
    }
    return text;
}

/// The first image, in the backend's order of preference, that can take these options.
const ProgramImage& choose_image(const detail::DeviceState& device, const ProgramSource& source, bool has_options)
{
    for (const auto format : device.formats) {
        for (const auto& image : source.images) {
            if (image.format == format && (!has_options || is_source(format))) {
                return image;
            }
        }
    }
    std::vector<ProgramFormat> shipped;
    for (const auto& image : source.images) {
        shipped.push_back(image.format);
    }
    const std::string message = "program '" + source.name + "' ships [" + format_list(shipped) + "]; the " +
                                device.backend->name() + " backend builds [" + format_list(device.formats) + "]";
    if (has_options) {
        detail::fail<InvalidArgument>(device.backend->name(), "Device::build",
                                      message + ", and build options or defines need a source format");
    }
    detail::fail<Unsupported>(device.backend->name(), "Device::build", message);
}

std::shared_ptr<detail::BuiltProgram> create_program(const detail::DeviceState& device, ProgramFormat format,
                                                     std::string_view data, const std::string& options)
{
    auto program = std::make_shared<detail::BuiltProgram>();
    program->backend = device.backend;
    device.check(device.api().program_create(device.handle, static_cast<duet_program_format>(format), data.data(),
                                             data.size(), options.c_str(), &program->handle));
    return program;
}

/// The backend's assembly of a built program, or nullopt with `reason` where it keeps none.
std::optional<std::string> backend_assembly(const detail::BuiltProgram& program, std::string* reason = nullptr)
{
    const auto& backend = *program.backend;
    std::string text;
    try {
        backend.check(backend.require(backend.api().program_assembly, "assembly (program_assembly, ABI 3.3)")(
            program.handle,
            [](void* context, const void* data, std::size_t size) {
                static_cast<std::string*>(context)->assign(static_cast<const char*>(data), size);
            },
            &text));
    } catch (const Unsupported& error) {
        if (reason != nullptr) {
            *reason = error.message();
        }
        return std::nullopt;
    }
    return text;
}

/// The PTX image a program ships beside its fatbin, if any.
std::string shipped_ptx(const ProgramSource& source)
{
    for (const auto& image : source.images) {
        if (image.format == ProgramFormat::ptx) {
            return std::string(image.data);
        }
    }
    return {};
}

std::string program_binary(const detail::BuiltProgram& program)
{
    std::string binary;
    const auto& backend = *program.backend;
    backend.check(backend.require(backend.api().program_binary, "program binaries")(
        program.handle,
        [](void* context, const void* data, std::size_t size) {
            static_cast<std::string*>(context)->assign(static_cast<const char*>(data), size);
        },
        &binary));
    return binary;
}

static_assert(static_cast<int>(BlockLimit::declared) == DUET_BLOCK_LIMIT_DECLARED &&
              static_cast<int>(BlockLimit::registers) == DUET_BLOCK_LIMIT_REGISTERS &&
              static_cast<int>(BlockLimit::driver) == DUET_BLOCK_LIMIT_DRIVER);

KernelProperties kernel_properties(const detail::DeviceState& device, duet_kernel kernel)
{
    duet_kernel_properties native{};
    native.size = sizeof(native);
    device.check(device.api().kernel_properties(kernel, &native));
    KernelProperties properties;
    properties.max_block_size = native.max_block_size;
    properties.max_block_limit = native.max_block_limit <= DUET_BLOCK_LIMIT_DRIVER
                                     ? static_cast<BlockLimit>(native.max_block_limit)
                                     : BlockLimit::driver;
    std::copy(std::begin(native.required_block), std::end(native.required_block), properties.required_block.begin());
    properties.static_local_memory = native.static_local_memory;
    properties.private_memory = native.private_memory;
    properties.registers = native.registers;
    properties.driver_max_block_size = native.driver_max_block_size;
    return properties;
}

} // namespace

Program Device::build(const ProgramSource& source) const
{
    return build(source, BuildOptions{});
}

Program Device::build(const ProgramSource& source, const BuildOptions& options) const
{
    const detail::DeviceState& state = detail::live(state_, "Device::build", "Device");
    std::string options_text = option_text(options);
    // A BuildOptionsScope's flags come after the program's own, so that they win where a compiler takes the last.
    if (const std::string scoped = state.scoped_build_flags(); !scoped.empty()) {
        options_text += (options_text.empty() ? "" : " ") + scoped;
    }
    const ProgramImage& image = choose_image(state, source, !options_text.empty());
    const auto program = [&](std::shared_ptr<const detail::BuiltProgram> built) {
        return Program(
            std::make_shared<const detail::ProgramState>(detail::ProgramState{state_, std::move(built), source.name}));
    };
    if (!is_source(image.format)) {
        auto built = create_program(state, image.format, image.data, options_text);
        if (image.format == ProgramFormat::fatbin) {
            built->assembly = shipped_ptx(source);
            if (!image.compiled_with.empty()) {
                built->compiled_with = "nvcc " + std::string(image.compiled_with);
            }
        }
        return program(std::move(built));
    }

    const std::string key = cache_key(state, image, options_text, options.include_dirs);
    const auto disk_cache = options.use_cache ? detail::CacheDirectory::open() : std::nullopt;
    std::lock_guard lock(state.programs_mutex);
    if (options.use_cache) {
        if (const auto built = state.programs.find(key); built != state.programs.end()) {
            return program(built->second);
        }
    }
    std::shared_ptr<detail::BuiltProgram> built;
    if (disk_cache) {
        if (const auto binary = disk_cache->load(key)) {
            try {
                built = create_program(state, ProgramFormat::native, *binary, options_text);
                built->cached_from = detail::BuiltProgram::Source{image.format, std::string(image.data), options_text};
            } catch (const Error&) {
                // An entry that verifies but the driver refuses (a driver update it cannot tell
                // from the key): build from source and replace it below.
            }
        }
    }
    if (!built) {
        built = create_program(state, image.format, image.data, options_text);
        if (disk_cache) {
            disk_cache->store(key, program_binary(*built));
        }
    }
    if (options.use_cache) {
        state.programs.emplace(key, built);
    }
    return program(std::move(built));
}

Kernel Program::kernel(std::string_view name) const
{
    const auto& device = *detail::live(state_, "Program::kernel", "Program").device;
    auto kernel = std::make_shared<detail::KernelState>();
    kernel->program = state_;
    kernel->name = std::string(name);
    device.check(device.api().kernel_create(state_->built->handle, kernel->name.c_str(), &kernel->handle));
    kernel->properties = kernel_properties(device, kernel->handle);
    return Kernel(std::move(kernel));
}

std::vector<std::string> Program::kernel_names() const
{
    const auto& device = *detail::live(state_, "Program::kernel_names", "Program").device;
    const char* names = nullptr;
    device.check(device.api().program_kernel_names(state_->built->handle, &names));
    std::vector<std::string> result;
    std::istringstream stream(names ? names : "");
    for (std::string name; std::getline(stream, name, ';');) {
        if (!name.empty()) {
            result.push_back(name);
        }
    }
    return result;
}

bool Program::has_kernel(std::string_view name) const
{
    const auto names = kernel_names();
    return std::ranges::find(names, name) != names.end();
}

std::string Program::binary() const
{
    return program_binary(*detail::live(state_, "Program::binary", "Program").built);
}

namespace {

/// The build that holds a program's assembly and options: the program itself, or for one loaded
/// from the disk cache as a binary that keeps neither, its source built again (once).
const detail::BuiltProgram& compiled_build(const detail::ProgramState& program)
{
    const detail::BuiltProgram& built = *program.built;
    if (!built.cached_from) {
        return built;
    }
    const std::lock_guard lock(built.rebuilt_mutex);
    if (!built.rebuilt) {
        const auto& source = *built.cached_from;
        built.rebuilt = create_program(*program.device, source.format, source.data, source.options);
    }
    return *built.rebuilt;
}

} // namespace

std::string Program::assembly() const
{
    const detail::ProgramState& program = detail::live(state_, "Program::assembly", "Program");
    if (!program.built->assembly.empty()) {
        return program.built->assembly;
    }
    std::string reason;
    if (auto text = backend_assembly(*program.built, &reason)) {
        return std::move(*text);
    }
    if (program.built->cached_from) {
        if (auto text = backend_assembly(compiled_build(program), &reason)) {
            return std::move(*text);
        }
    }
    detail::fail<Unsupported>(program.built->backend->name(), "Program::assembly",
                              "program '" + program.name + "': " + reason);
}

std::string Program::build_options() const
{
    const detail::ProgramState& program = detail::live(state_, "Program::build_options", "Program");
    if (!program.built->compiled_with.empty()) {
        return program.built->compiled_with;
    }
    const auto options_of = [](const detail::BuiltProgram& built) {
        const auto& backend = *built.backend;
        const char* options = nullptr;
        backend.check(backend.require(backend.api().program_options,
                                      "build options (program_options, ABI 3.3)")(built.handle, &options));
        return std::string(options != nullptr ? options : "");
    };
    std::string options = options_of(*program.built);
    // A binary loaded as it is was given no options (a cubin): its build from source was.
    return options.empty() && program.built->cached_from ? options_of(compiled_build(program)) : options;
}
Device Program::device() const
{
    return Device(detail::live(state_, "Program::device", "Program").device);
}
bool Program::same_build(const Program& other) const
{
    return detail::live(state_, "Program::same_build", "Program").built ==
           detail::live(other.state_, "Program::same_build", "Program").built;
}

const std::string& Kernel::name() const
{
    return detail::live(state_, "Kernel::name", "Kernel").name;
}
Program Kernel::program() const
{
    return Program(detail::live(state_, "Kernel::program", "Kernel").program);
}
const KernelProperties& Kernel::properties() const
{
    return detail::live(state_, "Kernel::properties", "Kernel").properties;
}

std::string_view to_string(BlockLimit limit)
{
    switch (limit) {
    case BlockLimit::device:
        return "the device";
    case BlockLimit::declared:
        return "the kernel's declaration";
    case BlockLimit::registers:
        return "registers";
    case BlockLimit::driver:
        return "the driver";
    }
    return "unknown";
}

void Kernel::set_cache_preference(CachePreference preference) const
{
    const auto& kernel = detail::live(state_, "Kernel::set_cache_preference", "Kernel");
    const auto& device = *kernel.program->device;
    const auto set = device.backend->extension<duet_kernel_set_cache_preference_fn>(
        DUET_EXTENSION_KERNEL_SET_CACHE_PREFERENCE,
        "cache preferences (the split between L1 cache and shared memory, CUDA's cuFuncSetCacheConfig)");
    device.check(set(kernel.handle, static_cast<duet_cache_preference>(preference)));
}

unsigned Kernel::driver_occupancy(std::size_t block_threads, std::size_t dynamic_local) const
{
    const auto& kernel = detail::live(state_, "Kernel::driver_occupancy", "Kernel");
    const auto& device = *kernel.program->device;
    if (block_threads == 0 || block_threads > kernel.properties.max_block_size) {
        detail::fail<InvalidArgument>(device.backend->name(), "Kernel::driver_occupancy",
                                      "kernel '" + kernel.name + "': a block of " + std::to_string(block_threads) +
                                          " threads, where it takes 1 to " +
                                          std::to_string(kernel.properties.max_block_size));
    }
    const auto occupancy = device.backend->extension<duet_kernel_occupancy_fn>(
        DUET_EXTENSION_KERNEL_OCCUPANCY, "the driver's occupancy (CUDA's cuOccupancyMaxActiveBlocksPerMultiprocessor)");
    std::uint32_t blocks = 0;
    device.check(occupancy(kernel.handle, static_cast<std::uint32_t>(block_threads), dynamic_local, &blocks));
    return blocks;
}

std::vector<KernelParameterInfo> Kernel::parameters() const
{
    const auto& kernel = detail::live(state_, "Kernel::parameters", "Kernel");
    const auto& device = *kernel.program->device;
    const auto report = device.backend->extension<duet_kernel_parameters_fn>(
        DUET_EXTENSION_KERNEL_PARAMETERS, "kernel parameter types (OpenCL's clGetKernelArgInfo)");
    std::vector<KernelParameterInfo> parameters;
    const auto sink = [](void* context, const char* address, const char* type_name) {
        const std::string_view a(address);
        using Address = KernelParameterInfo::Address;
        static_cast<std::vector<KernelParameterInfo>*>(context)->push_back({a == "global"     ? Address::global
                                                                            : a == "local"    ? Address::local
                                                                            : a == "constant" ? Address::constant
                                                                                              : Address::private_,
                                                                            type_name});
    };
    device.check(report(kernel.handle, sink, &parameters));
    return parameters;
}

namespace detail {
BuiltProgram::~BuiltProgram()
{
    if (handle != nullptr) {
        backend->api().program_release(handle);
    }
}

KernelState::~KernelState()
{
    if (handle != nullptr) {
        program->device->api().kernel_release(handle);
    }
}
} // namespace detail

} // namespace duet
