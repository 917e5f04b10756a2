// The workload kit: the runner of a Spec, and the pieces it is made of.
#include <duet/workload/kit.hpp>
#include <duet/workload/turns.hpp>

#include <duet_kernels/workload_spacer.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>

namespace duet::workload {

namespace {

/// The entry of that name in `entries`, of element type `type`: NotFound naming what the spec
/// declares, or InvalidArgument naming both types.
template <class Entry> const Entry& named(const std::vector<Entry>& entries, std::string_view name, ElementType type)
{
    std::string known;
    for (const auto& entry : entries) {
        if (entry.name == name) {
            if (entry.type != type) {
                throw InvalidArgument("duet", "workload::Spec",
                                      "'" + entry.name + "' holds " + std::string(to_string(entry.type)) + ", not " +
                                          std::string(to_string(type)));
            }
            return entry;
        }
        known += (known.empty() ? "" : ", ") + entry.name;
    }
    throw NotFound("duet", "workload::Spec", "no array '" + std::string(name) + "'; the spec declares: " + known);
}

template <class T> bool same_bits(T a, T b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

} // namespace

WorkloadParameter integer_parameter(std::string name, std::int64_t default_value, std::int64_t min, std::int64_t max,
                                    std::string help, std::vector<std::string> variants)
{
    return {std::move(name),
            WorkloadParameter::Type::integer,
            std::to_string(default_value),
            std::move(help),
            static_cast<double>(min),
            static_cast<double>(max),
            {},
            std::move(variants)};
}

WorkloadParameter real_parameter(std::string name, double default_value, double min, double max, std::string help,
                                 std::vector<std::string> variants)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", default_value);
    return {std::move(name), WorkloadParameter::Type::real, text, std::move(help), min, max, {}, std::move(variants)};
}

WorkloadParameter choice_parameter(std::string name, std::vector<std::string> choices, std::string help,
                                   std::vector<std::string> variants)
{
    std::string first = choices.front();
    return {std::move(name),
            WorkloadParameter::Type::choice,
            std::move(first),
            std::move(help),
            0,
            0,
            std::move(choices),
            std::move(variants)};
}

BufferSpec input(std::string name, std::function<std::size_t(const Settings&)> size, ElementType type)
{
    return {std::move(name), BufferSpec::Role::input, type, std::move(size), {}, {}, {}};
}

BufferSpec output(std::string name, std::function<std::size_t(const Settings&)> size, ElementType type)
{
    return {std::move(name), BufferSpec::Role::output, type, std::move(size), {}, {}, {}};
}

const RawBuffer& DeviceBuffers::find(std::string_view name, ElementType type) const
{
    return named(buffers_, name, type).buffer;
}

std::pair<void*, std::size_t> HostArrays::find(std::string_view name, ElementType type) const
{
    const Entry& entry = named(arrays_, name, type);
    return {entry.data, entry.size};
}

// Built from the bits of a hash (splitmix64) of the element's number rather than through
// std::uniform_real_distribution: inputs run to billions of floats (access at stride 32 draws
// 2^29), and on a busy two-core host that took 150 ns a float, this 24 ns. Sign, then exponent
// -1 or 0, then 23 mantissa bits: ±[0.5, 1) and ±[1, 2) equally often.
std::vector<float> random_floats(std::size_t n, std::uint64_t seed)
{
    std::vector<float> values(n);
    std::uint64_t state = seed;
    for (float& value : values) {
        std::uint64_t z = state += 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        const auto sign = static_cast<std::uint32_t>(z >> 63) << 31;
        const auto exponent = (126U + static_cast<std::uint32_t>((z >> 62) & 1U)) << 23;
        const auto mantissa = static_cast<std::uint32_t>(z) & 0x7fffffU;
        value = std::bit_cast<float>(sign | exponent | mantissa);
    }
    return values;
}

Values random_values(ElementType type, std::size_t n, std::uint64_t seed)
{
    if (type == ElementType::f32) {
        return random_floats(n, seed);
    }
    std::mt19937_64 engine(seed);
    std::bernoulli_distribution negative(0.5);
    return with_element_type(type, [&]<class T>(std::type_identity<T>) -> Values {
        std::vector<T> values(n);
        for (T& value : values) {
            if constexpr (std::is_floating_point_v<T>) {
                value = std::uniform_real_distribution<T>(0.5, 2.0)(engine);
            } else {
                value = static_cast<T>(std::uniform_int_distribution<int>(1, sizeof(T) == 1 ? 255 : 1000)(engine));
            }
            if constexpr (std::is_signed_v<T>) {
                value = negative(engine) ? -value : value;
            }
        }
        return values;
    });
}

template <class T> T poison()
{
    // NaNs with a payload no arithmetic produces (hardware NaNs carry an empty or all-ones one).
    if constexpr (std::is_same_v<T, float>) {
        return std::bit_cast<float>(std::uint32_t{0x7fc0dead});
    } else if constexpr (std::is_same_v<T, double>) {
        return std::bit_cast<double>(std::uint64_t{0x7ff800000000deadull});
    } else if constexpr (std::is_signed_v<T>) {
        return std::numeric_limits<T>::min();
    } else {
        return std::numeric_limits<T>::max();
    }
}

template <class T> T check_poison()
{
    // Bits of no round pattern: for floats a normal value near 1e-30 (1e-241 for doubles), which
    // any sum with an ordinary value or any scaling moves.
    if constexpr (std::is_same_v<T, float>) {
        return std::bit_cast<float>(std::uint32_t{0x0deadbee});
    } else if constexpr (std::is_same_v<T, double>) {
        return std::bit_cast<double>(std::uint64_t{0x0deadbeefdeadbeeull});
    } else if constexpr (sizeof(T) == 1) {
        return static_cast<T>(0x5b);
    } else {
        return static_cast<T>(sizeof(T) == 4 ? std::uint64_t{0x2deadbee} : std::uint64_t{0x2deadbeefdeadbeeull});
    }
}

template <class T> void check_sentinels(std::span<const T> tail, const std::string& what, T expected)
{
    // Floats by their bits, so that a NaN's payload shows.
    const auto text = [](T value) {
        if constexpr (std::is_floating_point_v<T>) {
            char buffer[64];
            using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
            std::snprintf(buffer, sizeof buffer, "%.9g (bits 0x%llx)", static_cast<double>(value),
                          static_cast<unsigned long long>(std::bit_cast<Bits>(value)));
            return std::string(buffer);
        } else {
            return std::to_string(value);
        }
    };
    for (std::size_t i = 0; i < tail.size(); ++i) {
        if (!same_bits(tail[i], expected)) {
            // The user's message: what was overwritten, not which call found it.
            throw Error("duet", "",
                        "a kernel wrote past the end of " + what + ": " +
                            (i == 0 ? std::string("the first element past it")
                                    : "the sentinel " + std::to_string(i + 1) + " elements past it") +
                            " holds " + text(tail[i]) + ", not the poison " + text(expected) + " it was filled with");
        }
    }
}

template <class T>
void judge_check_pass(const std::string& name, std::span<const T> timed, std::span<const T> read, std::size_t offset,
                      std::size_t total, bool judged, Writes& writes)
{
    writes.checked = true; // the sentinels, even where no output's elements can be judged
    check_sentinels(read.subspan(timed.size()), "'" + name + "'", check_poison<T>());
    if (!judged) {
        return;
    }
    writes.add_output(name, offset, timed.size(), total);
    for (std::size_t i = 0; i < timed.size(); ++i) {
        if (same_bits(timed[i], poison<T>()) && same_bits(read[i], check_poison<T>())) {
            writes.mark(i);
        }
    }
}

#define DUET_KIT_INSTANTIATE(T)                                                                                        \
    template T poison<T>();                                                                                            \
    template T check_poison<T>();                                                                                      \
    template void check_sentinels<T>(std::span<const T>, const std::string&, T);                                       \
    template void judge_check_pass<T>(const std::string&, std::span<const T>, std::span<const T>, std::size_t,         \
                                      std::size_t, bool, Writes&);
DUET_KIT_INSTANTIATE(float)
DUET_KIT_INSTANTIATE(double)
DUET_KIT_INSTANTIATE(std::int32_t)
DUET_KIT_INSTANTIATE(std::uint32_t)
DUET_KIT_INSTANTIATE(std::int64_t)
DUET_KIT_INSTANTIATE(std::uint8_t)
#undef DUET_KIT_INSTANTIATE

Spacer::Spacer(const Device& device)
    : kernel_(device.build(kernels::workload_spacer()).kernel("workload_spacer")),
      scratch_(device.alloc<float>(bytes(device) / sizeof(float))), sink_(device.alloc<float>(1))
{
    Queue queue = device.create_queue();
    queue.fill(scratch_, 0.0f);
    queue.finish();
}

std::uint64_t Spacer::bytes(const Device& device)
{
    const auto& p = device.properties();
    std::uint64_t bytes = std::uint64_t{1} << 20;
    if (p.type == DeviceType::gpu) {
        bytes = p.l2_cache != 0 ? 2 * p.l2_cache : std::uint64_t{64} << 20;
    }
    if (p.max_allocation != 0) {
        bytes = std::min(bytes, p.max_allocation / 8);
    }
    if (p.global_memory != 0) {
        bytes = std::min(bytes, p.global_memory / 32);
    }
    return std::max<std::uint64_t>(bytes / sizeof(float) * sizeof(float), sizeof(float));
}

void Spacer::enqueue(Queue& queue) const
{
    const auto n = static_cast<std::uint32_t>(scratch_.size());
    // A grid-stride loop: enough blocks to fill any GPU, each thread reading many elements.
    queue.launch(kernel_, Range::cover(std::min<std::size_t>(n, std::size_t{1} << 20), 256), scratch_, n, sink_);
}

PhaseTimer::PhaseTimer(Queue& queue) : queue_(&queue), start_(queue.record()) {}

void PhaseTimer::mark(Phase phase)
{
    marks_.push_back({phase, {}, queue_->record()});
}

void PhaseTimer::mark(const std::string& extra_phase)
{
    marks_.push_back({std::nullopt, extra_phase, queue_->record()});
}

void PhaseTimer::space(const Spacer& spacer)
{
    spacer.enqueue(*queue_);
    marks_.push_back({std::nullopt, "spacer", queue_->record(), true});
}

Sample PhaseTimer::sample()
{
    queue_->finish();
    Sample sample;
    // The spacer only stands in for the host's launch latency: not part of the work.
    double spacer_ms = 0;
    const Event* previous = &start_;
    for (const auto& mark : marks_) {
        const double ms = elapsed_ms(*previous, mark.event);
        spacer_ms += mark.spacer ? ms : 0;
        if (mark.phase) {
            sample[*mark.phase] += ms;
        } else {
            auto found = std::find_if(sample.extra_phases.begin(), sample.extra_phases.end(),
                                      [&](const auto& extra) { return extra.first == mark.extra; });
            if (found == sample.extra_phases.end()) {
                sample.extra_phases.emplace_back(mark.extra, ms);
            } else {
                found->second += ms;
            }
        }
        previous = &mark.event;
    }
    sample.total_ms = marks_.empty() ? 0 : elapsed_ms(start_, marks_.back().event) - spacer_ms;
    return sample;
}

double span_ms(std::span<const Event> starts, std::span<const Event> ends)
{
    // Measured from the first start, which another queue's may precede: that one counts negative.
    double earliest = 0;
    double latest = 0;
    for (const Event& start : starts) {
        earliest = std::min(earliest, elapsed_ms(starts.front(), start));
    }
    for (const Event& end : ends) {
        latest = std::max(latest, elapsed_ms(starts.front(), end));
    }
    return latest - earliest;
}

std::vector<Sample> repeat(const Timing& timing, const std::function<Sample()>& pass)
{
    // Each pass begins by handing the turn on, so that runs taking turns alternate pass by pass.
    const auto hand_on = [&] {
        if (timing.turn) {
            timing.turn->hand_on();
        }
    };
    for (unsigned i = 0; i < timing.warmup; ++i) {
        hand_on();
        pass();
    }
    std::vector<Sample> samples;
    double spent_ms = 0; // the timed passes' own host time, not the waits for a turn between them
    const auto settled = [&] {
        // The kernel phase and the whole pass are what ratios divide: both must settle.
        std::vector<double> kernel, total;
        for (const auto& sample : samples) {
            kernel.push_back(sample.rate_basis_ms());
            total.push_back(sample.total_ms);
        }
        return summarize(kernel).relative_half_width() <= timing.precision &&
               summarize(total).relative_half_width() <= timing.precision;
    };
    const auto at_limit = [&] { return samples.size() >= timing.max_runs || spent_ms >= timing.budget_ms; };
    const auto floor = std::max(timing.min_runs, 1u);
    if (timing.turn) {
        timing.turn->set_settled(false);
    }
    bool met = false; // the rule met by the samples so far, judged once after each pass
    while (samples.size() < floor || !at_limit()) {
        hand_on();
        // Decided once the turn is back, on what the others did meanwhile: taking turns, a run
        // whose rule is met goes on while another's is not, so that no run takes its last passes
        // alone, where drift would fall on it only.
        if (met && !(timing.turn && timing.turn->others_unsettled())) {
            break;
        }
        spent_ms += host_ms([&] { samples.push_back(pass()); });
        met = samples.size() >= floor && settled();
        if (timing.turn) {
            timing.turn->set_settled(met || (samples.size() >= floor && at_limit()));
        }
    }
    if (timing.turn) {
        timing.turn->set_settled(true);
    }
    return samples;
}

double best_device_ms(Queue& queue, int repeats, const std::function<void()>& body)
{
    double best = 0;
    for (int run = 0; run < repeats; ++run) {
        const Event start = queue.record();
        body();
        const Event end = queue.record();
        end.wait();
        const double ms = elapsed_ms(start, end);
        best = run == 0 ? ms : std::min(best, ms);
    }
    return best;
}

std::vector<std::pair<std::string, double>> copy_yardstick(Queue& queue, double kernel_bytes,
                                                           const std::function<void()>& kernel, const RawBuffer& source,
                                                           std::size_t copy_bytes)
{
    constexpr int repeats = 3;
    const RawBuffer destination = queue.device().alloc_bytes(copy_bytes);
    const double kernel_ms = best_device_ms(queue, repeats, kernel);
    const double copy_ms =
        best_device_ms(queue, repeats, [&] { queue.copy_bytes(destination, 0, source, 0, copy_bytes); });
    const auto gbps = [](double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; };
    const double kernel_gbps = gbps(kernel_bytes, kernel_ms);
    const double copy_gbps = gbps(2.0 * static_cast<double>(copy_bytes), copy_ms);
    return {{"kernel_best_gbps", kernel_gbps},
            {"d2d_copy_gbps", copy_gbps},
            {"kernel_over_copy", copy_gbps > 0 ? kernel_gbps / copy_gbps : 0.0}};
}

void copy_yardstick_figures(Spec& spec, std::string source, std::function<std::size_t(const Settings&)> copy_bytes,
                            std::function<std::uint64_t(const Settings&)> other_bytes)
{
    spec.figures = [work = spec.work, source = std::move(source), copy_bytes](
                       Queue& queue, const DeviceBuffers& buffers, const Launch& launch, const Settings& settings) {
        return copy_yardstick(
            queue, work(settings), [&] { launch(queue, buffers); }, buffers.get(source).raw(), copy_bytes(settings));
    };
    spec.extra_device_bytes = [copy_bytes, other_bytes = std::move(other_bytes)](const Settings& settings) {
        return std::uint64_t{copy_bytes(settings)} + (other_bytes ? other_bytes(settings) : 0);
    };
}

HostMemoryKind host_memory_kind(const std::string& name)
{
    std::string known;
    for (const auto kind : {HostMemoryKind::pageable, HostMemoryKind::pinned, HostMemoryKind::write_combined,
                            HostMemoryKind::mapped, HostMemoryKind::registered}) {
        if (name == to_string(kind)) {
            return kind;
        }
        known += " " + std::string(to_string(kind));
    }
    throw InvalidArgument("", "workload::host_memory_kind", "unknown host memory kind '" + name + "'; known:" + known);
}

void check_against_reference(const RunRequest& request, Measurement& result,
                             const std::function<void(Values& expected)>& reference)
{
    if (!request.verify) {
        return;
    }
    // An element the reference leaves unwritten fails too.
    Values expected = with_element_type(result.output.type(), [&]<class T>(std::type_identity<T>) -> Values {
        return std::vector<T>(result.output.size(), poison<T>());
    });
    result.reference_ms = host_ms([&] { reference(expected); });
    result.agreement = compare(result.output, expected, result.tolerance, result.output_shape, result.writes.mask);
    result.max_error = result.agreement.max_error;
    result.verified = true;
}

// ---- The runner ----

/// One run of a Spec: its arrays on the host and the device, and the timed pass.
class Runner {
public:
    Runner(const Spec& spec, const RunRequest& request) : spec_(spec), request_(request), output_type_(output_type())
    {
        const Settings& settings = request.settings;
        const Device& device = request.device;
        std::uint64_t stream = request.seed;
        for (const auto& buffer : spec.buffers) {
            const std::size_t n = buffer.size(settings);
            const std::size_t element = element_size(buffer.type);
            const HostMemoryKind kind = buffer.host_memory ? buffer.host_memory(settings) : HostMemoryKind::pageable;
            Array array{&buffer, n, {}, {}, {}};
            if (buffer.role == BufferSpec::Role::input) {
                // Kinds a backend lacks throw Unsupported here, before anything runs.
                array.host = device.alloc_host(n * element, kind);
                const Values values = buffer.draw ? buffer.draw(n, stream++) : random_values(buffer.type, n, stream++);
                if (values.size() != n || values.type() != buffer.type) {
                    throw InvalidArgument("duet", "workload::Spec",
                                          "input '" + buffer.name + "' drew " + std::to_string(values.size()) + " " +
                                              std::string(to_string(values.type())) + " values for " +
                                              std::to_string(n) + " " + std::string(to_string(buffer.type)) +
                                              " elements");
                }
                with_element_type(buffer.type, [&]<class T>(std::type_identity<T>) {
                    std::ranges::copy(values.as<T>(), array.host.as<T>().begin());
                });
                array.device =
                    kind == HostMemoryKind::mapped ? array.host.device_buffer() : device.alloc_bytes(n * element);
                array.copied = kind != HostMemoryKind::mapped;
            } else {
                // Outputs are read by the CPU: never write-combined (uncached reads) or mapped.
                const HostMemoryKind out_kind = kind == HostMemoryKind::pageable ? kind : HostMemoryKind::pinned;
                array.host = device.alloc_host((n + sentinel_elements) * element, out_kind);
                array.device = device.alloc_bytes((n + sentinel_elements) * element);
                array.copied = true;
            }
            buffers_.buffers_.push_back({buffer.name, buffer.type, array.device});
            arrays_.push_back(std::move(array));
        }
    }

