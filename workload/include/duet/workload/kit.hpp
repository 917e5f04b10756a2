// The workload kit. A workload states what it is (a Spec: parameters, rules, buffers, launch step,
// CPU reference, work, tolerance, test cases) and the runner does the rest: inputs drawn from the
// seed, outputs poisoned with sentinels past their end, the timed pass repeated until its median
// settles (workload::Timing), each phase on the device clock, and the check against the reference
// element by element. Workloads with a schedule of their own (matmul's overlapped batches, the
// bandwidth legs, pitched copies) write run() with the same pieces, declared below the Spec.
#pragma once

#include <duet/duet.hpp>
#include <duet/workload.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace duet::workload {

// ---- Declaring parameters ----

/// An integer parameter; `variants` it applies to (empty: all).
WorkloadParameter integer_parameter(std::string name, std::int64_t default_value, std::int64_t min, std::int64_t max,
                                    std::string help, std::vector<std::string> variants = {});
/// A real parameter.
WorkloadParameter real_parameter(std::string name, double default_value, double min, double max, std::string help,
                                 std::vector<std::string> variants = {});
/// A choice parameter; the first choice is the default.
WorkloadParameter choice_parameter(std::string name, std::vector<std::string> choices, std::string help,
                                   std::vector<std::string> variants = {});

// ---- The declarative spec ----

/// One array of the workload, on the device and on the host.
struct BufferSpec {
    enum class Role { input, output };
    std::string name;
    Role role = Role::input;
    ElementType type = ElementType::f32;
    /// Elements, from the settings.
    std::function<std::size_t(const Settings&)> size;
    /// How an input's values are drawn from its seed, `type` elements: random_values unless the
    /// spec says (a workload whose inputs must be, say, positive or integral draws its own; never
    /// zeros).
    std::function<Values(std::size_t n, std::uint64_t seed)> draw;
    /// Host memory the array lives in (pageable unless the spec says): for an input of kind
    /// `mapped`, the kernel reads it in place and there is no copy in.
    std::function<HostMemoryKind(const Settings&)> host_memory;
    /// An output's layout, so a disagreement names its row and column.
    std::function<Shape(const Settings&)> shape;
};
/// An input drawn from the run's seed (each input its own stream), by random_values unless its
/// `draw` is set.
BufferSpec input(std::string name, std::function<std::size_t(const Settings&)> size,
                 ElementType type = ElementType::f32);
/// An output, poisoned before each pass, with sentinels past its end that must survive. The
/// outputs of one spec share an element type: they are checked as one array.
BufferSpec output(std::string name, std::function<std::size_t(const Settings&)> size,
                  ElementType type = ElementType::f32);

/// The run's device buffers by name, as the launch step gets them. Each output is allocated
/// `sentinel_elements` longer than its size; launch steps pass the sizes from the settings.
class DeviceBuffers {
public:
    /// The buffer of that name; InvalidArgument when it holds another element type than T.
    template <class T = float> Buffer<T> get(std::string_view name) const
    {
        return Buffer<T>(find(name, element_type_of<T>));
    }

private:
    friend class Runner;
    const RawBuffer& find(std::string_view name, ElementType type) const;
    struct Entry {
        std::string name;
        ElementType type;
        RawBuffer buffer;
    };
    std::vector<Entry> buffers_;
};

/// The run's host arrays by name, as the CPU reference gets them: the inputs as drawn, the
/// outputs to fill. InvalidArgument for a name not declared, or another element type than T.
class HostArrays {
public:
    template <class T = float> std::span<const T> in(std::string_view name) const
    {
        const auto [data, size] = find(name, element_type_of<T>);
        return {static_cast<const T*>(data), size};
    }
    template <class T = float> std::span<T> out(std::string_view name) const
    {
        const auto [data, size] = find(name, element_type_of<T>);
        return {static_cast<T*>(data), size};
    }

private:
    friend class Runner;
    std::pair<void*, std::size_t> find(std::string_view name, ElementType type) const;
    struct Entry {
        std::string name;
        ElementType type;
        void* data;
        std::size_t size;
    };
    std::vector<Entry> arrays_;
};

/// One timed pass's kernel work, enqueued on `queue`; returns without waiting.
using Launch = std::function<void(Queue& queue, const DeviceBuffers& buffers)>;

struct Tolerance {
    double value = 0; ///< the largest relative error allowed (absolute below 1)
    std::string reason;
};

