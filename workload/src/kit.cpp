// The workload kit: the runner of a Spec, and the pieces it is made of.
#include <duet/workload/kit.hpp>
#include <duet/workload/turns.hpp>

#include <duet/detail/saturating.hpp>

#include <duet_kernels/workload_spacer.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

/// The arrays of a run of `spec`: its buffers_for's, else its buffers.
std::vector<BufferSpec> declared(const Spec& spec, const Settings& settings, const std::string& variant)
{
    return spec.buffers_for ? spec.buffers_for(settings, variant) : spec.buffers;
}

template <class T> bool same_bits(T a, T b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// While it lives, each exchange of a run on several ranks is also recorded into `records`, so that
/// the runner can time a pass's communication (one rank's communicator, shared, is left alone).
class ExchangeLog {
public:
    ExchangeLog(Communicator& ranks, std::vector<ExchangeRecord>& records) : ranks_(ranks.size() > 1 ? &ranks : nullptr)
    {
        if (ranks_ != nullptr) {
            ranks_->log_exchanges(&records);
        }
    }
    ~ExchangeLog()
    {
        if (ranks_ != nullptr) {
            ranks_->log_exchanges(nullptr);
        }
    }
    ExchangeLog(const ExchangeLog&) = delete;
    ExchangeLog& operator=(const ExchangeLog&) = delete;

private:
    Communicator* ranks_;
};

/// Runs `start` (prepare and allocate a run) on every rank, then agrees that all succeeded: where
/// any rank failed, every rank throws, rank 0 naming each that failed, its device and its error
/// (Unsupported where each failure was, so that the run reads unsupported, else Error). The ranks
/// first check that they are at the same run, since a rank that skipped one (refused before it ran)
/// would pair its exchanges with another run's.
void agree_to_run(Communicator& ranks, const std::string& name, const RunRequest& request,
                  const std::function<void()>& start)
{
    std::string key = name + "/" + request.variant + " on " + request.device.backend() + " (" +
                      request.device.properties().platform + ")|" + std::to_string(request.seed);
    for (const auto& [name, value] : request.settings.values()) {
        key += "|" + name + "=" + value;
    }
    const std::string me = "rank " + std::to_string(ranks.rank()) + " (" + request.device.selector() + ")";
    std::string failure;
    std::exception_ptr own;
    bool unsupported = false;
    try {
        start();
    } catch (const Unsupported& error) {
        failure = error.what();
        unsupported = true;
        own = std::current_exception();
    } catch (const OutOfMemory& error) {
        // Too large for this rank's device or host, as on one rank: refused, not failed.
        failure = error.what();
        unsupported = true;
        own = std::current_exception();
    } catch (const std::exception& error) {
        failure = error.what();
        own = std::current_exception();
    } catch (...) {
        failure = foreign_exception_text(name, "prepare");
        own = std::current_exception();
    }
    // What every rank says, on rank 0: its run, then "ok" or the rank and its device with
    // "unsupported: ..." or "failed: ...".
    const auto said = ranks.gather_text(
        key + "\n" + (own ? me + ": " + (unsupported ? "unsupported: " : "failed: ") + failure : std::string("ok")));
    std::string problems;
    bool all_unsupported = true;
    for (std::size_t r = 0; r < said.size(); ++r) {
        const auto newline = said[r].find('\n');
        if (said[r].substr(0, newline) != key) {
            problems += "; rank " + std::to_string(r) + " is at another run (" + said[r].substr(0, newline) + ")";
            all_unsupported = false;
            continue;
        }
        const std::string outcome = said[r].substr(newline + 1);
        if (outcome != "ok") {
            problems += "; " + outcome;
            all_unsupported = all_unsupported && outcome.find("): unsupported: ") != std::string::npos;
        }
    }
    // Rank 0 tells the others whether to go on: the sum of its verdict alone.
    const bool stop = ranks.sum_over_ranks(ranks.rank() == 0 && !problems.empty() ? 1.0 : 0.0) > 0;
    if (!stop) {
        return;
    }
    if (ranks.rank() != 0) {
        if (own) {
            std::rethrow_exception(own);
        }
        throw Error("duet", "workload::run", me + " stopped: another rank could not start this run (rank 0 names it)");
    }
    const std::string text = "on " + std::to_string(ranks.size()) + " ranks" + problems;
    if (all_unsupported) {
        throw Unsupported("duet", "workload::run", text);
    }
    throw Error("duet", "workload::run", text);
}

/// The pass of the slowest rank, so that every rank holds the same samples and the timing rule
/// stops them all after the same pass: each phase the largest over the ranks, but the kernel phase
/// and its communication split as the rank with the slowest kernel phase (exchanges included) split
/// it. Each taken apart would add the rank that computed longest to the rank that waited longest
/// for it, the same imbalance counted twice.
Sample slowest(Communicator& ranks, Sample sample)
{
    const auto communication = std::ranges::find(sample.extra_phases, std::string("communication"),
                                                 [](const auto& extra) { return extra.first; });
    const double own_communication = communication != sample.extra_phases.end() ? communication->second : 0;
    const double phase = ranks.max_over_ranks(sample.kernel_ms + own_communication);
    // MPI_MAX returns one of the values: the slowest rank knows itself (ties take the most communication).
    const double slowest_communication =
        ranks.max_over_ranks(sample.kernel_ms + own_communication == phase ? own_communication : -1.0);
    sample.kernel_ms = phase - slowest_communication;
    for (double* value : {&sample.h2d_ms, &sample.d2h_ms, &sample.total_ms, &sample.rate_ms}) {
        *value = ranks.max_over_ranks(*value);
    }
    for (auto& [name, ms] : sample.extra_phases) {
        ms = name == "communication" ? slowest_communication : ranks.max_over_ranks(ms);
    }
    return sample;
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

namespace {
BufferSpec buffer_spec(std::string name, BufferSpec::Role role, std::function<std::size_t(const Settings&)> size,
                       ElementType type)
{
    BufferSpec buffer;
    buffer.name = std::move(name);
    buffer.role = role;
    buffer.type = type;
    buffer.size = std::move(size);
    return buffer;
}
} // namespace

BufferSpec input(std::string name, std::function<std::size_t(const Settings&)> size, ElementType type)
{
    return buffer_spec(std::move(name), BufferSpec::Role::input, std::move(size), type);
}

BufferSpec output(std::string name, std::function<std::size_t(const Settings&)> size, ElementType type)
{
    return buffer_spec(std::move(name), BufferSpec::Role::output, std::move(size), type);
}

BufferSpec in_out(std::string name, std::function<std::size_t(const Settings&)> size, ElementType type)
{
    return buffer_spec(std::move(name), BufferSpec::Role::in_out, std::move(size), type);
}

BufferSpec scratch(std::string name, std::function<std::size_t(const Settings&)> size, ElementType type)
{
    return buffer_spec(std::move(name), BufferSpec::Role::scratch, std::move(size), type);
}

const DeviceBuffers::Entry& DeviceBuffers::find(std::string_view name, ElementType type, std::size_t instance) const
{
    // Called on every get() and every copy of a pass: the names are listed only for the error.
    const Entry* found = nullptr;
    std::size_t instances = 0;
    for (const auto& entry : buffers_) {
        if (entry.name == name) {
            found = entry.instance == instance ? &entry : found;
            ++instances;
        }
    }
    if (instances == 0) {
        std::string known;
        for (const auto& entry : buffers_) {
            known += entry.instance == 0 ? (known.empty() ? "" : ", ") + entry.name : "";
        }
        throw NotFound("duet", "workload::Spec", "no array '" + std::string(name) + "'; the spec declares: " + known);
    }
    if (found == nullptr) {
        throw InvalidArgument("duet", "workload::Spec",
                              "'" + std::string(name) + "' has " + std::to_string(instances) +
                                  " instances; there is no instance " + std::to_string(instance));
    }
    if (found->type != type) {
        throw InvalidArgument("duet", "workload::Spec",
                              "'" + found->name + "' holds " + std::string(to_string(found->type)) + ", not " +
                                  std::string(to_string(type)));
    }
    return *found;
}

void DeviceBuffers::throw_not_pitched(std::string_view name)
{
    throw InvalidArgument("duet", "workload::Spec",
                          "'" + std::string(name) + "' is a flat array, not pitched: take it with get()");
}

const Part& DeviceBuffers::part(std::string_view name) const
{
    for (const auto& entry : buffers_) {
        if (entry.name == name) {
            return entry.part;
        }
    }
    throw NotFound("duet", "workload::DeviceBuffers::part", "no array '" + std::string(name) + "'");
}

void DeviceBuffers::swap(std::string_view first, std::string_view second)
{
    // An array's instances lie one after another: swapped instance by instance, allocating
    // nothing (a manifest swaps between launches, inside the timed kernel phase).
    const auto instances_of = [&](std::string_view name) {
        const auto begin = std::ranges::find_if(buffers_, [&](const Entry& entry) { return entry.name == name; });
        const auto end = std::find_if(begin, buffers_.end(), [&](const Entry& entry) { return entry.name != name; });
        return std::span<Entry>(begin, end);
    };
    const std::span<Entry> a = instances_of(first);
    const std::span<Entry> b = instances_of(second);
    if (a.empty() || b.empty() || a.size() != b.size() || a[0].type != b[0].type ||
        a[0].buffer.bytes() != b[0].buffer.bytes() || a[0].pitch != b[0].pitch) {
        throw InvalidArgument("duet", "workload::DeviceBuffers::swap",
                              "'" + std::string(first) + "' and '" + std::string(second) +
                                  "' cannot be swapped: both must be declared, of one element type, size and "
                                  "number of instances");
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        std::swap(a[i].buffer, b[i].buffer);
        std::swap(a[i].origin, b[i].origin);
    }
}

std::pair<void*, std::size_t> HostArrays::find(std::string_view name, ElementType type) const
{
    const Entry& entry = named(arrays_, name, type);
    return {entry.data, entry.size};
}

Part part_of(std::size_t total_rows, std::size_t row, std::size_t halo, int rank, int ranks)
{
    const auto r = static_cast<std::size_t>(rank);
    const auto n = static_cast<std::size_t>(ranks);
    Part part;
    part.row = row;
    part.total_rows = total_rows;
    part.first_row = total_rows / n * r + std::min(r, total_rows % n);
    part.rows = total_rows / n + (r < total_rows % n ? 1 : 0);
    part.halo_low = std::min(halo, part.first_row);
    part.halo_high = std::min(halo, total_rows - part.first_row - part.rows);
    return part;
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
    : kernel_(device.build(kernels::workload_spacer()).kernel(kernel_name)),
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
        // At least 256 MiB (five times an H100's L2), whatever the API reports of the cache:
        // OpenCL has no query for the L2 (NVIDIA's CL_DEVICE_GLOBAL_MEM_CACHE_SIZE is 4.1 MiB on an
        // H100), and one GPU seen through both APIs gets one spacer.
        bytes = std::max(2 * p.l2_cache, std::uint64_t{256} << 20);
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

std::vector<Sample> repeat(const Timing& timing, const std::function<Sample()>& pass,
                           const std::function<double(double)>& agree_ms)
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
        const double ms = host_ms([&] { samples.push_back(pass()); });
        spent_ms += agree_ms ? agree_ms(ms) : ms;
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
    spec.figures = [bytes = spec.bytes, source = std::move(source),
                    copy_bytes](Queue& queue, DeviceBuffers& buffers, const Launch& launch, const Settings& settings,
                                const std::string&) -> Report {
        return copy_yardstick(
            queue, bytes(settings), [&] { launch(queue, buffers); }, buffers.get(source).raw(), copy_bytes(settings));
    };
    spec.figures_device_bytes = [copy_bytes](const Settings& settings) { return std::uint64_t{copy_bytes(settings)}; };
    if (other_bytes) {
        spec.extra_device_bytes = std::move(other_bytes);
    }
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

// ---- The runner ----

/// One run of a Spec: its arrays on the host and the device, and its passes.
class Runner {
public:
    Runner(const Spec& spec, const RunRequest& request, const Prepared& prepared, const Spacer& spacer)
        : spec_(spec), request_(request), prepared_(prepared), spacer_(spacer),
          declared_(declared(spec, request.settings, request.variant)), output_type_(output_type()),
          ranks_(request.communicator != nullptr ? *request.communicator : one_rank()),
          exchange_log_(ranks_, exchanges_)
    {
        initial_.communicator_ = &ranks_;
        std::uint64_t stream = request.seed;
        for (std::size_t index = 0; index < declared_.size(); ++index) {
            arrays_.push_back(make_array(index, stream));
        }
        if (prepared.draw) {
            HostArrays inputs;
            inputs.seed_ = request.seed;
            inputs.ranks_ = ranks_.size();
            for (const auto& array : arrays_) {
                if (is_drawn(*array.spec)) {
                    inputs.arrays_.push_back(
                        {array.spec->name, array.spec->type, array.source.data(), array.global * array.instances});
                }
            }
            prepared.draw(inputs);
        }
        buffers_ = initial_;
        // A resident input is copied once, here.
        Queue queue = request.device.create_queue();
        for (const auto& array : arrays_) {
            if (array.spec->resident) {
                copy(queue, array, true, std::nullopt);
            }
        }
        queue.finish();
    }

    /// One pass: each name on its own buffer, every buffer the pass does not fill poisoned
    /// (untimed; check_poison in the check pass), then the schedule, by default the standard one:
    /// inputs in, the launch, outputs out. The launch step's report goes to `report`.
    Sample pass(Queue& queue, const Schedule& schedule, bool check_pass, Report* report = nullptr)
    {
        buffers_ = initial_;
        poison_buffers(queue, check_pass, false);
        exchanges_.clear();
        Pass pass(*this, queue, buffers_, prepared_.launch, spacer_, check_pass);
        Sample sample = schedule ? schedule(pass) : standard(pass);
        if (report != nullptr) {
            *report = std::move(pass.report_);
        }
        if (ranks_.size() > 1) {
            // The exchanges ran between the launches on the same in-order queue: their device time
            // is the kernel phase's communication, reported apart from it.
            double communication = 0;
            for (const auto& record : exchanges_) {
                record.end.wait();
                communication += elapsed_ms(record.start, record.end);
            }
            sample.kernel_ms = std::max(0.0, sample.kernel_ms - communication);
            sample.extra_phases.emplace_back("communication", communication);
            sample = slowest(ranks_, sample);
        }
        return sample;
    }

    Communicator& ranks() const { return ranks_; }

    /// On several ranks, waits for the queue and then for every rank: without it the kernel phase's
    /// first exchange waits for the rank whose copies in ran longest (milliseconds apart for inputs
    /// of gigabytes) and times that wait as communication.
    void start_together(Queue& queue) const
    {
        if (ranks_.size() > 1) {
            queue.finish();
            ranks_.barrier();
        }
    }

    /// For repeat: a pass's host time as every rank counts it, the slowest's, so that the time
    /// budget stops them all after the same pass; none on one rank.
    std::function<double(double)> agreed_ms() const
    {
        if (ranks_.size() == 1) {
            return {};
        }
        return [this](double ms) { return ranks_.max_over_ranks(ms); };
    }

    /// The last pass's exchanges, each kind once with its path, then the communicator; empty on one rank.
    std::string exchanges() const
    {
        if (ranks_.size() == 1) {
            return {};
        }
        std::string text;
        for (const auto& record : exchanges_) {
            const std::string item = record.exchange + ": " + std::string(to_string(record.path));
            if (text.find(item) == std::string::npos) {
                text += item + "; ";
            }
        }
        return text + ranks_.describe();
    }

    /// On rank 0, every rank's owned part of `local` (what outputs() gives on each rank) in its
    /// place in the whole arrays, end to end as on one rank; an array every rank holds whole is
    /// rank 0's. Other ranks get `local` back. Collective: every rank calls it.
    Values gather(const Values& local)
    {
        if (ranks_.size() == 1) {
            return local;
        }
        return with_element_type(local.type(), [&]<class T>(std::type_identity<T>) -> Values {
            const auto& mine = local.as<T>();
            const auto blobs =
                ranks_.gather_text(std::string(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(T)));
            if (ranks_.rank() != 0) {
                return local;
            }
            // Each block straight from the rank's bytes into its place: the outputs may be gigabytes.
            std::size_t total = 0;
            each_gathered_block(
                [&](const Array&, std::size_t, std::size_t, std::size_t, std::size_t count) { total += count; });
            std::vector<T> whole(total);
            std::size_t next = 0;
            each_gathered_block([&](const Array&, std::size_t, std::size_t r, std::size_t at, std::size_t count) {
                std::memcpy(whole.data() + next, blobs[r].data() + at * sizeof(T), count * sizeof(T));
                next += count;
            });
            return whole;
        });
    }

    /// On rank 0, every rank's judged writes (judge_writes on each) as one judgement of the whole
    /// outputs; other ranks keep their own. Collective.
    void gather_writes(Writes& writes)
    {
        if (ranks_.size() == 1) {
            return;
        }
        // Every rank sends a byte per owned element of its outputs, whatever it judged: rank 0
        // reads each rank's at the same places.
        std::size_t owned_total = 0;
        for (const auto& array : arrays_) {
            owned_total += is_read_back(*array.spec) ? array.owned * array.instances : 0;
        }
        std::string mine(owned_total, '\0');
        for (std::size_t i = 0; i < writes.mask.size() && i < owned_total; ++i) {
            mine[i] = writes.mask[i] ? 1 : 0;
        }
        const auto masks = ranks_.gather_text(mine);
        if (ranks_.rank() != 0) {
            return;
        }
        std::size_t total = 0;
        for (const auto& array : arrays_) {
            total += is_read_back(*array.spec) ? array.global * array.instances : 0;
        }
        Writes whole;
        whole.checked = writes.checked;
        whole.elements = total;
        std::size_t next = 0;  // where the next output starts in the whole
        std::size_t index = 0; // in the current output
        bool judged = false;
        each_gathered_block(
            [&](const Array& array, std::size_t instance, std::size_t r, std::size_t at, std::size_t count) {
                if (r == 0) { // an output's first block: judged as judge_writes judged it on every rank
                    judged = is_judged(array, instance);
                    if (judged) {
                        whole.add_output(array.spec->name + instance_text(array, instance), next, array.global, total);
                    }
                    next += array.global;
                    index = 0;
                }
                for (std::size_t k = 0; k < count; ++k, ++index) {
                    if (judged && at + k < masks[r].size() && masks[r][at + k] != 0) {
                        whole.mark(index);
                    }
                }
            });
        writes = std::move(whole);
    }

    /// The outputs of the last pass, end to end in the spec's order, once their sentinels (and a
    /// pitched output's padding) are found to hold the pass's poison.
    Values outputs(Queue& queue, bool check_pass)
    {
        Values all(output_type_, 0);
        each_output([&]<class T>(const Array& array, std::size_t i, std::span<const T> host) {
            const std::string what = "'" + array.spec->name + "'" + instance_text(array, i);
            check_sentinels(host.subspan(array.size), what, check_pass ? check_poison<T>() : poison<T>());
            check_padding<T>(queue, current(array, i), what, check_pass);
            auto& values = all.as<T>();
            const auto owned = host.subspan(array.owned_offset, array.owned);
            values.insert(values.end(), owned.begin(), owned.end());
        });
        return all;
    }

    /// After the check pass: each element that held the poison after the timed pass (`timed`,
    /// outputs() of it) and the check poison now is marked never written. An output read from a
    /// buffer that starts with values (updated in place, or swapped with an input) is not judged;
    /// one swapped with a scratch buffer is, as that starts poisoned whole too.
    void judge_writes(Queue& queue, const Values& timed, Writes& writes)
    {
        std::size_t offset = 0;
        each_output([&]<class T>(const Array& array, std::size_t i, std::span<const T> host) {
            // Named unquoted: judge_check_pass quotes it, as Writes::describe does.
            const std::string name = array.spec->name + instance_text(array, i);
            check_padding<T>(queue, current(array, i), "'" + array.spec->name + "'" + instance_text(array, i), true);
            const bool judged = is_judged(array, i);
            // A split array's owned rows, then its sentinels, as judge_check_pass reads them.
            std::vector<T> owned;
            if (array.spec->split) {
                const auto rows = host.subspan(array.owned_offset, array.owned);
                const auto tail = host.subspan(array.size);
                owned.assign(rows.begin(), rows.end());
                owned.insert(owned.end(), tail.begin(), tail.end());
            }
            judge_check_pass(name, std::span<const T>(timed.as<T>()).subspan(offset, array.owned),
                             array.spec->split ? std::span<const T>(owned) : host, offset, timed.size(), judged,
                             writes);
            offset += array.owned;
        });
    }

    /// The reference's outputs, end to end as outputs() gives the device's: each element poison
    /// until the reference writes it, an in_out's starting as drawn.
    Values reference(double& ms)
    {
        std::size_t total = 0;
        for (const auto& array : arrays_) {
            total += is_read_back(*array.spec) ? array.global * array.instances : 0;
        }
        Values expected = with_element_type(
            output_type_, [&]<class T>(std::type_identity<T>) -> Values { return std::vector<T>(total, poison<T>()); });
        auto* slices = static_cast<std::byte*>(with_element_type(
            output_type_, [&]<class T>(std::type_identity<T>) -> void* { return expected.as<T>().data(); }));
        HostArrays arrays;
        arrays.seed_ = request_.seed;
        arrays.ranks_ = ranks_.size();
        std::size_t offset = 0;
        for (const auto& array : arrays_) {
            const std::size_t elements = array.global * array.instances;
            const std::size_t bytes = elements * element_size(array.spec->type);
            if (array.spec->role == BufferSpec::Role::input) {
                arrays.arrays_.push_back({array.spec->name, array.spec->type, array.source.data(), elements});
            } else if (is_read_back(*array.spec)) {
                std::byte* slice = slices + offset * element_size(array.spec->type);
                if (array.spec->role == BufferSpec::Role::in_out) {
                    std::memcpy(slice, array.source.data(), bytes);
                }
                arrays.arrays_.push_back({array.spec->name, array.spec->type, slice, elements});
                offset += elements;
            }
        }
        ms = host_ms([&] {
            if (prepared_.reference) {
                prepared_.reference(arrays);
            } else {
                spec_.reference(request_.settings, arrays);
            }
        });
        return expected;
    }

    /// Each output against `expected`: as one array with the run's tolerance, or where the spec
    /// gives outputs tolerances of their own, each with its own, the first that fails reported.
    void compare_outputs(Measurement& result, const Values& expected) const
    {
        const bool own = std::ranges::any_of(arrays_, [](const Array& array) {
            return is_read_back(*array.spec) && static_cast<bool>(array.spec->tolerance);
        });
        if (!own) {
            result.agreement =
                compare(result.output, expected, result.tolerance, result.output_shape, result.writes.mask);
            result.max_error = result.agreement.max_error;
            return;
        }
        const double run_tolerance = result.tolerance;
        const std::string run_reason = result.tolerance_reason;
        std::size_t offset = 0;
        for (const auto& array : arrays_) {
            if (!is_read_back(*array.spec)) {
                continue;
            }
            const std::size_t count = array.global * array.instances;
            const auto slice = [&](const Values& all) {
                return with_element_type(all.type(), [&]<class T>(std::type_identity<T>) -> Values {
                    const auto& v = all.as<T>();
                    return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(offset),
                                          v.begin() + static_cast<std::ptrdiff_t>(offset + count));
                });
            };
            const auto& mask = result.writes.mask;
            const std::vector<bool> unwritten =
                mask.empty() ? mask
                             : std::vector<bool>(mask.begin() + static_cast<std::ptrdiff_t>(offset),
                                                 mask.begin() + static_cast<std::ptrdiff_t>(offset + count));
            const Tolerance tolerance =
                array.spec->tolerance ? array.spec->tolerance(request_.settings) : Tolerance{run_tolerance, run_reason};
            result.agreement = compare(slice(result.output), slice(expected), tolerance.value,
                                       array.spec->shape ? array.spec->shape(request_.settings) : Shape{}, unwritten);
            result.max_error = result.agreement.max_error;
            result.tolerance = tolerance.value;
            result.tolerance_reason = tolerance.reason;
            offset += count;
            if (!(result.max_error <= tolerance.value)) {
                break;
            }
        }
    }

    /// The layout outputs are named by: the last output's that declares one.
    Shape output_shape() const
    {
        Shape shape;
        for (const auto& array : arrays_) {
            if (is_read_back(*array.spec) && array.spec->shape) {
                shape = array.spec->shape(request_.settings);
            }
        }
        return shape;
    }

    DeviceBuffers& buffers() { return buffers_; }

private:
    friend class Pass;
    friend class Finish;

    struct Array {
        const BufferSpec* spec = nullptr;
        HostMemoryKind kind = HostMemoryKind::pageable;
        std::size_t size = 0;   ///< elements of one instance on this rank's device (a split one's block and halos)
        std::size_t global = 0; ///< elements of one instance of the whole array, as drawn and as the reference sees it
        Part part;
        std::size_t source_offset = 0; ///< where this rank's elements start among the drawn ones
        std::size_t owned_offset = 0;  ///< where its owned ones start in its buffer
        std::size_t owned = 0;         ///< elements it owns: what it copies out is checked of
        std::size_t instances = 1;
        std::size_t stride = 0;      ///< elements of one instance on the device and read back: with its sentinels
        std::size_t first_entry = 0; ///< where its instances start among the device buffers
        HostBuffer source;           ///< the drawn values (inputs, in_out), instances end to end
        HostBuffer source_registration;
        HostBuffer host; ///< what is read back (outputs, in_out), `stride` elements an instance
        HostBuffer host_registration;
    };

    static bool is_read_back(const BufferSpec& spec)
    {
        return spec.role == BufferSpec::Role::output || spec.role == BufferSpec::Role::in_out;
    }
    static bool is_drawn(const BufferSpec& spec)
    {
        return spec.role == BufferSpec::Role::input || spec.role == BufferSpec::Role::in_out;
    }
    /// " (instance 2)" where the array has several; empty where it has one.
    static std::string instance_text(const Array& array, std::size_t instance)
    {
        return array.instances > 1 ? " (instance " + std::to_string(instance) + ")" : std::string();
    }

    /// Host memory of `kind`; registered memory is pageable memory page-locked afterwards, the
    /// registration kept in `registration` (declared after the memory, so released first).
    HostBuffer host_memory(std::size_t bytes, HostMemoryKind kind, HostBuffer& registration) const
    {
        const Device& device = request_.device;
        if (kind != HostMemoryKind::registered) {
            return device.alloc_host(bytes, kind);
        }
        HostBuffer memory = device.alloc_host(bytes, HostMemoryKind::pageable);
        registration = device.register_host(memory.data(), bytes);
        return memory;
    }

    Array make_array(std::size_t index, std::uint64_t& stream)
    {
        const BufferSpec& buffer = declared_[index];
        const Settings& settings = request_.settings;
        const Device& device = request_.device;
        const auto refuse = [&](const std::string& problem) {
            throw InvalidArgument("duet", "workload::Spec", "'" + buffer.name + "' " + problem);
        };
        Array array;
        array.spec = &buffer;
        array.kind = buffer.host_memory ? buffer.host_memory(settings) : HostMemoryKind::pageable;
        array.instances = buffer.instances ? buffer.instances(settings) : 1;
        const Extent3 extent = buffer.pitched ? buffer.pitched(settings) : Extent3{};
        const bool mapped = array.kind == HostMemoryKind::mapped;
        if (buffer.pitched && (array.instances != 1 || mapped)) {
            refuse("is pitched: it has one instance, in host memory that is copied");
        }
        if (buffer.resident && buffer.role != BufferSpec::Role::input) {
            refuse("is resident, which only an input can be");
        }
        if (mapped && (buffer.role == BufferSpec::Role::in_out || buffer.role == BufferSpec::Role::scratch)) {
            refuse("cannot live in mapped host memory: it is updated in place or device-only");
        }
        array.global = buffer.pitched ? extent.count() : buffer.size(settings);
        array.size = array.global;
        array.owned = array.global;
        array.part = Part{.row = array.global, .first_row = 0, .rows = 1, .total_rows = 1};
        if (buffer.split) {
            if (buffer.pitched || array.instances != 1 || mapped) {
                refuse("is split over the ranks: it is flat, has one instance and is copied");
            }
            const std::size_t row = buffer.split->row(settings);
            if (row == 0 || array.global % row != 0) {
                refuse("is split in rows of " + std::to_string(row) + " elements, which " +
                       std::to_string(array.global) + " elements are not a whole number of");
            }
            array.part = part_of(array.global / row, row, buffer.split->halo, ranks_.rank(), ranks_.size());
            if (array.part.rows == 0) {
                // Every rank runs the same kernels on its block: one without rows has nothing to run.
                throw Unsupported("duet", "workload::Spec",
                                  "'" + buffer.name + "' has " + std::to_string(array.part.total_rows) + " row(s) of " +
                                      std::to_string(row) + " elements over " + std::to_string(ranks_.size()) +
                                      " ranks: rank " + std::to_string(ranks_.rank()) +
                                      " would own none (a distributed run takes a row a rank at least)");
            }
            array.size = array.part.local_rows() * row;
            array.source_offset = (array.part.first_row - array.part.halo_low) * row;
            array.owned_offset = array.part.halo_low * row;
            array.owned = array.part.rows * row;
        }
        if (!buffer.sentinels && buffer.role != BufferSpec::Role::input) {
            refuse("has no sentinels, which only an input may go without");
        }
        array.stride = buffer.pitched || !buffer.sentinels ? array.size : array.size + sentinel_elements;
        const std::size_t element = element_size(buffer.type);
        const std::size_t total = array.global * array.instances;
        if (is_drawn(buffer)) {
            // Kinds a backend lacks throw Unsupported here, before anything runs. A mapped input
            // is the device buffer itself: its sentinels follow it in host memory.
            array.source =
                host_memory((mapped ? array.stride : total) * element, array.kind, array.source_registration);
            if (!prepared_.draw) { // else drawn all at once, once every array is made
                const Values values =
                    buffer.draw ? buffer.draw(total, stream++) : random_values(buffer.type, total, stream++);
                if (values.size() != total || values.type() != buffer.type) {
                    refuse("drew " + std::to_string(values.size()) + " " + std::string(to_string(values.type())) +
                           " values for " + std::to_string(total) + " " + std::string(to_string(buffer.type)) +
                           " elements");
                }
                with_element_type(buffer.type, [&]<class T>(std::type_identity<T>) {
                    std::ranges::copy(values.as<T>(), array.source.as<T>().begin());
                });
            }
        }
        if (is_read_back(buffer)) {
            array.host = host_memory(array.stride * array.instances * element, array.kind, array.host_registration);
        }
        array.first_entry = initial_.buffers_.size();
        for (std::size_t i = 0; i < array.instances; ++i) {
            DeviceBuffers::Entry entry{buffer.name, buffer.type, i, {}, 0, extent, index, array.part};
            if (buffer.pitched) {
                with_element_type(buffer.type, [&]<class T>(std::type_identity<T>) {
                    const PitchedBuffer<T> pitched = device.alloc_pitched<T>(extent.width, extent.height, extent.depth);
                    entry.buffer = pitched.raw();
                    entry.pitch = pitched.pitch();
                });
            } else if (mapped) {
                entry.buffer = (is_drawn(buffer) ? array.source : array.host).device_buffer();
            } else {
                entry.buffer = device.alloc_bytes(array.stride * element);
            }
            initial_.buffers_.push_back(std::move(entry));
        }
        return array;
    }

    /// Whether an output's instance is judged by the check pass: read from a buffer that starts
    /// poisoned whole (an output's own, or a scratch buffer it was swapped with), not one that starts
    /// with values (updated in place, or an input's).
    bool is_judged(const Array& array, std::size_t instance) const
    {
        const BufferSpec::Role role = arrays_[current(array, instance).origin].spec->role;
        return role == BufferSpec::Role::output || role == BufferSpec::Role::scratch;
    }

    /// What every rank gathered of its outputs (outputs()' order: each read-back array's instances,
    /// each its owned elements), walked in the whole outputs' order: f(array, instance, rank, at,
    /// count) for each block that goes into the whole (each rank's of a split array, rank 0's of one
    /// every rank holds), `at` where it starts in that rank's own elements.
    template <class F> void each_gathered_block(F&& f) const
    {
        std::vector<std::size_t> read(static_cast<std::size_t>(ranks_.size()), 0);
        for (const auto& array : arrays_) {
            if (!is_read_back(*array.spec)) {
                continue;
            }
            for (std::size_t instance = 0; instance < array.instances; ++instance) {
                for (std::size_t r = 0; r < read.size(); ++r) {
                    const std::size_t count = owned_on(array, static_cast<int>(r)) / array.instances;
                    if (r == 0 || array.spec->split) {
                        f(array, instance, r, read[r], count);
                    }
                    read[r] += count;
                }
            }
        }
    }

    /// Elements of `array` that rank `rank` owns: its block's, or the whole of one every rank holds.
    std::size_t owned_on(const Array& array, int rank) const
    {
        if (!array.spec->split) {
            return array.global * array.instances;
        }
        return part_of(array.part.total_rows, array.part.row, 0, rank, ranks_.size()).rows * array.part.row;
    }

    /// The buffer the array's name stands for now (swaps exchange them), of that instance.
    const DeviceBuffers::Entry& current(const Array& array, std::size_t instance) const
    {
        return buffers_.find(array.spec->name, array.spec->type, instance);
    }

    /// The array's own device buffers, whatever name they stand for now: its instances, made
    /// one after another from `first_entry`.
    std::span<const DeviceBuffers::Entry> own(const Array& array) const
    {
        return std::span<const DeviceBuffers::Entry>(initial_.buffers_).subspan(array.first_entry, array.instances);
    }

    static Sample standard(Pass& pass)
    {
        Queue& queue = pass.queue();
        pass.copy_in(queue);
        pass.mark(Phase::h2d);
        pass.space();
        pass.launch(queue);
        pass.mark(Phase::kernel);
        pass.copy_out(queue);
        pass.mark(Phase::d2h);
        return pass.sample();
    }

    /// Outputs and scratch whole (a pitched one's padding included), every other flat buffer past
    /// its end, and the host memory outputs are read to, filled with the pass's poison; waited for.
    void poison_buffers(Queue& queue, bool check_pass, bool outputs_only)
    {
        for (const auto& array : arrays_) {
            const BufferSpec::Role role = array.spec->role;
            if (outputs_only && role != BufferSpec::Role::output) {
                continue;
            }
            with_element_type(array.spec->type, [&]<class T>(std::type_identity<T>) {
                const T value = check_pass ? check_poison<T>() : workload::poison<T>();
                const bool whole = role == BufferSpec::Role::output || role == BufferSpec::Role::scratch;
                if (array.host.data() != nullptr) {
                    std::ranges::fill(array.host.as<T>(), value);
                }
                if (array.kind == HostMemoryKind::mapped) {
                    if (array.source.data() != nullptr) {
                        std::ranges::fill(array.source.as<T>().subspan(array.size), value);
                    }
                    return;
                }
                for (const auto& entry : own(array)) {
                    if (entry.pitch != 0) {
                        if (whole) {
                            queue.fill_bytes(entry.buffer, 0, entry.buffer.bytes(), &value, sizeof value);
                        }
                    } else {
                        const std::size_t from = whole ? 0 : array.size;
                        if (from < array.stride) {
                            queue.fill(BufferView<T>{entry.buffer, from, array.stride - from}, value);
                        }
                    }
                }
            });
        }
        queue.finish();
    }

    /// Enqueues on `queue` the copies in (`in`) or out of the array, every instance or that one.
    /// Mapped memory is the device's buffer: nothing to copy.
    void copy(Queue& queue, const Array& array, bool in, std::optional<std::size_t> instance) const
    {
        if (array.kind == HostMemoryKind::mapped) {
            return;
        }
        const std::size_t element = element_size(array.spec->type);
        for (std::size_t i = 0; i < array.instances; ++i) {
            if (instance && *instance != i) {
                continue;
            }
            const DeviceBuffers::Entry& entry = current(array, i);
            with_element_type(array.spec->type, [&]<class T>(std::type_identity<T>) {
                if (entry.pitch != 0) {
                    const PitchedBuffer<T> pitched(entry.buffer, entry.pitch, entry.extent.width, entry.extent.height,
                                                   entry.extent.depth);
                    if (in) {
                        queue.write(pitched, std::span<const T>(array.source.as<const T>().first(array.size)));
                    } else {
                        queue.read(array.host.as<T>().first(array.size), pitched);
                    }
                } else if (in) {
                    queue.write_bytes(entry.buffer, 0,
                                      array.source.as<const std::byte>().data() +
                                          (i * array.global + array.source_offset) * element,
                                      array.size * element);
                } else {
                    // With the sentinels, which outputs() then checks.
                    queue.read_bytes(array.host.as<std::byte>().data() + i * array.stride * element, entry.buffer, 0,
                                     array.stride * element);
                }
            });
        }
    }

    /// Copies in (or out) of every array the pass moves that way, or of the one named.
    void copy_all(Queue& queue, bool in, std::string_view name, std::optional<std::size_t> instance) const
    {
        bool found = name.empty();
        for (const auto& array : arrays_) {
            const bool moved = in ? is_drawn(*array.spec) && !array.spec->resident : is_read_back(*array.spec);
            if (!name.empty() && array.spec->name != name) {
                continue;
            }
            found = true;
            if (!moved && name.empty()) {
                continue;
            }
            if (!moved) {
                throw InvalidArgument("duet", "workload::Pass",
                                      "'" + array.spec->name + "' is not copied " + (in ? "in" : "out") + " by a pass");
            }
            copy(queue, array, in, instance);
        }
        if (!found) {
            throw NotFound("duet", "workload::Pass", "no array '" + std::string(name) + "'");
        }
    }

    /// f(array, instance, host) for each instance of each output in the spec's order, `host` what
    /// was read back, sentinels included, as the array's element type.
    template <class F> void each_output(F&& f) const
    {
        for (const auto& array : arrays_) {
            if (!is_read_back(*array.spec)) {
                continue;
            }
            with_element_type(array.spec->type, [&]<class T>(std::type_identity<T>) {
                const auto host = array.host.as<const T>();
                for (std::size_t i = 0; i < array.instances; ++i) {
                    f.template operator()<T>(array, i, host.subspan(i * array.stride, array.stride));
                }
            });
        }
    }

    /// A pitched output's rows must end at the width: the padding after each still holds the
    /// pass's poison. Nothing for a flat buffer.
    template <class T>
    static void check_padding(Queue& queue, const DeviceBuffers::Entry& entry, const std::string& what, bool check_pass)
    {
        if (entry.pitch == 0) {
            return;
        }
        std::vector<T> pitched(entry.buffer.bytes() / sizeof(T));
        queue.read_bytes(pitched.data(), entry.buffer, 0, pitched.size() * sizeof(T));
        queue.finish();
        const std::size_t row_elements = entry.pitch / sizeof(T);
        const std::size_t width = entry.extent.width;
        for (std::size_t row = 0; row < entry.extent.height * entry.extent.depth; ++row) {
            check_sentinels(std::span<const T>(pitched).subspan(row * row_elements + width, row_elements - width),
                            "row " + std::to_string(row) + " of " + what, check_pass ? check_poison<T>() : poison<T>());
        }
    }

    /// The outputs' one element type; InvalidArgument naming two that differ.
    ElementType output_type() const
    {
        const BufferSpec* first = nullptr;
        for (const auto& buffer : declared_) {
            if (!is_read_back(buffer)) {
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
    const Prepared& prepared_;
    const Spacer& spacer_;
    std::vector<BufferSpec> declared_; ///< the run's arrays
    ElementType output_type_;
    std::vector<Array> arrays_;
    Communicator& ranks_;
    std::vector<ExchangeRecord> exchanges_; ///< the pass's, in order (several ranks only)
    ExchangeLog exchange_log_;
    DeviceBuffers initial_; ///< each name on its own buffers, as every pass starts
    DeviceBuffers buffers_; ///< as the pass's swaps leave them
};

// ---- Pass and Finish ----

Pass::Pass(Runner& runner, Queue& queue, DeviceBuffers& buffers, const Launch& launch, const Spacer& spacer,
           bool check_pass)
    : runner_(&runner), queue_(&queue), buffers_(&buffers), launch_(&launch), spacer_(&spacer), check_pass_(check_pass),
      timer_(queue)
{
}

void Pass::launch(Queue& queue)
{
    report_ = (*launch_)(queue, *buffers_);
}

void Pass::copy_in(Queue& queue, std::string_view name, std::optional<std::size_t> instance) const
{
    runner_->copy_all(queue, true, name, instance);
}

void Pass::copy_out(Queue& queue, std::string_view name, std::optional<std::size_t> instance) const
{
    runner_->copy_all(queue, false, name, instance);
}

std::span<std::byte> Pass::host(std::string_view name, std::size_t instance) const
{
    for (const auto& array : runner_->arrays_) {
        if (array.spec->name == name && instance < array.instances) {
            const std::size_t element = element_size(array.spec->type);
            const bool drawn = Runner::is_drawn(*array.spec);
            const HostBuffer& memory = drawn ? array.source : array.host;
            const std::size_t first = drawn ? instance * array.global + array.source_offset : instance * array.stride;
            if (memory.data() != nullptr) {
                return memory.as<std::byte>().subspan(first * element, array.size * element);
            }
        }
    }
    throw NotFound("duet", "workload::Pass",
                   "no host memory for '" + std::string(name) + "' instance " + std::to_string(instance));
}

void Pass::poison_outputs() const
{
    runner_->poison_buffers(*queue_, check_pass_, true);
}

void Pass::mark(Phase phase)
{
    timer_.mark(phase);
}

void Pass::mark(const std::string& extra_phase)
{
    timer_.mark(extra_phase);
}

void Pass::space()
{
    runner_->start_together(*queue_);
    timer_.space(*spacer_);
}

Sample Pass::sample()
{
    return timer_.sample();
}

void Finish::widen(double value, std::string reason)
{
    if (value > result.tolerance) {
        result.tolerance = value;
        result.tolerance_reason = std::move(reason);
    }
}

std::pair<std::vector<Sample>, Values> Finish::repeat(const Schedule& schedule)
{
    std::vector<Sample> samples = workload::repeat(
        runner_->request_.timing, [&] { return runner_->pass(queue, schedule, false); }, runner_->agreed_ms());
    return {std::move(samples), runner_->outputs(queue, false)};
}

// ---- The Spec as a Workload ----

SpecWorkload::SpecWorkload(Spec spec) : spec_(std::move(spec)) {}

Footprint SpecWorkload::footprint(const RunRequest& request) const
{
    // Saturating, so that sizes too large for any machine (a manifest's, from its expressions)
    // cannot wrap to a sum that fits.
    using detail::saturating_add;
    using detail::saturating_multiply;
    const Settings& settings = request.settings;
    Footprint footprint;
    footprint.device_bytes = Spacer::bytes(request.device);
    footprint.largest_buffer = footprint.device_bytes;
    // Rows padded as the backends pad them: to the device's alignment, and cuMemAllocPitch's 512
    // bytes, whichever is larger.
    const std::uint64_t alignment = std::max<std::uint64_t>(request.device.properties().base_address_alignment, 512);
    for (const auto& buffer : declared(spec_, settings, request.variant)) {
        const std::uint64_t element = element_size(buffer.type);
        const std::uint64_t instances = buffer.instances ? buffer.instances(settings) : 1;
        const bool mapped = buffer.host_memory && buffer.host_memory(settings) == HostMemoryKind::mapped;
        std::uint64_t size = 0, device = 0;
        if (buffer.pitched) {
            const Extent3 extent = buffer.pitched(settings);
            size = extent.count();
            device = saturating_multiply(
                saturating_multiply((extent.width * element + alignment - 1) / alignment * alignment, extent.height),
                extent.depth);
        } else {
            size = buffer.size(settings);
            // A split array's device buffer holds this rank's block and halos (the drawn values and the
            // results read back stay whole-sized on the host, where the reference needs them).
            std::uint64_t local = size;
            if (buffer.split && request.communicator != nullptr) {
                const std::size_t row = std::max<std::size_t>(buffer.split->row(settings), 1);
                local = part_of(size / row, row, buffer.split->halo, request.communicator->rank(),
                                request.communicator->size())
                            .local_rows() *
                        row;
            }
            device = saturating_multiply(saturating_add(local, buffer.sentinels ? sentinel_elements : 0), element);
        }
        const std::uint64_t read_back = saturating_multiply(
            saturating_multiply(buffer.pitched ? size : saturating_add(size, sentinel_elements), element), instances);
        if (!mapped) {
            footprint.device_bytes = saturating_add(footprint.device_bytes, saturating_multiply(device, instances));
            footprint.largest_buffer = std::max(footprint.largest_buffer, device);
        }
        // Drawn: the values and their host buffer; read back: the host buffer, the result and the
        // reference's.
        const std::uint64_t drawn = saturating_multiply(saturating_multiply(size, element), instances);
        switch (buffer.role) {
        case BufferSpec::Role::input:
            footprint.host_bytes = saturating_add(footprint.host_bytes, saturating_multiply(2, drawn));
            break;
        case BufferSpec::Role::output:
            footprint.host_bytes = saturating_add(footprint.host_bytes, saturating_multiply(3, read_back));
            break;
        case BufferSpec::Role::in_out:
            footprint.host_bytes = saturating_add(
                footprint.host_bytes, saturating_add(saturating_multiply(2, drawn), saturating_multiply(3, read_back)));
            break;
        case BufferSpec::Role::scratch:
            break;
        }
    }
    if (spec_.extra_device_bytes) {
        const std::uint64_t extra = spec_.extra_device_bytes(settings);
        footprint.device_bytes = saturating_add(footprint.device_bytes, extra);
        footprint.largest_buffer =
            std::max(footprint.largest_buffer,
                     spec_.extra_largest_allocation ? spec_.extra_largest_allocation(settings) : extra);
    }
    if (spec_.figures_device_bytes && (request.communicator == nullptr || request.communicator->size() == 1)) {
        const std::uint64_t figures = spec_.figures_device_bytes(settings);
        footprint.device_bytes = saturating_add(footprint.device_bytes, figures);
        footprint.largest_buffer = std::max(footprint.largest_buffer, figures);
    }
    if (spec_.extra_host_bytes) {
        footprint.host_bytes = saturating_add(footprint.host_bytes, spec_.extra_host_bytes(settings));
    }
    return footprint;
}

Measurement SpecWorkload::run(const RunRequest& request) const
{
    // First, so that what the device cannot do is refused before anything is drawn or allocated.
    // On a distributed run every rank must go on to the passes, whose exchanges all ranks join, or
    // none: the ranks agree on that once all of them have prepared and allocated.
    std::optional<Prepared> prepared;
    std::optional<Spacer> spacer;
    std::optional<Runner> runner;
    const auto start = [&] {
        prepared.emplace(spec_.prepare(request.device, request.settings, request.variant));
        spacer.emplace(request.device);
        runner.emplace(spec_, request, *prepared, *spacer);
    };
    Communicator& ranks = request.communicator != nullptr ? *request.communicator : one_rank();
    if (ranks.size() == 1) {
        start();
        return run(request, *prepared, *runner);
    }
    const std::string what = spec_.info.name + "/" + request.variant;
    agree_to_run(ranks, spec_.info.name, request, [&] {
        // The limits each rank checks for itself, inside the agreement, so that a rank refused does
        // not leave the others waiting in this run's exchanges.
        check_fits(footprint(request), request.device, what);
        start();
    });
    // Past the agreement every rank is in the passes' exchanges: one that fails alone ends them all.
    try {
        return run(request, *prepared, *runner);
    } catch (const std::exception& error) {
        ranks.abort(what + " failed on " + request.device.selector() + ": " + error.what());
    } catch (...) {
        ranks.abort(what + " failed on " + request.device.selector() + ": " +
                    foreign_exception_text(spec_.info.name, "run"));
    }
    std::abort(); // not reached: ranks.abort ends the process (GCC does not see [[noreturn]] through the virtual call)
}

Measurement SpecWorkload::run(const RunRequest& request, const Prepared& prepared, Runner& runner) const
{
    Queue queue = request.device.create_queue();
    Measurement result;
    Report report;
    result.samples = repeat(
        request.timing, [&] { return runner.pass(queue, prepared.schedule, false, &report); }, runner.agreed_ms());
    result.set_medians();
    if (spec_.bytes) {
        result.bytes = spec_.bytes(request.settings);
    }
    if (spec_.flops) {
        result.flops = spec_.flops(request.settings);
    }
    result.unit = spec_.unit;
    const Tolerance tolerance = spec_.tolerance(request.settings);
    result.tolerance = tolerance.value;
    result.tolerance_reason = tolerance.reason;
    const Values owned = runner.outputs(queue, false);
    result.output_shape = runner.output_shape();
    if (request.verify) {
        runner.pass(queue, prepared.schedule, true);
        runner.judge_writes(queue, owned, result.writes);
        runner.gather_writes(result.writes);
    }
    // On a distributed run, rank 0 holds the whole outputs and judges them; each rank has checked
    // its own sentinels and writes above.
    result.output = runner.gather(owned);
    result.extras = report;
    result.exchanges = runner.exchanges();
    // The figures are one device's (a kernel beside that device's copy): a distributed run's are
    // its phases and their scaling.
    if (spec_.figures && runner.ranks().size() == 1) {
        for (auto& figure :
             spec_.figures(queue, runner.buffers(), prepared.launch, request.settings, request.variant)) {
            result.extras.push_back(std::move(figure));
        }
    }
    // Without a reference (info.has_reference false) the outputs are compared across devices
    // only; the check pass above still judges what was written.
    const bool compared = request.verify && spec_.info.has_reference && runner.ranks().rank() == 0;
    Values expected;
    if (compared) {
        expected = runner.reference(result.reference_ms);
    }
    Finish finish(runner, queue, runner.buffers(), request.settings, request.variant, result, report,
                  compared ? &expected : nullptr);
    if (prepared.finish) {
        prepared.finish(finish);
    }
    if (compared) {
        runner.compare_outputs(result, expected);
        if (finish.own_error_) {
            result.max_error = *finish.own_error_;
        }
        result.verified = true;
    }
    return result;
}

} // namespace duet::workload