    /// One pass: outputs poisoned (untimed; with check_poison in the check pass), inputs in, the
    /// launch, outputs out.
    Sample pass(Queue& queue, const Launch& launch, const Spacer& spacer, bool check_pass = false)
    {
        for (auto& array : arrays_) {
            if (array.spec->role == BufferSpec::Role::output) {
                with_element_type(array.spec->type, [&]<class T>(std::type_identity<T>) {
                    const T value = check_pass ? check_poison<T>() : poison<T>();
                    std::ranges::fill(array.host.as<T>(), value);
                    queue.fill(Buffer<T>(array.device), value);
                });
            }
        }
        queue.finish();
        PhaseTimer timer(queue);
        for (auto& array : arrays_) {
            if (array.spec->role == BufferSpec::Role::input && array.copied) {
                queue.write(Buffer<std::byte>(array.device),
                            std::span<const std::byte>(array.host.as<const std::byte>()));
            }
        }
        timer.mark(Phase::h2d);
        timer.space(spacer);
        launch(queue, buffers_);
        timer.mark(Phase::kernel);
        for (auto& array : arrays_) {
            if (array.spec->role == BufferSpec::Role::output) {
                queue.read(array.host.as<std::byte>(), Buffer<std::byte>(array.device));
            }
        }
        timer.mark(Phase::d2h);
        return timer.sample();
    }