/// Figures of the workload's own (Measurement::extras), measured after the timed passes on the
/// same queue and buffers: e.g. the kernel's bandwidth against a device-to-device copy.
using Figures = std::function<std::vector<std::pair<std::string, double>>(
    Queue& queue, const DeviceBuffers& buffers, const Launch& launch, const Settings& settings)>;

struct Spec {
    WorkloadInfo info; ///< name, description, variants, parameters, rules, test cases
    std::vector<BufferSpec> buffers;
    /// Once per run, before anything is timed or allocated: builds the variant's kernels and
    /// returns its launch step. What the device cannot do is refused here: Unsupported naming the
    /// limit.
    std::function<Launch(const Device& device, const Settings& settings, const std::string& variant)> prepare;
    /// Fills the outputs from the inputs on the CPU.
    std::function<void(const Settings& settings, const HostArrays& arrays)> reference;
    /// What one launch accomplishes, for the rate: bytes moved or floating-point operations.
    std::function<double(const Settings& settings)> work;
    Measurement::Unit unit = Measurement::Unit::bytes;
    std::function<Tolerance(const Settings& settings)> tolerance;
    Figures figures; ///< optional
    /// Device memory the workload takes beyond its buffers (the figures' copy destination, a
    /// reduction's scratch), counted in its footprint as one more allocation; optional.
    std::function<std::uint64_t(const Settings& settings)> extra_device_bytes;
};

/// The runner: a Workload made of a Spec.
class SpecWorkload : public Workload {
public:
    explicit SpecWorkload(Spec spec);
    WorkloadInfo info() const override { return spec_.info; }
    /// Every buffer on the device (outputs with their sentinels); on the host the inputs, the
    /// outputs, their host buffers and the reference's.
    Footprint footprint(const RunRequest& request) const override;
    Measurement run(const RunRequest& request) const override;

private:
    Spec spec_;
};

// ---- The pieces, for workloads with a schedule of their own ----

/// Floats in ±[0.5, 2): no zeros, which would hide unwritten outputs, and no denormals.
std::vector<float> random_floats(std::size_t n, std::uint64_t seed);
/// `n` values of `type` from `seed`: floats as random_floats, doubles likewise in ±[0.5, 2),
/// integers in ±[1, 1000] (unsigned: [1, 1000]; uint8: [1, 255]).
Values random_values(ElementType type, std::size_t n, std::uint64_t seed);

/// The value outputs are filled with before a pass, so an element nobody wrote fails the check: a
/// quiet NaN with a payload of its own, told apart from a NaN a kernel computes; for integers the
/// most negative value (unsigned: the largest). A kernel may compute it all the same (an integer,
/// or `a * x + NaN`, which keeps the payload), so the runners verify with a second pass.
template <class T = float> T poison();

/// What outputs and sentinels hold in the runners' untimed check pass, made when verifying after
/// the timed ones: an element that held poison() after the timed pass and check_poison() after
/// this one was never written, and a sentinel is intact only if it held each. Finite (a NaN
/// propagates through arithmetic), normal, small and of no round pattern, so that adding to it,
/// scaling it or clearing bits of it gives another value.
template <class T = float> T check_poison();

/// Elements past the end of every output the runner allocates, poisoned, checked after each run.
inline constexpr std::size_t sentinel_elements = 1024;

/// Throws Error naming the first element of `tail` that is not `expected` (bit for bit): a kernel
/// wrote past the end of `what`.
template <class T> void check_sentinels(std::span<const T> tail, const std::string& what, T expected = poison<T>());

/// After the untimed check pass, one output, `name`, into `writes`: the sentinels past its end in
/// `read` (what the check pass read back, sentinels included) must hold check_poison<T>()
/// (check_sentinels), and where `judged`, each element that held poison<T>() after the timed pass
/// (`timed`) and check_poison<T>() now was never written; the output starts at `offset` among the
/// `total` elements of all outputs. One that starts with values (updated in place) is not judged:
/// they are not poison. What every runner with a check pass calls, output by output.
template <class T>
void judge_check_pass(const std::string& name, std::span<const T> timed, std::span<const T> read, std::size_t offset,
                      std::size_t total, bool judged, Writes& writes);

/// Device work enqueued just before a timed launch: a kernel that reads a scratch buffer of twice
/// the device's last-level cache and writes nothing. The launch is then already queued when the
/// device reaches the kernel phase's start, whatever the host was doing (CUDA's pageable copies
/// return only once their data is staged), and the cache is full of clean lines whatever ran
/// before: dirty lines left by a copy or a fill cost a memory-bound kernel their write-back, more
/// through one API than the other (an H100's 50 us stencil read 0.70-0.85x OpenCL/CUDA without
/// it). Timed as the extra phase "spacer" and left out of the pass's total.
class Spacer {
public:
    explicit Spacer(const Device& device);
    /// Twice the last-level cache (64 MiB on a GPU that does not say), 1 MiB on a CPU device,
    /// and less where the device has little memory.
    static std::uint64_t bytes(const Device& device);
    void enqueue(Queue& queue) const;

private:
    Kernel kernel_;
    Buffer<float> scratch_;
    Buffer<float> sink_;
};

