// A manifest's kernel pair as a workload, run with the kit's pieces: buffers drawn or filled as
// the manifest says, outputs poisoned with sentinels past their end, the launches timed on the
// device clock and repeated until the median settles, the outputs checked against the reference
// the manifest names (another kernel pair, a C function, or none: the devices against each other).
#include "port.hpp"

#include <duet/detail/plugins.hpp>
#include <duet/detail/saturating.hpp>
#include <duet/error.hpp>
#include <duet/workload/kit.hpp>
#include <duet/workload/manifest.hpp>

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
    /// Every work-item the launch runs (grid × block in each dimension), domain or not: how long
    /// a C reference's host copies must be (Buffers::initial).
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
        // A C reference's host copy is as long as the launch where that is longer (Buffers::initial).
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

/// One run's buffers on a device: made, filled and read as the manifest says.
class Buffers {
public:
    /// Every buffer gets sentinels past its end: an output's, or a buffer swapped with one, catch a
    /// write past it; an input's make what a kernel reads past its end the poison, so that a
    /// value it writes from there shows in the check pass.
    Buffers(const Manifest& manifest, const Plan& plan, const Device& device, std::uint64_t seed)
        : manifest_(manifest), plan_(plan)
    {
        for (std::size_t i = 0; i < manifest.buffers.size(); ++i) {
            const BufferDecl& buffer = manifest.buffers[i];
            const std::size_t element = element_size(buffer.type);
            Slot slot{initial_values(buffer, plan.counts[i], seed + i),
                      {},
                      device.alloc_bytes((plan.counts[i] + sentinel_elements) * element)};
            if (buffer.output) {
                slot.host = device.alloc_host((plan.counts[i] + sentinel_elements) * element, HostMemoryKind::pageable);
            }
            slots_.push_back(std::move(slot));
        }
    }

    /// Untimed: poisons every buffer nothing fills, and every buffer past its end; with
    /// check_poison in the check pass.
    void poison(Queue& queue, bool check_pass = false)
    {
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            const BufferDecl& buffer = manifest_.buffers[i];
            with_element_type(buffer.type, [&]<class T>(std::type_identity<T>) {
                const T value = check_pass ? check_poison<T>() : workload::poison<T>();
                const std::size_t from = buffer.init.kind == Init::Kind::none ? 0 : plan_.counts[i];
                queue.fill(BufferView<T>{slots_[i].device, from, plan_.counts[i] + sentinel_elements - from}, value);
                if (buffer.output) {
                    std::ranges::fill(slots_[i].host.template as<T>(), value);
                }
            });
        }
        order_.clear();
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            order_.push_back(i);
        }
    }
    void write(Queue& queue)
    {
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            if (manifest_.buffers[i].init.kind != Init::Kind::none) {
                with_element_type(manifest_.buffers[i].type, [&]<class T>(std::type_identity<T>) {
                    queue.write(BufferView<T>{slots_[i].device, 0, plan_.counts[i]},
                                std::span<const T>(slots_[i].initial.template as<T>()));
                });
            }
        }
    }
    /// The launches of one pass, the swap between each two.
    void launch(Queue& queue, const Kernel& kernel, const Range& range, const std::vector<std::string>& args)
    {
        for (std::size_t n = 0; n < plan_.launches; ++n) {
            std::vector<detail::LaunchArg> packed;
            for (const auto& arg : args) {
                packed.push_back(argument(arg));
            }
            queue.launch(kernel, range, std::span<const detail::LaunchArg>(packed));
            if (manifest_.swap && n + 1 < plan_.launches) {
                std::swap(order_[buffer_index(manifest_, manifest_.swap->first)],
                          order_[buffer_index(manifest_, manifest_.swap->second)]);
            }
        }
    }
    void read(Queue& queue)
    {
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            if (manifest_.buffers[i].output) {
                queue.read(slots_[i].host.as<std::byte>(), Buffer<std::byte>(slots_[order_[i]].device));
            }
        }
    }
    /// The outputs, end to end in the manifest's order, once their sentinels are checked.
    Values outputs() const
    {
        Values all;
        bool first = true;
        each_output([&]<class T>(std::size_t i, const BufferDecl& buffer, std::span<const T> host) {
            check_sentinels(host.subspan(plan_.counts[i]), "'" + buffer.name + "'");
            Values part(std::vector<T>(host.begin(), host.begin() + plan_.counts[i]));
            first ? void(all = std::move(part)) : all.append(part);
            first = false;
        });
        return all;
    }
    /// After the check pass: its sentinels checked, and each element that held the poison in
    /// `timed` (outputs() of the timed pass) and the check poison now marked never written. An
    /// output read from a buffer that starts with values (updated in place) has only its
    /// sentinels judged.
    void judge_writes(const Values& timed, Writes& writes) const
    {
        std::size_t offset = 0;
        each_output([&]<class T>(std::size_t i, const BufferDecl& buffer, std::span<const T> host) {
            judge_check_pass(buffer.name, std::span<const T>(timed.as<T>()).subspan(offset, plan_.counts[i]), host,
                             offset, timed.size(), manifest_.buffers[order_[i]].init.kind == Init::Kind::none, writes);
            offset += plan_.counts[i];
        });
    }
    /// Host copies of every buffer as the pass starts, for a C reference to compute on: each as
    /// long as the launch has work-items where it is shorter (a kernel without `index` may run
    /// past a buffer, and a reference that does as it does must not write past duet's copy), and
    /// sentinels beyond, all of it poisoned past the buffer's count.
    std::vector<Values> initial() const
    {
        std::vector<Values> values;
        for (const auto& slot : slots_) {
            values.push_back(with_element_type(slot.initial.type(), [&]<class T>(std::type_identity<T>) -> Values {
                std::vector<T> padded = slot.initial.as<T>();
                padded.resize(std::max(padded.size(), plan_.work_items) + sentinel_elements, workload::poison<T>());
                return padded;
            }));
        }
        return values;
    }