    /// The outputs of the last pass, end to end, after their sentinels are checked; when verifying,
    /// the check pass (its sentinels checked too) and the elements neither pass wrote, then the
    /// outputs against the reference's, computed from the same inputs.
    void check(Measurement& result, Queue& queue, const Launch& launch, const Spacer& spacer)
    {
        result.output = Values(output_type_, 0);
        for (const auto& array : arrays_) {
            if (array.spec->role == BufferSpec::Role::output) {
                with_element_type(array.spec->type, [&]<class T>(std::type_identity<T>) {
                    const auto host = array.host.as<const T>();
                    check_sentinels(host.subspan(array.size), "'" + array.spec->name + "'");
                    auto& output = result.output.as<T>();
                    output.insert(output.end(), host.begin(), host.begin() + array.size);
                });
                if (array.spec->shape) {
                    result.output_shape = array.spec->shape(request_.settings);
                }
            }
        }
        if (request_.verify) {
            pass(queue, launch, spacer, true);
            std::size_t offset = 0;
            for (const auto& array : arrays_) {
                if (array.spec->role == BufferSpec::Role::output) {
                    with_element_type(array.spec->type, [&]<class T>(std::type_identity<T>) {
                        judge_check_pass(array.spec->name,
                                         std::span<const T>(result.output.as<T>()).subspan(offset, array.size),
                                         array.host.as<const T>(), offset, result.output.size(), true, result.writes);
                    });
                    offset += array.size;
                }
            }
        }
        check_against_reference(request_, result, [&](Values& expected) {
            // The inputs as drawn; each output a slice of `expected`, in the order of the spec.
            HostArrays arrays;
            std::size_t offset = 0;
            auto* slices = static_cast<std::byte*>(with_element_type(
                expected.type(), [&]<class T>(std::type_identity<T>) -> void* { return expected.as<T>().data(); }));
            for (const auto& array : arrays_) {
                const bool input = array.spec->role == BufferSpec::Role::input;
                void* data = input ? array.host.data() : slices + offset * element_size(array.spec->type);
                arrays.arrays_.push_back({array.spec->name, array.spec->type, data, array.size});
                offset += input ? 0 : array.size;
            }
            spec_.reference(request_.settings, arrays);
        });
    }

