// The workload kit: the runner of a Spec, and the pieces it is made of.
#include <duet/workload/kit.hpp>

#include <duet_kernels/workload_spacer.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>

namespace duet::workload {

namespace {

/// A quiet NaN no arithmetic produces (hardware NaNs carry an empty or all-ones payload).
constexpr std::uint32_t poison_bits = 0x7fc0dead;

/// The item of that name in `items` (name, item pairs); NotFound naming what the spec declares.
template <class Item>
const Item& named(const std::vector<std::pair<std::string, Item>>& items, std::string_view kind, std::string_view name)
{
    std::string known;
    for (const auto& [key, item] : items) {
        if (key == name) {
            return item;
        }
        known += (known.empty() ? "" : ", ") + key;
    }
    throw NotFound("duet", "workload::Spec", 0, "",
                   "no " + std::string(kind) + " '" + std::string(name) + "'; the spec declares: " + known);
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

BufferSpec input(std::string name, std::function<std::size_t(const Settings&)> size)
{
    return {std::move(name), BufferSpec::Role::input, std::move(size), {}, {}, {}};
}

BufferSpec output(std::string name, std::function<std::size_t(const Settings&)> size)
{
    return {std::move(name), BufferSpec::Role::output, std::move(size), {}, {}, {}};
}

const Buffer<float>& DeviceBuffers::operator[](std::string_view name) const
{
    return named(buffers_, "buffer", name);
}

std::span<const float> HostArrays::in(std::string_view name) const
{
    return named(arrays_, "array", name);
}

std::span<float> HostArrays::out(std::string_view name) const
{
    return named(arrays_, "array", name);
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<float> magnitude(0.5f, 2.0f);
    std::bernoulli_distribution negative(0.5);
    std::vector<float> values(n);
    for (float& value : values) {
        value = negative(engine) ? -magnitude(engine) : magnitude(engine);
    }
    return values;
}

float poison()
{
    return std::bit_cast<float>(poison_bits);
}

void check_sentinels(std::span<const float> tail, const std::string& what)
{
    for (std::size_t i = 0; i < tail.size(); ++i) {
        if (std::bit_cast<std::uint32_t>(tail[i]) != poison_bits) {
            throw Error("duet", "workload::check_sentinels", 0, "",
                        "a kernel wrote past the end of " + what + ": the sentinel " + std::to_string(i) +
                            " elements past it holds " + std::to_string(tail[i]));
        }
    }
}

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
    for (unsigned i = 0; i < timing.warmup; ++i) {
        pass();
    }
    std::vector<Sample> samples;
    const auto start = std::chrono::steady_clock::now();
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
    while (samples.size() < std::max(timing.min_runs, 1u)) {
        samples.push_back(pass());
    }
    while (samples.size() < timing.max_runs && !settled() &&
           std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() <
               timing.budget_ms) {
        samples.push_back(pass());
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
    throw InvalidArgument("", "workload::host_memory_kind", 0, "",
                          "unknown host memory kind '" + name + "'; known:" + known);
}

void check_against_reference(const RunRequest& request, Measurement& result, std::size_t n,
                             const std::function<void(std::span<float>)>& reference)
{
    if (!request.verify) {
        return;
    }
    std::vector<float> expected(n, poison()); // an element the reference leaves unwritten fails too
    result.reference_ms = host_ms([&] { reference(std::span<float>(expected)); });
    result.agreement = compare(result.output, expected, result.tolerance, result.output_shape);
    result.max_error = result.agreement.max_error;
    result.verified = true;
}

// ---- The runner ----

/// One run of a Spec: its arrays on the host and the device, and the timed pass.
class Runner {
public:
    Runner(const Spec& spec, const RunRequest& request) : spec_(spec), request_(request)
    {
        const Settings& settings = request.settings;
        const Device& device = request.device;
        std::uint64_t stream = request.seed;
        for (const auto& buffer : spec.buffers) {
            const std::size_t n = buffer.size(settings);
            const HostMemoryKind kind = buffer.host_memory ? buffer.host_memory(settings) : HostMemoryKind::pageable;
            Array array{&buffer, n, {}, {}, {}};
            if (buffer.role == BufferSpec::Role::input) {
                // Kinds a backend lacks throw Unsupported here, before anything runs.
                array.host = device.alloc_host(n * sizeof(float), kind);
                const auto values = buffer.draw ? buffer.draw(n, stream++) : random_floats(n, stream++);
                if (values.size() != n) {
                    throw InvalidArgument("duet", "workload::Spec", 0, "",
                                          "input '" + buffer.name + "' drew " + std::to_string(values.size()) +
                                              " values for " + std::to_string(n) + " elements");
                }
                std::memcpy(array.host.data(), values.data(), n * sizeof(float));
                array.device =
                    kind == HostMemoryKind::mapped ? Buffer<float>(array.host.device_buffer()) : device.alloc<float>(n);
                array.copied = kind != HostMemoryKind::mapped;
            } else {
                // Outputs are read by the CPU: never write-combined (uncached reads) or mapped.
                const HostMemoryKind out_kind = kind == HostMemoryKind::pageable ? kind : HostMemoryKind::pinned;
                array.host = device.alloc_host((n + sentinel_elements) * sizeof(float), out_kind);
                array.device = device.alloc<float>(n + sentinel_elements);
                array.copied = true;
            }
            buffers_.buffers_.emplace_back(buffer.name, array.device);
            arrays_.push_back(std::move(array));
        }
    }

    /// One pass: outputs poisoned (untimed), inputs in, the launch, outputs out.
    Sample pass(Queue& queue, const Launch& launch, const Spacer& spacer)
    {
        for (auto& array : arrays_) {
            if (array.spec->role == BufferSpec::Role::output) {
                std::ranges::fill(array.host.as<float>(), poison());
                queue.fill(array.device, poison());
            }
        }
        queue.finish();
        PhaseTimer timer(queue);
        for (auto& array : arrays_) {
            if (array.spec->role == BufferSpec::Role::input && array.copied) {
                queue.write(array.device, std::span<const float>(array.host.as<const float>()));
            }
        }
        timer.mark(Phase::h2d);
        timer.space(spacer);
        launch(queue, buffers_);
        timer.mark(Phase::kernel);
        for (auto& array : arrays_) {
            if (array.spec->role == BufferSpec::Role::output) {
                queue.read(array.host.as<float>(), array.device);
            }
        }
        timer.mark(Phase::d2h);
        return timer.sample();
    }

    /// The outputs of the last pass, end to end, after their sentinels are checked, against the
    /// reference's, computed from the same inputs.
    void check(Measurement& result) const
    {
        std::size_t outputs = 0;
        for (const auto& array : arrays_) {
            if (array.spec->role == BufferSpec::Role::output) {
                const auto host = array.host.as<float>();
                check_sentinels(host.subspan(array.size), array.spec->name);
                result.output.insert(result.output.end(), host.begin(), host.begin() + array.size);
                if (array.spec->shape) {
                    result.output_shape = array.spec->shape(request_.settings);
                }
                outputs += array.size;
            }
        }
        check_against_reference(request_, result, outputs, [&](std::span<float> expected) {
            // The inputs as drawn; each output a slice of `expected`, in the order of the spec.
            HostArrays arrays;
            std::size_t offset = 0;
            for (const auto& array : arrays_) {
                const bool input = array.spec->role == BufferSpec::Role::input;
                arrays.arrays_.emplace_back(array.spec->name, input ? array.host.as<float>().first(array.size)
                                                                    : expected.subspan(offset, array.size));
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
        Buffer<float> device;
        bool copied; ///< moved by copies; a mapped input is read in place
    };
    const Spec& spec_;
    const RunRequest& request_;
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
        const std::uint64_t bytes = (buffer.size(request.settings) + (output ? sentinel_elements : 0)) * sizeof(float);
        if (!(mapped && !output)) {
            footprint.device_bytes += bytes;
            footprint.largest_buffer = std::max(footprint.largest_buffer, bytes);
        }
        // Inputs: the drawn values and their host buffer; outputs: the host buffer, the result
        // and the reference's.
        footprint.host_bytes += (output ? 3 : 2) * bytes;
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
    runner.check(result);
    if (spec_.figures) {
        result.extras = spec_.figures(queue, runner.buffers(), launch, request.settings);
    }
    return result;
}

} // namespace duet::workload