private:
    struct Slot {
        Values initial;
        HostBuffer host; ///< outputs: where they are read to, sentinels included
        RawBuffer device;
    };
    /// f(i, buffer, host) for each output in the manifest's order, `host` what was read back,
    /// sentinels included, as the buffer's element type.
    template <class F> void each_output(F&& f) const
    {
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            const BufferDecl& buffer = manifest_.buffers[i];
            if (buffer.output) {
                with_element_type(buffer.type, [&]<class T>(std::type_identity<T>) {
                    f.template operator()<T>(i, buffer, slots_[i].host.template as<const T>());
                });
            }
        }
    }
    detail::LaunchArg argument(const std::string& name) const
    {
        if (name == "local") {
            return detail::launch_arg(LocalMemory{plan_.local_bytes});
        }
        if (const std::size_t i = buffer_index(manifest_, name); i != SIZE_MAX) {
            return detail::launch_arg(slots_[order_[i]].device);
        }
        for (std::size_t i = 0; i < manifest_.scalars.size(); ++i) {
            if (manifest_.scalars[i].name == name) {
                return {detail::LaunchArg::Kind::value, nullptr, plan_.scalars[i].data(),
                        element_size(manifest_.scalars[i].type)};
            }
        }
        throw InvalidArgument("duet", "manifest", "no argument '" + name + "'");
    }

    const Manifest& manifest_;
    const Plan& plan_;
    std::vector<Slot> slots_;
    std::vector<std::size_t> order_; ///< the buffer each name holds after the swaps so far
};

/// The outputs of the reference kernel pair, run once on the same device and inputs.
Values kernel_reference(const Manifest& manifest, const Plan& plan, const Device& device, std::uint64_t seed)
{
    const Reference& reference = manifest.reference;
    const LaunchDecl& launch = reference.launch ? *reference.launch : manifest.launch;
    const Kernel kernel = build_kernel(device, manifest, reference.cuda, reference.opencl, launch, plan.values);
    const KernelSource& mine = device.backend() == "cuda" ? reference.cuda : reference.opencl;
    Buffers buffers(manifest, plan, device, seed);
    Queue queue = device.create_queue();
    buffers.poison(queue);
    buffers.write(queue);
    buffers.launch(queue, kernel, reference.launch ? plan_geometry(launch, plan.values).range : plan.range,
                   mine.args.value_or(launch.args));
    buffers.read(queue);
    queue.finish();
    return buffers.outputs();
}