/// Records an event at each phase boundary of one queue; the pass's sample is read once it is done.
class PhaseTimer {
public:
    explicit PhaseTimer(Queue& queue);
    /// Closes the phase that began at the previous mark (or at construction). A phase may be
    /// marked more than once; its times add up.
    void mark(Phase phase);
    /// Closes an extra phase of that name: reported beside h2d, kernel and d2h, never in them.
    void mark(const std::string& extra_phase);
    /// Enqueues the spacer and closes its extra phase: call it just before the launch.
    void space(const Spacer& spacer);
    /// Waits for the queue; each phase's device time, and the total from construction to the
    /// last mark, less the spacer's.
    Sample sample();

private:
    Queue* queue_;
    Event start_;
    struct Mark {
        std::optional<Phase> phase;
        std::string extra;
        Event event;
        bool spacer = false; ///< left out of the total
    };
    std::vector<Mark> marks_;
};

/// Device time from the earliest of `starts` to the latest of `ends`: events of one device, on
/// any of its queues (they share its clock), all complete. For work spread over several queues.
double span_ms(std::span<const Event> starts, std::span<const Event> ends);

/// Runs `pass` as `timing` says: its warm-up passes, then timed ones until the rule is met. The
/// samples come back in order. Where the timing carries a turn, the turn is handed on before each
/// pass (turns.hpp).
std::vector<Sample> repeat(const Timing& timing, const std::function<Sample()>& pass);

/// Milliseconds of host time `body` takes: the CPU reference's clock.
template <class Body> double host_ms(Body&& body)
{
    const auto start = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Device time of `body`'s work on `queue`, the best of `repeats` runs: for figures that should
/// not carry one-time costs (first touch of pages, a cold cache), such as a reference copy rate.
double best_device_ms(Queue& queue, int repeats, const std::function<void()>& body);

/// A memory-bound kernel beside the device's own copy, both the best of three runs after the timed
/// passes (so neither carries the first launch's one-time costs): `kernel` enqueues the kernel,
/// which moves `kernel_bytes`; the copy takes `copy_bytes` of `source` to a buffer allocated here.
/// kernel_best_gbps, d2d_copy_gbps (the copy's bytes read and written) and kernel_over_copy, the
/// ratio of the two rates.
std::vector<std::pair<std::string, double>> copy_yardstick(Queue& queue, double kernel_bytes,
                                                           const std::function<void()>& kernel, const RawBuffer& source,
                                                           std::size_t copy_bytes);

/// A Spec's figures as copy_yardstick's, the kernel's bytes from spec.work (set it first) and the
/// copy `copy_bytes` of the buffer named `source`; the copy's destination counted in the spec's
/// extra_device_bytes, with `other_bytes` beside it where given (a reduction's scratch).
void copy_yardstick_figures(Spec& spec, std::string source, std::function<std::size_t(const Settings&)> copy_bytes,
                            std::function<std::uint64_t(const Settings&)> other_bytes = {});

/// The host memory kind named as duet::to_string names it ("pinned", "write_combined", ...);
/// another name throws InvalidArgument listing the kinds.
HostMemoryKind host_memory_kind(const std::string& name);

/// When the request asks for verification: runs `reference` into an array of result.output's
/// type and size (each element poison until written), timed, and compares result.output with it
/// element by element (result.agreement, result.max_error), leaving out the elements
/// result.writes marks never written. Needs result.tolerance set.
void check_against_reference(const RunRequest& request, Measurement& result,
                             const std::function<void(Values& expected)>& reference);

} // namespace duet::workload

/// Defines the entry symbol of a workload plugin made of a Spec: `spec_function` returns it.
#define DUET_EXPORT_WORKLOAD_SPEC(spec_function)                                                                       \
    namespace {                                                                                                        \
    struct DuetSpecWorkload final : duet::workload::SpecWorkload {                                                     \
        DuetSpecWorkload() : SpecWorkload(spec_function()) {}                                                          \
    };                                                                                                                 \
    }                                                                                                                  \
    DUET_EXPORT_WORKLOAD(DuetSpecWorkload)
