// A manifest's kernel pair as a Spec, which the kit's runner runs as it runs any workload: its
// buffers, each with its role and its count from the plan; its launch step (the launches of one
// pass, the swap between each two); its outputs' tolerances; and the reference the manifest names
// (another kernel pair, a C function, or none: the devices against each other).
#include "port.hpp"

#include <duet/detail/plugins.hpp>
#include <duet/detail/saturating.hpp>
#include <duet/error.hpp>
#include <duet/manifest.hpp>
#include <duet/workload/kit.hpp>

#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

namespace duet::workload::port {

namespace {

/// The most launches a pass may make ([repeat] count): the pass is timed and repeated until the
/// median settles, so a count much above this could not finish in any sensible time.
constexpr std::uint64_t max_launches = 1'000'000;

/// Everything a run's settings decide, evaluated once, before anything is allocated.
struct Plan {
    std::map<std::string, Number> values;
    std::vector<std::size_t> counts; ///< per buffer
    Range range;
    std::size_t local_bytes = 0;
    std::vector<std::array<std::byte, 8>> scalars; ///< each scalar's value, as the kernel takes it
    std::size_t launches = 1;
    std::optional<double> flops; ///< of one launch (launch.flops), where the manifest says
    /// Every work-item the launch runs (grid × block in each dimension), domain or not: how long
    /// a C reference's host copies must be (reference_copy_elements).
    std::size_t work_items = 0;
};

/// The index of the buffer `name` in the manifest; SIZE_MAX when it names none.
std::size_t buffer_index(const Manifest& manifest, const std::string& name)
{
    for (std::size_t i = 0; i < manifest.buffers.size(); ++i) {
        if (manifest.buffers[i].name == name) {
            return i;
        }
    }
    return SIZE_MAX;
}

/// A launch's range, the work-items that do work (its domain where it has one, else all) and all
/// it runs.
struct Geometry {
    Range range;
    std::size_t items = 0;
    std::size_t launched = 0;
};

/// The product of `factors`; fails at `place`, naming `what`, where it overflows 64 bits.
std::size_t checked_product(std::initializer_list<std::size_t> factors, const Place& place, const std::string& what)
{
    std::size_t product = 1;
    for (const std::size_t factor : factors) {
        if (__builtin_mul_overflow(product, factor, &product)) {
            fail(place, what + " overflow a 64-bit count");
        }
    }
    return product;
}

Geometry plan_geometry(const LaunchDecl& launch, const std::map<std::string, Number>& values)
{
    const auto dims = static_cast<std::uint32_t>(launch.block.size());
    // Each dimension evaluated, at least 1; absent dimensions are 1.
    const auto evaluate = [&](const std::vector<Formula>& formulas, const char* what) {
        std::array<std::size_t, 3> sizes{1, 1, 1};
        for (std::size_t d = 0; d < formulas.size(); ++d) {
            const std::int64_t value = formulas[d].integer(values);
            if (value < 1) {
                fail(formulas[d].place, std::string(what) + " must be at least 1; " +
                                            quoted(formulas[d].expression.text()) + " is " + std::to_string(value));
            }
            sizes[d] = static_cast<std::size_t>(value);
        }
        return Dim3{sizes[0], sizes[1], sizes[2]};
    };
    const Dim3 block = evaluate(launch.block, "a block dimension");
    const Dim3 domain = evaluate(launch.domain, "a domain dimension");
    const std::size_t domain_items =
        checked_product({domain.x, domain.y, domain.z}, launch.place, "the domain's work-items");
    const Range range = launch.grid.empty() ? Range::cover(dims, domain, block)
                                            : Range::grid_block(dims, evaluate(launch.grid, "a grid dimension"), block);
    const std::size_t launched =
        checked_product({range.grid.x, range.block.x, range.grid.y, range.block.y, range.grid.z, range.block.z},
                        launch.place, "the launch's work-items (grid × block)");
    if (launch.grid.empty()) {
        return {range, domain_items, launched};
    }
    const Dim3 global = range.global();
    const std::array<std::size_t, 3> covered{global.x, global.y, global.z}, wanted{domain.x, domain.y, domain.z};
    for (std::uint32_t d = 0; d < dims; ++d) {
        if (covered[d] < wanted[d]) {
            fail(launch.grid[d].place, "grid × block covers " + std::to_string(covered[d]) +
                                           " work-items in dimension " + std::to_string(d) + "; the domain has " +
                                           std::to_string(wanted[d]));
        }
    }
    return {range, launch.domain.empty() ? launched : domain_items, launched};
}

std::array<std::byte, 8> scalar_bytes(const ScalarDecl& scalar, const std::map<std::string, Number>& values)
{
    std::array<std::byte, 8> bytes{};
    with_element_type(scalar.type, [&]<class T>(std::type_identity<T>) {
        T value{};
        if constexpr (std::is_floating_point_v<T>) {
            const double wide = scalar.value.real(values);
            if (std::abs(wide) > std::numeric_limits<T>::max()) {
                fail(scalar.value.place,
                     to_string(Number(wide)) + " does not fit " + std::string(to_string(scalar.type)) + " (at most " +
                         to_string(Number(static_cast<double>(std::numeric_limits<T>::max()))) + " in magnitude)");
            }
            value = static_cast<T>(wide);
        } else {
            const std::int64_t wide = scalar.value.integer(values);
            if (wide < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
                (wide > 0 && static_cast<std::uint64_t>(wide) > std::numeric_limits<T>::max())) {
                fail(scalar.value.place, std::to_string(wide) + " does not fit " + std::string(to_string(scalar.type)));
            }
            value = static_cast<T>(wide);
        }
        std::memcpy(bytes.data(), &value, sizeof(T));
    });
    return bytes;
}

Plan make_plan(const Manifest& manifest, const Settings& settings)
{
    Plan plan;
    plan.values = parameter_values(manifest, settings);
    const Geometry geometry = plan_geometry(manifest.launch, plan.values);
    plan.range = geometry.range;
    plan.work_items = geometry.launched;
    for (const auto& buffer : manifest.buffers) {
        const std::int64_t count = buffer.count.integer(plan.values);
        if (count < 1) {
            fail(buffer.count.place,
                 "must be at least 1; " + quoted(buffer.count.expression.text()) + " is " + std::to_string(count));
        }
        const auto n = static_cast<std::size_t>(count);
        // The most elements, sentinels after them, whose size in bytes fits 64 bits.
        const std::size_t most =
            (std::numeric_limits<std::size_t>::max() - sentinel_elements) / element_size(buffer.type);
        if (n > most) {
            fail(buffer.count.place, std::to_string(n) + " elements of " + std::string(to_string(buffer.type)) +
                                         " overflow a 64-bit size in bytes");
        }
        const std::size_t needed = buffer.index == BufferDecl::Index::item ? geometry.items
                                   : buffer.index == BufferDecl::Index::group
                                       ? plan.range.grid.x * plan.range.grid.y * plan.range.grid.z
                                       : 0;
        if (n < needed) {
            fail(buffer.count.place, std::to_string(n) + " elements is too small for the launch: it indexes one per " +
                                         (buffer.index == BufferDecl::Index::item ? "work-item" : "block") +
                                         " (index = \"" + (buffer.index == BufferDecl::Index::item ? "item" : "group") +
                                         "\"), " + std::to_string(needed) + " in all");
        }
        if (buffer.init.kind == Init::Kind::file && buffer.init.bytes.size() != n * element_size(buffer.type)) {
            fail(buffer.place, "its file holds " +
                                   std::to_string(buffer.init.bytes.size() / element_size(buffer.type)) +
                                   " elements; count is " + std::to_string(n));
        }
        // A C reference's host copy is as long as the launch where that is longer (reference_copy_elements).
        if (manifest.reference.kind == Reference::Kind::library && plan.work_items > most) {
            fail(manifest.launch.place, std::to_string(plan.work_items) +
                                            " work-items overflow a 64-bit size in bytes for the C reference's copy "
                                            "of buffer '" +
                                            buffer.name + "' (" + std::string(to_string(buffer.type)) + "): at most " +
                                            std::to_string(most));
        }
        plan.counts.push_back(n);
    }
    if (manifest.swap) {
        const std::size_t a = buffer_index(manifest, manifest.swap->first),
                          b = buffer_index(manifest, manifest.swap->second);
        if (plan.counts[a] != plan.counts[b]) {
            fail(manifest.buffers[b].count.place,
                 "'" + manifest.buffers[b].name + "' is swapped with '" + manifest.buffers[a].name +
                     "', so it must hold as many elements: " + std::to_string(plan.counts[b]) + " against " +
                     std::to_string(plan.counts[a]));
        }
    }
    if (manifest.launch.local_memory) {
        const std::int64_t bytes = manifest.launch.local_memory->integer(plan.values);
        if (bytes < 1) {
            fail(manifest.launch.local_memory->place, "must be at least 1 byte");
        }
        plan.local_bytes = static_cast<std::size_t>(bytes);
    }
    for (const auto& scalar : manifest.scalars) {
        plan.scalars.push_back(scalar_bytes(scalar, plan.values));
    }
    const std::int64_t launches = manifest.launches.integer(plan.values);
    if (launches < 1) {
        fail(manifest.launches.place, "must be at least 1");
    }
    if (static_cast<std::uint64_t>(launches) > max_launches) {
        fail(manifest.launches.place, std::to_string(launches) + " launches a pass; the limit is " +
                                          std::to_string(max_launches) +
                                          " (a second at a microsecond a launch), since a pass is timed and repeated");
    }
    plan.launches = static_cast<std::size_t>(launches);
    if (manifest.flops) {
        plan.flops = manifest.flops->real(plan.values);
        if (!std::isfinite(*plan.flops) || *plan.flops < 0) {
            fail(manifest.flops->place,
                 "is " + to_string(Number(*plan.flops)) + ": a count of operations must be finite and not negative");
        }
    }
    // The defines are evaluated here, before anything is built or launched, so that one that
    // divides by zero for these settings names its line.
    for (const KernelSource* source :
         {&manifest.cuda, &manifest.opencl, &manifest.reference.cuda, &manifest.reference.opencl}) {
        for (const auto& [name, formula] : source->defines) {
            formula.value(plan.values);
        }
    }
    return plan;
}

/// A buffer's starting values, `count` elements; random ones from `seed`.
Values initial_values(const BufferDecl& buffer, std::size_t count, std::uint64_t seed)
{
    return with_element_type(buffer.type, [&]<class T>(std::type_identity<T>) -> Values {
        std::vector<T> values(count);
        std::mt19937_64 engine(seed);
        const double low = buffer.init.low, high = buffer.init.high;
        switch (buffer.init.kind) {
        case Init::Kind::random:
            for (T& value : values) {
                if constexpr (std::is_floating_point_v<T>) {
                    // Weighted in double rather than low + u * (high - low), whose span overflows
                    // where the bounds are far apart ([-3.4e38, 3.4e38] in float, [-1e308, 1e308]
                    // in double), and clamped against rounding: the bounds, which the manifest's
                    // reader checked T holds, bound every value.
                    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(engine);
                    value = static_cast<T>(std::clamp(low * (1 - u) + high * u, low, high));
                } else {
                    value = static_cast<T>(std::uniform_int_distribution<std::int64_t>(
                        static_cast<std::int64_t>(buffer.init.low),
                        static_cast<std::int64_t>(buffer.init.high))(engine));
                }
            }
            break;
        case Init::Kind::constant:
            std::fill(values.begin(), values.end(), static_cast<T>(buffer.init.value));
            break;
        case Init::Kind::iota:
            for (std::size_t i = 0; i < count; ++i) {
                values[i] = static_cast<T>(buffer.init.value + static_cast<double>(i));
            }
            break;
        case Init::Kind::file:
            std::memcpy(values.data(), buffer.init.bytes.data(), count * sizeof(T));
            break;
        case Init::Kind::none:
            std::fill(values.begin(), values.end(), poison<T>());
            break;
        }
        return values;
    });
}

/// The OpenCL kernel's parameters as its driver reports them (clGetKernelArgInfo), where it does,
/// in place of the source's reading, which a macro or a typedef can hide a type from. Names and
/// const (which the driver's type names leave out) stay the source's.
std::optional<KernelSource> as_the_driver_reports(const KernelSource& opencl, const Kernel& kernel)
{
    std::vector<KernelParameterInfo> reported;
    try {
        reported = kernel.parameters();
    } catch (const Unsupported&) {
        return std::nullopt; // the source's reading stands
    }
    KernelSource driver = opencl;
    auto& parameters = driver.signature.parameters;
    parameters.resize(reported.size());
    for (std::size_t i = 0; i < reported.size(); ++i) {
        KernelParameter& parameter = parameters[i];
        std::string type = reported[i].type_name;
        parameter.pointer = !type.empty() && type.back() == '*';
        type.erase(std::find(type.begin(), type.end(), '*'), type.end());
        std::vector<std::string> words;
        std::istringstream split(type);
        for (std::string word; split >> word;) {
            words.push_back(word);
        }
        parameter.element = element_name(words).value_or(type);
        parameter.known_element = true; // the driver has resolved every macro and typedef
        using Address = KernelParameterInfo::Address;
        const Address address = reported[i].address;
        parameter.space = address == Address::global     ? AddressSpace::global
                          : address == Address::local    ? AddressSpace::local
                          : address == Address::constant ? AddressSpace::constant
                                                         : AddressSpace::value;
        const char* qualifier = address == Address::global     ? "__global "
                                : address == Address::local    ? "__local "
                                : address == Address::constant ? "__constant "
                                                               : "";
        parameter.declaration = qualifier + std::string(parameter.is_const ? "const " : "") + reported[i].type_name +
                                (parameter.name.empty() ? "" : " " + parameter.name) + " (driver)";
    }
    return driver;
}

/// A program of the pair for `device`, its sources labelled with their files so that a build
/// log names file and line. On OpenCL the kernel's parameters, as the driver reports them, are
/// checked against the arguments again before anything is launched.
Kernel build_kernel(const Device& device, const Manifest& manifest, const KernelSource& cuda,
                    const KernelSource& opencl, const LaunchDecl& launch, const std::map<std::string, Number>& values)
{
    const KernelSource& mine = device.backend() == "cuda" ? cuda : opencl;
    const std::string text = labelled_source(mine.file.filename(), mine.text);
    const ProgramFormat format = mine.language == Language::cuda ? ProgramFormat::cuda_c : ProgramFormat::opencl_c;
    BuildOptions options;
    options.flags = mine.options;
    for (const auto& [name, formula] : mine.defines) {
        options.defines.emplace_back(name, to_string(formula.value(values)));
    }
    Kernel kernel = device.build({mine.file.stem().string(), {{format, text}}}, options).kernel(mine.entry);
    if (mine.language == Language::opencl) {
        if (const auto reported = as_the_driver_reports(opencl, kernel)) {
            try {
                check_interfaces(manifest, cuda, *reported, launch);
            } catch (const InvalidArgument& error) {
                throw InvalidArgument("duet", "manifest",
                                      error.message() + "\n(the OpenCL parameters as " + device.selector() +
                                          "'s driver reports them, clGetKernelArgInfo)");
            }
        }
    }
    return kernel;
}

/// The bytes of buffer `i` on the device, its sentinels included: as the runner allocates it, and
/// the reference kernel pair's buffer of it.
std::uint64_t device_bytes(const Manifest& manifest, const Plan& plan, std::size_t i)
{
    return (plan.counts[i] + sentinel_elements) * element_size(manifest.buffers[i].type);
}

/// The elements of a C reference's host copy of buffer `i`: as long as the launch has work-items
/// where the buffer is shorter (a kernel without `index` may run past a buffer, and a reference
/// that does as it does must not write past duet's copy), and sentinels beyond.
std::size_t reference_copy_elements(const Plan& plan, std::size_t i)
{
    return std::max(plan.counts[i], plan.work_items) + sentinel_elements;
}

/// The launches of one pass, the swap between each two: each argument a buffer as `buffer` gives
/// it by its index in the manifest (its device memory as the swaps so far leave it), a scalar, or
/// local memory. The arguments are resolved once, before the timed launches; buffers are fetched
/// again only after a swap.
void launch_pass(Queue& queue, const Kernel& kernel, const Range& range, const std::vector<std::string>& args,
                 const Manifest& manifest, const Plan& plan, const std::function<RawBuffer(std::size_t)>& buffer,
                 const std::function<void(std::size_t, std::size_t)>& swap)
{
    std::vector<std::size_t> buffers(args.size(), SIZE_MAX); // the manifest's buffer each argument is, if one
    std::vector<detail::LaunchArg> packed(args.size());
    for (std::size_t a = 0; a < args.size(); ++a) {
        if (args[a] == "local") {
            packed[a] = detail::launch_arg(LocalMemory{plan.local_bytes});
        } else if (const std::size_t i = buffer_index(manifest, args[a]); i != SIZE_MAX) {
            buffers[a] = i;
        } else {
            const auto scalar =
                std::ranges::find_if(manifest.scalars, [&](const auto& s) { return s.name == args[a]; });
            if (scalar == manifest.scalars.end()) {
                throw InvalidArgument("duet", "manifest", "no argument '" + args[a] + "'");
            }
            const auto s = static_cast<std::size_t>(scalar - manifest.scalars.begin());
            packed[a] = {detail::LaunchArg::Kind::value, nullptr, plan.scalars[s].data(), element_size(scalar->type)};
        }
    }
    const std::size_t first = manifest.swap ? buffer_index(manifest, manifest.swap->first) : SIZE_MAX;
    const std::size_t second = manifest.swap ? buffer_index(manifest, manifest.swap->second) : SIZE_MAX;
    std::vector<RawBuffer> held(args.size()); // what the packed buffer arguments point at
    bool fetch = true;
    for (std::size_t n = 0; n < plan.launches; ++n) {
        for (std::size_t a = 0; fetch && a < args.size(); ++a) {
            if (buffers[a] != SIZE_MAX) {
                held[a] = buffer(buffers[a]);
                packed[a] = detail::launch_arg(held[a]);
            }
        }
        fetch = false;
        queue.launch(kernel, range, std::span<const detail::LaunchArg>(packed));
        if (manifest.swap && n + 1 < plan.launches) {
            swap(first, second);
            fetch = true;
        }
    }
}

/// The reference kernel pair's outputs, into `arrays`: run once on the same device, on buffers of
/// its own that start as the run's do (the drawn inputs, poison elsewhere and past every end), as
/// many launches as a pass with the same swaps, its outputs' sentinels checked.
void kernel_reference(const Manifest& manifest, const Plan& plan, const Device& device, const HostArrays& arrays)
{
    const Reference& reference = manifest.reference;
    const LaunchDecl& launch = reference.launch ? *reference.launch : manifest.launch;
    const Kernel kernel = build_kernel(device, manifest, reference.cuda, reference.opencl, launch, plan.values);
    const KernelSource& mine = device.backend() == "cuda" ? reference.cuda : reference.opencl;
    Queue queue = device.create_queue();
    std::vector<RawBuffer> buffers;
    for (std::size_t i = 0; i < manifest.buffers.size(); ++i) {
        const BufferDecl& buffer = manifest.buffers[i];
        const RawBuffer& memory = buffers.emplace_back(device.alloc_bytes(device_bytes(manifest, plan, i)));
        with_element_type(buffer.type, [&]<class T>(std::type_identity<T>) {
            const bool drawn = buffer.init.kind != Init::Kind::none;
            const std::size_t from = drawn ? plan.counts[i] : 0;
            queue.fill(BufferView<T>{memory, from, plan.counts[i] + sentinel_elements - from}, poison<T>());
            if (drawn) {
                queue.write(BufferView<T>{memory, 0, plan.counts[i]}, arrays.in<T>(buffer.name));
            }
        });
    }
    std::vector<std::size_t> order(buffers.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    launch_pass(
        queue, kernel, reference.launch ? plan_geometry(launch, plan.values).range : plan.range,
        mine.args.value_or(launch.args), manifest, plan, [&](std::size_t i) { return buffers[order[i]]; },
        [&](std::size_t a, std::size_t b) { std::swap(order[a], order[b]); });
    for (std::size_t i = 0; i < manifest.buffers.size(); ++i) {
        const BufferDecl& buffer = manifest.buffers[i];
        if (!buffer.output) {
            continue;
        }
        with_element_type(buffer.type, [&]<class T>(std::type_identity<T>) {
            std::vector<T> read(plan.counts[i] + sentinel_elements);
            queue.read(std::span<T>(read), BufferView<T>{buffers[order[i]], 0, read.size()});
            queue.finish();
            check_sentinels(std::span<const T>(read).subspan(plan.counts[i]), "'" + buffer.name + "'");
            std::copy_n(read.begin(), plan.counts[i], arrays.out<T>(buffer.name).begin());
        });
    }
}

/// The C reference's outputs, into `arrays`: the function called once per launch with the
/// launch's arguments (host copies of the buffers as the pass starts, each as long as
/// reference_copy_elements and poisoned past its count; pointers to the scalars), as the kernel
/// would be, with the same swaps.
void library_reference(const Manifest& manifest, const Plan& plan, const HostArrays& arrays)
{
    using Function = void(void* const*);
    const Reference& reference = manifest.reference;
    boost::dll::shared_library library;
    try {
        library.load(reference.library.string());
    } catch (const std::exception& error) {
        // dlerror's words start with the path, given once.
        const std::string path = reference.library.string();
        std::string why = detail::load_failure_text(error);
        why.erase(0, why.starts_with(path + ": ") ? path.size() + 2 : 0);
        fail(reference.place, "cannot load " + path + ": " + why);
    }
    if (!library.has(reference.function)) {
        fail(reference.place,
             reference.library.filename().string() + " exports no function '" + reference.function + "'");
    }
    auto& function = library.get<Function>(reference.function);
    std::vector<Values> copies;
    for (std::size_t i = 0; i < manifest.buffers.size(); ++i) {
        const BufferDecl& buffer = manifest.buffers[i];
        copies.push_back(with_element_type(buffer.type, [&]<class T>(std::type_identity<T>) -> Values {
            std::vector<T> copy(reference_copy_elements(plan, i), poison<T>());
            if (buffer.init.kind != Init::Kind::none) {
                std::ranges::copy(arrays.in<T>(buffer.name), copy.begin());
            }
            return copy;
        }));
    }
    std::vector<std::size_t> order(copies.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::vector<std::array<std::byte, 8>> scalars = plan.scalars;
    for (std::size_t n = 0; n < plan.launches; ++n) {
        std::vector<void*> args;
        for (const auto& arg : manifest.launch.args) {
            void* pointer = nullptr;
            if (const std::size_t i = buffer_index(manifest, arg); i != SIZE_MAX) {
                pointer = with_element_type(copies[order[i]].type(), [&]<class T>(std::type_identity<T>) -> void* {
                    return copies[order[i]].as<T>().data();
                });
            }
            for (std::size_t s = 0; s < manifest.scalars.size(); ++s) {
                pointer = manifest.scalars[s].name == arg ? scalars[s].data() : pointer;
            }
            args.push_back(pointer);
        }
        function(args.data());
        if (manifest.swap && n + 1 < plan.launches) {
            std::swap(order[buffer_index(manifest, manifest.swap->first)],
                      order[buffer_index(manifest, manifest.swap->second)]);
        }
    }
    for (std::size_t i = 0; i < manifest.buffers.size(); ++i) {
        const BufferDecl& buffer = manifest.buffers[i];
        if (buffer.output) {
            with_element_type(buffer.type, [&]<class T>(std::type_identity<T>) {
                std::copy_n(copies[order[i]].as<T>().begin(), plan.counts[i], arrays.out<T>(buffer.name).begin());
            });
        }
    }
}

/// The relative error an output may have: its own, or its ULPs times the type's epsilon.
double tolerance_of(const BufferDecl& buffer)
{
    return std::max(buffer.relative_tolerance,
                    buffer.ulps_tolerance ? static_cast<double>(*buffer.ulps_tolerance) * epsilon_of(buffer.type)
                                          : 0.0);
}

/// Bytes moved per pass, as a bandwidth-bound kernel moves them: each buffer the launch takes
/// once per launch, an output that starts with values (updated in place) twice.
double bytes_moved(const Manifest& manifest, const Plan& plan)
{
    double bytes = 0;
    const auto args = manifest.cuda.args.value_or(manifest.launch.args);
    for (std::size_t i = 0; i < manifest.buffers.size(); ++i) {
        const BufferDecl& buffer = manifest.buffers[i];
        if (std::find(args.begin(), args.end(), buffer.name) != args.end()) {
            const double times = buffer.output && buffer.init.kind != Init::Kind::none ? 2 : 1;
            bytes += times * static_cast<double>(plan.counts[i] * element_size(buffer.type));
        }
    }
    return bytes * static_cast<double>(plan.launches);
}

/// The manifest's description, once every expression is evaluated for the defaults and each
/// declared test case, so that one that divides by zero or overflows there is refused with the
/// manifest, not at a run; and the rule that the settings' plan can be made.
WorkloadInfo port_info(const std::shared_ptr<const Manifest>& manifest)
{
    WorkloadInfo info = manifest->info;
    make_plan(*manifest, Settings(info, {}));
    for (std::size_t i = 0; i < info.test_cases.size(); ++i) {
        try {
            make_plan(*manifest, Settings(info, info.test_cases[i]));
        } catch (const InvalidArgument& error) {
            std::string values;
            for (const auto& [name, value] : info.test_cases[i]) {
                values += (values.empty() ? "" : ", ") + name + " = " + value;
            }
            throw InvalidArgument("duet", "manifest",
                                  "test case " + std::to_string(i) + " (" +
                                      (values.empty() ? "the defaults" : "{ " + values + " }") +
                                      "): " + error.message());
        }
    }
    // Values within each parameter's range may still break the manifest (divide by zero in a
    // define, overflow int32, disagree with a file's size): a rule, so that such settings are
    // refused as a bad value is, before anything runs, and a sweep skips them.
    if (!info.parameters.empty()) {
        WorkloadRule rule;
        for (const auto& parameter : info.parameters) {
            rule.parameters.push_back(parameter.name);
        }
        rule.text = "the manifest's expressions must hold for them";
        rule.holds = [manifest](const Settings& settings) {
            make_plan(*manifest, settings); // InvalidArgument naming the file, line and field
            return true;
        };
        info.rules.push_back(std::move(rule));
    }
    return info;
}

/// Buffer `i` as the runner declares it: an output read back (in place where it starts with
/// values), a buffer with values an input, one without device-only scratch.
BufferSpec buffer_spec(const std::shared_ptr<const Manifest>& manifest, std::size_t i, std::size_t drawn_before)
{
    const BufferDecl& decl = manifest->buffers[i];
    const auto count = [manifest, i](const Settings& settings) { return make_plan(*manifest, settings).counts[i]; };
    const bool starts_with_values = decl.init.kind != Init::Kind::none;
    BufferSpec buffer = decl.output ? (starts_with_values ? in_out : output)(decl.name, count, decl.type)
                                    : (starts_with_values ? input : scratch)(decl.name, count, decl.type);
    if (starts_with_values) {
        // From the run's seed + i, the buffer's place in the manifest, whatever buffers without
        // values come before it: the runner numbers the streams of those it draws only.
        buffer.draw = [manifest, i, skipped = i - drawn_before](std::size_t n, std::uint64_t seed) {
            return initial_values(manifest->buffers[i], n, seed + skipped);
        };
    }
    if (decl.output) {
        buffer.tolerance = [manifest, i](const Settings&) {
            const BufferDecl& output = manifest->buffers[i];
            return Tolerance{tolerance_of(output), output.tolerance_reason.empty()
                                                       ? "'" + output.name + "' as the manifest allows"
                                                       : "'" + output.name + "': " + output.tolerance_reason};
        };
    }
    return buffer;
}

/// The manifest's kernel pair as the runner's Spec.
Spec port_spec(const std::shared_ptr<const Manifest>& manifest)
{
    Spec spec;
    spec.info = port_info(manifest);
    std::size_t drawn = 0;
    for (std::size_t i = 0; i < manifest->buffers.size(); ++i) {
        spec.buffers.push_back(buffer_spec(manifest, i, drawn));
        drawn += manifest->buffers[i].init.kind != Init::Kind::none ? 1 : 0;
    }
    spec.prepare = [manifest](const Device& device, const Settings& settings, const std::string&) {
        const auto plan = std::make_shared<const Plan>(make_plan(*manifest, settings));
        const Kernel kernel =
            build_kernel(device, *manifest, manifest->cuda, manifest->opencl, manifest->launch, plan->values);
        const KernelSource& mine = device.backend() == "cuda" ? manifest->cuda : manifest->opencl;
        Prepared prepared = [manifest, plan, kernel,
                             args = mine.args.value_or(manifest->launch.args)](Queue& queue, DeviceBuffers& buffers) {
            const auto buffer = [&](std::size_t i) {
                const BufferDecl& decl = manifest->buffers[i];
                return with_element_type(decl.type, [&]<class T>(std::type_identity<T>) -> RawBuffer {
                    return buffers.get<T>(decl.name).raw();
                });
            };
            const auto swap = [&](std::size_t a, std::size_t b) {
                buffers.swap(manifest->buffers[a].name, manifest->buffers[b].name);
            };
            launch_pass(queue, kernel, plan->range, args, *manifest, *plan, buffer, swap);
        };
        if (manifest->reference.kind == Reference::Kind::kernels) {
            prepared.reference = [manifest, plan, device](const HostArrays& arrays) {
                kernel_reference(*manifest, *plan, device, arrays);
            };
        }
        return prepared;
    };
    spec.bytes = [manifest](const Settings& settings) {
        return bytes_moved(*manifest, make_plan(*manifest, settings));
    };
    if (manifest->flops) {
        spec.flops = [manifest](const Settings& settings) {
            const Plan plan = make_plan(*manifest, settings);
            return *plan.flops * static_cast<double>(plan.launches);
        };
    }
    spec.unit = Measurement::Unit::bytes;
    // The run's tolerance before the outputs are judged, each against its own: the loosest.
    spec.tolerance = [manifest](const Settings&) {
        double loosest = 0;
        for (const auto& buffer : manifest->buffers) {
            loosest = buffer.output ? std::max(loosest, tolerance_of(buffer)) : loosest;
        }
        return Tolerance{loosest, "as the manifest allows"};
    };
    // What the reference holds beside the run's own buffers: the kernel pair's buffers and the
    // host memory its outputs are read to, or the C function's host copies.
    const auto sum = [manifest](std::uint64_t (*bytes)(const Manifest&, const Plan&, std::size_t)) {
        return [manifest, bytes](const Settings& settings) {
            const Plan plan = make_plan(*manifest, settings);
            std::uint64_t total = 0;
            for (std::size_t i = 0; i < manifest->buffers.size(); ++i) {
                total = detail::saturating_add(total, bytes(*manifest, plan, i));
            }
            return total;
        };
    };
    switch (manifest->reference.kind) {
    case Reference::Kind::kernels:
        spec.extra_device_bytes = sum(device_bytes);
        spec.extra_host_bytes = sum([](const Manifest& manifest, const Plan& plan, std::size_t i) -> std::uint64_t {
            return manifest.buffers[i].output ? device_bytes(manifest, plan, i) : 0;
        });
        break;
    case Reference::Kind::library:
        spec.reference = [manifest](const Settings& settings, const HostArrays& arrays) {
            library_reference(*manifest, make_plan(*manifest, settings), arrays);
        };
        spec.extra_host_bytes = sum([](const Manifest& manifest, const Plan& plan, std::size_t i) -> std::uint64_t {
            return reference_copy_elements(plan, i) * element_size(manifest.buffers[i].type);
        });
        break;
    case Reference::Kind::none:
        break; // info.has_reference is false: the devices are checked against each other
    }
    return spec;
}

} // namespace

std::shared_ptr<const Workload> make_port_workload(Manifest manifest)
{
    return std::make_shared<SpecWorkload>(port_spec(std::make_shared<const Manifest>(std::move(manifest))));
}

} // namespace duet::workload::port