    const DeviceBuffers& buffers() const { return buffers_; }

private:
    struct Array {
        const BufferSpec* spec;
        std::size_t size;
        HostBuffer host;
        RawBuffer device;
        bool copied; ///< moved by copies; a mapped input is read in place
    };

    /// The outputs' one element type; InvalidArgument naming two that differ.
    ElementType output_type() const
    {
        const BufferSpec* first = nullptr;
        for (const auto& buffer : spec_.buffers) {
            if (buffer.role != BufferSpec::Role::output) {
                continue;
            }
            if (first != nullptr && buffer.type != first->type) {
                throw InvalidArgument("duet", "workload::Spec",
                                      "outputs '" + first->name + "' (" + std::string(to_string(first->type)) +
                                          ") and '" + buffer.name + "' (" + std::string(to_string(buffer.type)) +
                                          ") differ in element type; a spec's outputs are checked as one array");
            }
            first = first != nullptr ? first : &buffer;
        }
        return first != nullptr ? first->type : ElementType::f32;
    }

    const Spec& spec_;
    const RunRequest& request_;
    ElementType output_type_;
    std::vector<Array> arrays_;
    DeviceBuffers buffers_;
};

SpecWorkload::SpecWorkload(Spec spec) : spec_(std::move(spec)) {}

Footprint SpecWorkload::footprint(const RunRequest& request) const
{
    Footprint footprint;
    footprint.device_bytes = Spacer::bytes(request.device);
    footprint.largest_buffer = footprint.device_bytes;
    for (const auto& buffer : spec_.buffers) {
        const bool output = buffer.role == BufferSpec::Role::output;
        const bool mapped = buffer.host_memory && buffer.host_memory(request.settings) == HostMemoryKind::mapped;
        const std::uint64_t bytes =
            (buffer.size(request.settings) + (output ? sentinel_elements : 0)) * element_size(buffer.type);
        if (!(mapped && !output)) {
            footprint.device_bytes += bytes;
            footprint.largest_buffer = std::max(footprint.largest_buffer, bytes);
        }
        // Inputs: the drawn values and their host buffer; outputs: the host buffer, the result
        // and the reference's.
        footprint.host_bytes += (output ? 3 : 2) * bytes;
    }
    if (spec_.extra_device_bytes) {
        const std::uint64_t extra = spec_.extra_device_bytes(request.settings);
        footprint.device_bytes += extra;
        footprint.largest_buffer = std::max(footprint.largest_buffer, extra);
    }
    return footprint;
}

Measurement SpecWorkload::run(const RunRequest& request) const
{
    const Launch launch = spec_.prepare(request.device, request.settings, request.variant);
    Runner runner(spec_, request);
    const Spacer spacer(request.device);
    auto queue = request.device.create_queue();
    Measurement result;
    result.samples = repeat(request.timing, [&] { return runner.pass(queue, launch, spacer); });
    result.set_medians();
    result.work = spec_.work(request.settings);
    result.unit = spec_.unit;
    const Tolerance tolerance = spec_.tolerance(request.settings);
    result.tolerance = tolerance.value;
    result.tolerance_reason = tolerance.reason;
    runner.check(result, queue, launch, spacer);
    if (spec_.figures) {
        result.extras = spec_.figures(queue, runner.buffers(), launch, request.settings);
    }
    return result;
}

} // namespace duet::workload