/// The outputs of the C reference: called once per launch with the launch's arguments (host
/// copies of the buffers, pointers to the scalars), as the kernel would be.
Values library_reference(const Manifest& manifest, const Plan& plan, std::vector<Values> arrays)
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
    std::vector<std::size_t> order(arrays.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<std::array<std::byte, 8>> scalars = plan.scalars;
    for (std::size_t n = 0; n < plan.launches; ++n) {
        std::vector<void*> args;
        for (const auto& arg : manifest.launch.args) {
            void* pointer = nullptr;
            if (const std::size_t i = buffer_index(manifest, arg); i != SIZE_MAX) {
                pointer = with_element_type(arrays[order[i]].type(), [&]<class T>(std::type_identity<T>) -> void* {
                    return arrays[order[i]].as<T>().data();
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
    Values all;
    bool first = true;
    for (std::size_t i = 0; i < manifest.buffers.size(); ++i) {
        if (manifest.buffers[i].output) {
            Values part = with_element_type(arrays[order[i]].type(), [&]<class T>(std::type_identity<T>) -> Values {
                const auto& padded = arrays[order[i]].as<T>();
                return std::vector<T>(padded.begin(), padded.begin() + static_cast<std::ptrdiff_t>(plan.counts[i]));
            });
            first ? void(all = std::move(part)) : all.append(part);
            first = false;
        }
    }
    return all;
}

/// The relative error an output may have: its own, or its ULPs times the type's epsilon.
double tolerance_of(const BufferDecl& buffer)
{
    return std::max(buffer.relative_tolerance,
                    buffer.ulps_tolerance ? static_cast<double>(*buffer.ulps_tolerance) * epsilon_of(buffer.type)
                                          : 0.0);
}

class PortWorkload final : public Workload {
public:
    /// Every expression is evaluated for the defaults and each declared test case, so that one
    /// that divides by zero or overflows there is refused with the manifest, not at a run.
    explicit PortWorkload(Manifest manifest)
        : manifest_(std::make_shared<const Manifest>(std::move(manifest))), info_(manifest_->info)
    {
        make_plan(*manifest_, Settings(manifest_->info, {}));
        const auto& cases = manifest_->info.test_cases;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            try {
                make_plan(*manifest_, Settings(manifest_->info, cases[i]));
            } catch (const InvalidArgument& error) {
                std::string values;
                for (const auto& [name, value] : cases[i]) {
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
        if (!info_.parameters.empty()) {
            WorkloadRule rule;
            for (const auto& parameter : info_.parameters) {
                rule.parameters.push_back(parameter.name);
            }
            rule.text = "the manifest's expressions must hold for them";
            rule.holds = [manifest = manifest_](const Settings& settings) {
                make_plan(*manifest, settings); // InvalidArgument naming the file, line and field
                return true;
            };
            info_.rules.push_back(std::move(rule));
        }
    }

    WorkloadInfo info() const override { return info_; }

    Footprint footprint(const RunRequest& request) const override
    {
        const Plan plan = make_plan(*manifest_, request.settings);
        Footprint footprint;
        footprint.device_bytes = Spacer::bytes(request.device);
        footprint.largest_buffer = footprint.device_bytes;
        const int copies = manifest_->reference.kind == Reference::Kind::kernels ? 2 : 1;
        // Saturating, so that no sum of sizes make_plan let through can wrap to a size that fits.
        using detail::saturating_add;
        using detail::saturating_multiply;
        for (std::size_t i = 0; i < manifest_->buffers.size(); ++i) {
            const std::size_t element = element_size(manifest_->buffers[i].type);
            const std::uint64_t bytes = saturating_multiply(saturating_add(plan.counts[i], sentinel_elements), element);
            footprint.device_bytes = saturating_add(footprint.device_bytes, saturating_multiply(copies, bytes));
            footprint.largest_buffer = std::max(footprint.largest_buffer, bytes);
            // The initial values, an output's host buffer and result, and the reference's copy: a
            // C reference's as long as the launch (Buffers::initial).
            const std::uint64_t reference_bytes =
                manifest_->reference.kind == Reference::Kind::library
                    ? saturating_multiply(saturating_add(std::max(plan.counts[i], plan.work_items), sentinel_elements),
                                          element)
                    : bytes;
            footprint.host_bytes = saturating_add(
                footprint.host_bytes,
                saturating_add(saturating_multiply(manifest_->buffers[i].output ? 3 : 1, bytes), reference_bytes));
        }
        return footprint;
    }

    Measurement run(const RunRequest& request) const override
    {
        const Plan plan = make_plan(*manifest_, request.settings);
        const Device& device = request.device;
        const Kernel kernel =
            build_kernel(device, *manifest_, manifest_->cuda, manifest_->opencl, manifest_->launch, plan.values);
        const KernelSource& mine = device.backend() == "cuda" ? manifest_->cuda : manifest_->opencl;
        const std::vector<std::string> args = mine.args.value_or(manifest_->launch.args);
        Buffers buffers(*manifest_, plan, device, request.seed);
        const Spacer spacer(device);
        Queue queue = device.create_queue();
        Measurement result;
        const auto pass = [&](bool check_pass) {
            buffers.poison(queue, check_pass);
            queue.finish();
            PhaseTimer timer(queue);
            buffers.write(queue);
            timer.mark(Phase::h2d);
            timer.space(spacer);
            buffers.launch(queue, kernel, plan.range, args);
            timer.mark(Phase::kernel);
            buffers.read(queue);
            timer.mark(Phase::d2h);
            return timer.sample();
        };
        result.samples = repeat(request.timing, [&] { return pass(false); });
        result.set_medians();
        result.work = work(plan);
        result.output = buffers.outputs();
        if (request.verify) {
            pass(true);
            buffers.judge_writes(result.output, result.writes);
        }
        check(request, plan, buffers, result);
        return result;
    }

private:
    /// Bytes moved per pass, as a bandwidth-bound kernel moves them: each buffer the launch takes
    /// once per launch, an output that starts with values (updated in place) twice.
    double work(const Plan& plan) const
    {
        double bytes = 0;
        const auto args = manifest_->cuda.args.value_or(manifest_->launch.args);
        for (std::size_t i = 0; i < manifest_->buffers.size(); ++i) {
            const BufferDecl& buffer = manifest_->buffers[i];
            if (std::find(args.begin(), args.end(), buffer.name) != args.end()) {
                const double times = buffer.output && buffer.init.kind != Init::Kind::none ? 2 : 1;
                bytes += times * static_cast<double>(plan.counts[i] * element_size(buffer.type));
            }
        }
        return bytes * static_cast<double>(plan.launches);
    }

    /// Each output against the reference with its own tolerance; the measurement carries the
    /// worst of them.
    void check(const RunRequest& request, const Plan& plan, const Buffers& buffers, Measurement& result) const
    {
        double loosest = 0;
        for (const auto& buffer : manifest_->buffers) {
            loosest = buffer.output ? std::max(loosest, tolerance_of(buffer)) : loosest;
        }
        result.tolerance = loosest;
        result.tolerance_reason = "as the manifest allows";
        if (manifest_->reference.kind == Reference::Kind::none || !request.verify) {
            return;
        }
        Values expected;
        result.reference_ms = host_ms([&] {
            expected = manifest_->reference.kind == Reference::Kind::kernels
                           ? kernel_reference(*manifest_, plan, request.device, request.seed)
                           : library_reference(*manifest_, plan, buffers.initial());
        });
        // Output by output, each with its tolerance; the first that fails (else the last) is
        // what the measurement reports.
        std::size_t offset = 0;
        bool failed = false;
        for (std::size_t i = 0; i < manifest_->buffers.size() && !failed; ++i) {
            const BufferDecl& buffer = manifest_->buffers[i];
            if (!buffer.output) {
                continue;
            }
            const auto slice = [&](const Values& all) {
                return with_element_type(all.type(), [&]<class T>(std::type_identity<T>) -> Values {
                    const auto& v = all.as<T>();
                    return std::vector<T>(v.begin() + offset, v.begin() + offset + plan.counts[i]);
                });
            };
            const auto& mask = result.writes.mask;
            const std::vector<bool> unwritten =
                mask.empty() ? mask : std::vector<bool>(mask.begin() + offset, mask.begin() + offset + plan.counts[i]);
            const double tolerance = tolerance_of(buffer);
            result.agreement = compare(slice(result.output), slice(expected), tolerance, {}, unwritten);
            result.max_error = result.agreement.max_error;
            result.tolerance = tolerance;
            result.tolerance_reason = buffer.tolerance_reason.empty()
                                          ? "'" + buffer.name + "' as the manifest allows"
                                          : "'" + buffer.name + "': " + buffer.tolerance_reason;
            failed = !(result.max_error <= tolerance);
            offset += plan.counts[i];
        }
        result.verified = true;
    }

    std::shared_ptr<const Manifest> manifest_;
    WorkloadInfo info_; ///< the manifest's, and the rule that its plan can be made
};

} // namespace

std::shared_ptr<const Workload> make_port_workload(Manifest manifest)
{
    return std::make_shared<PortWorkload>(std::move(manifest));
}

} // namespace duet::workload::port
