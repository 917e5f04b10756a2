// The workload kit. A workload states what it is (a Spec: parameters, rules, buffers, launch step,
// CPU reference, work, tolerance, test cases) and the runner does the rest: inputs drawn from the
// seed, outputs poisoned with sentinels past their end, the timed pass repeated until its median
// settles (workload::Timing), each phase on the device clock, and the check against the reference
// element by element. Every workload is a Spec: pitched arrays, arrays updated in place, device
// scratch and batches of instances are declared buffers; a run with state of its own (a solver's
// convergence) or a schedule of its own (batches on several queues) brings hooks from its prepare
// step (Prepared), which the runner calls at their place in the one pass it owns.
#pragma once

#include <duet/duet.hpp>
#include <duet/workload.hpp>
#include <duet/workload/communicator.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
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

struct Tolerance {
    double value = 0; ///< the largest relative error allowed (absolute below 1)
    std::string reason;
};

/// A pitched array's extent: `width` elements a row, `height` rows a slice, `depth` slices.
struct Extent3 {
    std::size_t width = 0;
    std::size_t height = 1;
    std::size_t depth = 1;

    std::size_t count() const { return width * height * depth; }
};

/// How an array is spread over the ranks of a distributed run (RunRequest::communicator): in blocks
/// of whole rows, rank r of n owning rows [rows·r/n, rows·(r+1)/n) and holding `halo` rows more on
/// each side that has a neighbour, for the exchanges to fill (a stencil's). Its `size` is the whole
/// array's; each rank's device buffer holds its block and halos, drawn from the same seed as on one
/// rank, and its owned rows are what it copies out and what is checked.
struct Split {
    /// Elements a row; the array's size must be a whole number of rows.
    std::function<std::size_t(const Settings&)> row;
    std::size_t halo = 0;
};

/// One rank's part of an array, as the launch step sizes its work and exchanges by it: a split
/// array's block, or for one every rank holds whole, a single row of the whole array.
struct Part {
    std::size_t row = 0;        ///< elements a row
    std::size_t first_row = 0;  ///< the first row this rank owns, in the whole array
    std::size_t rows = 0;       ///< rows it owns
    std::size_t halo_low = 0;   ///< rows before them in its buffer, a neighbour's
    std::size_t halo_high = 0;  ///< rows after them
    std::size_t total_rows = 0; ///< of the whole array
    /// Rows in this rank's buffer: halos and owned rows.
    std::size_t local_rows() const { return halo_low + rows + halo_high; }
};

/// Rank `rank` of `ranks`' part of an array of `total_rows` rows of `row` elements split with
/// `halo` (Split): the first `total_rows % ranks` ranks own one row more than the rest, so that no
/// two differ by more than one. The runner splits every array by it; a workload that lays an array
/// out by the ranks' blocks (jacobi's Aᵀ, block by block) calls it too.
Part part_of(std::size_t total_rows, std::size_t row, std::size_t halo, int rank, int ranks);

/// One array of the workload, on the device and on the host.
struct BufferSpec {
    enum class Role {
        input,  ///< drawn from the seed, copied in each pass
        output, ///< poisoned before each pass, copied out, checked against the reference
        /// Drawn, copied in, updated in place by the kernels, copied out and checked: its elements
        /// start with values, so only its sentinels tell what was written.
        in_out,
        /// Device only, for the launch step's working memory (ping-pong grids, partial results):
        /// poisoned before each pass, never copied, never checked.
        scratch,
    };
    std::string name;
    Role role = Role::input;
    ElementType type = ElementType::f32;
    /// Elements, from the settings (of one instance, where there are several).
    std::function<std::size_t(const Settings&)> size;
    /// How an input's values are drawn from its seed, `type` elements: random_values unless the
    /// spec says (a workload whose inputs must be, say, positive or integral draws its own; never
    /// zeros). An in_out's starting values likewise.
    std::function<Values(std::size_t n, std::uint64_t seed)> draw;
    /// Host memory the array lives in (pageable unless the spec says; "registered" is pageable
    /// memory page-locked afterwards). A mapped input is read by the kernel in place and a mapped
    /// output written in place: neither is copied.
    std::function<HostMemoryKind(const Settings&)> host_memory;
    /// An output's layout, so a disagreement names its row and column.
    std::function<Shape(const Settings&)> shape;
    /// Set: the array is pitched on the device (rows padded to the device's pitch, moved by
    /// rectangular copies; DeviceBuffers::pitched), dense on the host; `size` is then the extent's
    /// count. An output's padding is poisoned with it and must survive as its sentinels do.
    std::function<Extent3(const Settings&)> pitched;
    /// Several instances of the array (one per product of a batch), each its own device buffer
    /// (DeviceBuffers::get(name, i)), end to end on the host; one unless the spec says.
    std::function<std::size_t(const Settings&)> instances;
    /// Copied in once, before the timed passes, rather than in each (a source that stays on the
    /// device: a device-to-host copy's). Inputs only.
    bool resident = false;
    /// false: an input allocated exactly, without the poisoned sentinels past its end that show a
    /// read beyond it (one a kernel takes as __constant, whose whole buffer must fit the device's
    /// constant memory). Outputs always have them.
    bool sentinels = true;
    /// An output's own tolerance; the outputs of a spec where any has one are judged each against
    /// its own (each other output against the spec's), and the run reports the first that fails.
    std::function<Tolerance(const Settings&)> tolerance;
    /// Set: split over the ranks of a distributed run (flat, one instance, not mapped); unset: every
    /// rank holds the whole array (a replicated vector, a reduction's result).
    std::optional<Split> split;
};
/// An input drawn from the run's seed (each input its own stream), by random_values unless its
/// `draw` is set.
BufferSpec input(std::string name, std::function<std::size_t(const Settings&)> size,
                 ElementType type = ElementType::f32);
/// An output, poisoned before each pass, with sentinels past its end that must survive. The
/// outputs of one spec share an element type: they are checked as one array.
BufferSpec output(std::string name, std::function<std::size_t(const Settings&)> size,
                  ElementType type = ElementType::f32);
/// An array updated in place: drawn, copied in, copied out and checked.
BufferSpec in_out(std::string name, std::function<std::size_t(const Settings&)> size,
                  ElementType type = ElementType::f32);
/// Device-only working memory of the launch step, poisoned before each pass.
BufferSpec scratch(std::string name, std::function<std::size_t(const Settings&)> size,
                   ElementType type = ElementType::f32);

/// The run's device buffers by name, as the launch step gets them. Each flat buffer is allocated
/// `sentinel_elements` longer than its size (a mapped input excepted); launch steps pass the sizes
/// from the settings.
class DeviceBuffers {
public:
    /// Instance `instance` of the flat buffer of that name; InvalidArgument when it holds another
    /// element type than T, is pitched, or has fewer instances.
    template <class T = float> Buffer<T> get(std::string_view name, std::size_t instance = 0) const
    {
        return Buffer<T>(find(name, element_type_of<T>, instance).buffer);
    }
    /// The pitched buffer of that name; InvalidArgument when it is flat or holds another type.
    template <class T = float> PitchedBuffer<T> pitched(std::string_view name) const
    {
        const Entry& entry = find(name, element_type_of<T>, 0);
        if (entry.pitch == 0) {
            throw_not_pitched(name);
        }
        return PitchedBuffer<T>(entry.buffer, entry.pitch, entry.extent.width, entry.extent.height, entry.extent.depth);
    }
    /// Exchanges the buffers two names stand for, as a ping-pong between launches does (the same
    /// type, size and instance count): the output of that name is then read from the other. Each
    /// pass starts with every name on its own buffer.
    void swap(std::string_view first, std::string_view second);

    /// This rank's part of the array of that name (BufferSpec::split); NotFound for a name not declared.
    const Part& part(std::string_view name) const;
    /// The run's ranks (one_rank() unless the run is distributed): the launch step's exchanges go
    /// through it, so the runner times them as the pass's communication.
    Communicator& communicator() const { return *communicator_; }

private:
    friend class Runner;
    struct Entry {
        std::string name;
        ElementType type;
        std::size_t instance = 0;
        RawBuffer buffer;
        std::size_t pitch = 0; ///< bytes a row; 0 for a flat buffer
        Extent3 extent;
        std::size_t origin = 0; ///< the declared array whose buffer this is (swaps exchange it)
        Part part;
    };
    const Entry& find(std::string_view name, ElementType type, std::size_t instance) const;
    [[noreturn]] static void throw_not_pitched(std::string_view name);
    std::vector<Entry> buffers_;
    Communicator* communicator_ = &one_rank();
};

/// The run's host arrays by name, as the CPU reference gets them: the inputs as drawn (every
/// instance end to end), the outputs to fill (an in_out's starting as drawn). InvalidArgument for
/// a name not declared, or another element type than T.
class HostArrays {
public:
    /// The run's seed, which the inputs are drawn from: for a reference that checks a sample of
    /// the outputs drawn from it.
    std::uint64_t seed() const { return seed_; }
    /// The run's ranks (1 unless it is distributed): for inputs laid out by the ranks' blocks
    /// (part_of), which are drawn whole on every rank.
    int ranks() const { return ranks_; }
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
    std::uint64_t seed_ = 0;
    int ranks_ = 1;
};

/// Figures a step reports (Measurement::extras): e.g. the iterations a solve took.
using Report = std::vector<std::pair<std::string, double>>;

/// One timed pass's kernel work, enqueued on `queue`; returns without waiting, or, where it must
/// wait (an iteration that reads its convergence back), once done. It may report figures (the
/// iterations it took): those of the last timed pass go to the run's extras. Made from any callable
/// taking (Queue&, DeviceBuffers&) and returning nothing or a Report.
class Launch {
public:
    Launch() = default;
    template <class F>
    requires(!std::same_as<F, Launch> && std::invocable<const F&, Queue&, DeviceBuffers&>)
        Launch(F step) // NOLINT(google-explicit-constructor): a lambda is a launch step
    {
        if constexpr (std::is_void_v<std::invoke_result_t<const F&, Queue&, DeviceBuffers&>>) {
            step_ = [step = std::move(step)](Queue& queue, DeviceBuffers& buffers) {
                step(queue, buffers);
                return Report{};
            };
        } else {
            step_ = std::move(step);
        }
    }
    Report operator()(Queue& queue, DeviceBuffers& buffers) const { return step_(queue, buffers); }
    explicit operator bool() const { return static_cast<bool>(step_); }

private:
    std::function<Report(Queue&, DeviceBuffers&)> step_;
};

class Pass;
class Finish;
class Runner;

/// One pass on a schedule of the workload's own (matmul's overlapped and fork-join batches, the
/// bandwidth legs on queues of their own): moves the inputs in, launches and moves the outputs
/// out with the pass's pieces, marking each phase, and returns the pass's sample. The runner
/// poisons the outputs before it and checks them after, as for the standard pass.
using Schedule = std::function<Sample(Pass& pass)>;

/// What a spec's prepare step makes for one run: the launch step, and where the run needs state
/// of its own (a solver, its convergence), the hooks that read it.
struct Prepared {
    Prepared() = default;
    Prepared(Launch step) : launch(std::move(step)) {} // NOLINT(google-explicit-constructor)
    template <class F>
    requires(!std::same_as<F, Launch> && !std::same_as<F, Prepared> && std::constructible_from<Launch, F>)
        Prepared(F step)
        : launch(std::move(step)) // NOLINT(google-explicit-constructor)
    {
    }

    Launch launch;
    /// Optional: the pass, where it is not the standard one (copy in, spacer, launch, copy out).
    Schedule schedule;
    /// Optional: draws the inputs (and an in_out's starting values) in place of their `draw`s, all
    /// at once from the run's seed (HostArrays::seed), into the arrays the spec declares
    /// (HostArrays::out, each of its declared size): inputs that depend on one another (a system
    /// and its right-hand side) or on the variant (a matrix stored transposed). It may keep what it
    /// drew for the other hooks.
    std::function<void(const HostArrays& inputs)> draw;
    /// Optional: the reference for this run, in place of Spec::reference: one that needs the
    /// device (a reference kernel pair) or leaves state for `finish` (its own convergence).
    std::function<void(const HostArrays& arrays)> reference;
    /// Optional: after the timed passes, the check pass, the figures and the reference, before the
    /// comparison: adds the run's extras, sets the work done (iterations), widens the tolerance
    /// with its reason, or throws (a solve that diverged). Finish says what it can do.
    std::function<void(Finish& finish)> finish;
};

/// Figures of the workload's own (Measurement::extras), measured after the timed passes on the
/// same queue and buffers: e.g. the kernel's bandwidth against a device-to-device copy.
using Figures = std::function<Report(Queue& queue, DeviceBuffers& buffers, const Launch& launch,
                                     const Settings& settings, const std::string& variant)>;

struct Spec {
    WorkloadInfo info; ///< name, description, variants, parameters, rules, test cases
    std::vector<BufferSpec> buffers;
    /// Optional, in place of `buffers`: the arrays of a run, where the variant shapes them (a 2D
    /// variant's single slice) or the settings choose their element type.
    std::function<std::vector<BufferSpec>(const Settings& settings, const std::string& variant)> buffers_for;
    /// Once per run, before anything is timed or allocated: builds the variant's kernels and
    /// returns its launch step (and its hooks, where it has any). What the device cannot do is
    /// refused here: Unsupported naming the limit.
    std::function<Prepared(const Device& device, const Settings& settings, const std::string& variant)> prepare;
    /// Fills the outputs from the inputs on the CPU (unless the prepared run brings its own).
    /// Where info.has_reference is false there is none: the outputs are compared across devices
    /// only (Measurement::verified stays false), and the check pass still judges what was written.
    std::function<void(const Settings& settings, const HostArrays& arrays)> reference;
    /// What one launch does (Measurement::bytes and flops): the bytes it must move to and from
    /// device memory and the floating-point operations it performs. Either may be left out where
    /// the prepared run's finish sets it (it depends on the variant, or on the run: a solve's
    /// iterations), or where it is not known (then it stays unknown).
    std::function<double(const Settings& settings)> bytes;
    std::function<double(const Settings& settings)> flops;
    /// Which of the two the rate is in.
    Measurement::Unit unit = Measurement::Unit::bytes;
    std::function<Tolerance(const Settings& settings)> tolerance;
    Figures figures; ///< optional
    /// Device memory the prepared run holds beyond the declared buffers (a solver's own vectors, a
    /// reduction's partial results, the figures' copy destination), counted in its footprint;
    /// optional.
    std::function<std::uint64_t(const Settings& settings)> extra_device_bytes;
    /// The largest single allocation among those extra bytes, against the device's largest
    /// allocation; unset, they count as one.
    std::function<std::uint64_t(const Settings& settings)> extra_largest_allocation;
    /// Device memory the figures take (a yardstick copy's destination), one allocation, counted on a
    /// run of one rank only: a distributed run measures no figures (a split array's copy would not
    /// be the device's); optional.
    std::function<std::uint64_t(const Settings& settings)> figures_device_bytes;
    /// Host memory beyond the declared arrays (the reference's own working arrays); optional.
    std::function<std::uint64_t(const Settings& settings)> extra_host_bytes;
};

/// The runner: a Workload made of a Spec.
class SpecWorkload : public Workload {
public:
    explicit SpecWorkload(Spec spec);
    WorkloadInfo info() const override
    {
        WorkloadInfo info = spec_.info;
        info.runs_on_ranks = true;
        return info;
    }
    /// Every buffer on the device (with its sentinels or padding) and the spacer; on the host the
    /// inputs, the outputs, their host buffers and the reference's; and what the spec adds. Sums
    /// saturate: sizes past any machine's never wrap to a footprint that fits.
    Footprint footprint(const RunRequest& request) const override;
    /// On a distributed run (RunRequest::communicator), every rank runs it with its own device: the
    /// ranks agree to start (each prepared and allocated, at the same run), each pass's phases are
    /// the slowest rank's, and rank 0's result holds the whole outputs, judged against the
    /// reference; the other ranks' results are their own parts, unjudged.
    Measurement run(const RunRequest& request) const override;

private:
    Measurement run(const RunRequest& request, const Prepared& prepared, Runner& runner) const;
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

/// Device work enqueued just before a timed launch: a kernel that reads a scratch buffer larger
/// than the device's last-level cache and writes nothing. The launch is then already queued when the
/// device reaches the kernel phase's start, whatever the host was doing (CUDA's pageable copies
/// return only once their data is staged), and the cache is full of clean lines whatever ran
/// before: dirty lines left by a copy or a fill cost a memory-bound kernel their write-back, more
/// through one API than the other (an H100's 50 us stencil read 0.70-0.85x OpenCL/CUDA without
/// it). Timed as the extra phase "spacer" and left out of the pass's total.
class Spacer {
public:
    /// Its kernel's name, by which a launch log tells the spacer's launches from a workload's.
    static constexpr std::string_view kernel_name = "workload_spacer";

    explicit Spacer(const Device& device);
    /// On a GPU twice the last-level cache and at least 256 MiB; 1 MiB on a CPU device; less where
    /// the device has little memory.
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
/// `agree_ms`, where given, replaces each pass's host time by the one every rank of a distributed
/// run counts (the slowest's), so that the time budget stops them all after the same pass.
std::vector<Sample> repeat(const Timing& timing, const std::function<Sample()>& pass,
                           const std::function<double(double)>& agree_ms = {});

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

/// A Spec's figures as copy_yardstick's, the kernel's bytes from spec.bytes (set it first) and the
/// copy `copy_bytes` of the buffer named `source`; the copy's destination counted in the spec's
/// extra_device_bytes, with `other_bytes` beside it where given (a reduction's scratch).
void copy_yardstick_figures(Spec& spec, std::string source, std::function<std::size_t(const Settings&)> copy_bytes,
                            std::function<std::uint64_t(const Settings&)> other_bytes = {});

/// The host memory kind named as duet::to_string names it ("pinned", "write_combined", ...);
/// another name throws InvalidArgument listing the kinds.
HostMemoryKind host_memory_kind(const std::string& name);

// ---- What a spec's hooks get ----

/// One pass as a Schedule runs it: the pieces of the standard pass, on the run's queue or another
/// of the same device. Phases are marked on the run's queue (its PhaseTimer).
class Pass {
public:
    Queue& queue() const { return *queue_; }
    DeviceBuffers& buffers() const { return *buffers_; }
    /// Runs the launch step on `queue` with the pass's buffers; its report is the pass's.
    void launch(Queue& queue);
    /// Enqueues on `queue` the copies in of the inputs (every one, or that named; every instance,
    /// or that one), as the standard pass does. Resident and mapped inputs are not copied.
    void copy_in(Queue& queue, std::string_view name = {}, std::optional<std::size_t> instance = {}) const;
    /// The same for the copies out of the outputs.
    void copy_out(Queue& queue, std::string_view name = {}, std::optional<std::size_t> instance = {}) const;
    /// The host memory of an array's instance, as the copies use it (for a raw API's copy): an
    /// input's drawn values, an output's room for what is read back.
    std::span<std::byte> host(std::string_view name, std::size_t instance = 0) const;
    /// Poisons the outputs again (untimed, waited for): before a second run within one pass.
    void poison_outputs() const;
    /// Closes the phase begun at the previous mark (PhaseTimer::mark) on the run's queue.
    void mark(Phase phase);
    void mark(const std::string& extra_phase);
    /// Enqueues the spacer on the run's queue: just before a launch. On several ranks it first
    /// waits for the queue and for every rank, so that the ranks start the launch together.
    void space();
    /// Waits for the run's queue: the sample of the phases marked.
    Sample sample();

private:
    friend class Runner;
    Pass(Runner& runner, Queue& queue, DeviceBuffers& buffers, const Launch& launch, const Spacer& spacer,
         bool check_pass);
    Runner* runner_;
    Queue* queue_;
    DeviceBuffers* buffers_;
    const Launch* launch_;
    const Spacer* spacer_;
    bool check_pass_;
    Report report_;
    PhaseTimer timer_;
};

/// What a Prepared::finish hook sees of a run once its passes and the reference are done.
class Finish {
public:
    Queue& queue;           ///< the run's queue, idle
    DeviceBuffers& buffers; ///< as the last pass left them
    const Settings& settings;
    const std::string& variant;
    Measurement& result;  ///< medians, output, extras (add to them), bytes and flops (may be set)
    const Report& report; ///< the last timed pass's launch report
    /// The reference's outputs, end to end; null where it did not run. A hook may fill what a
    /// sampled reference left (the result's own values there).
    Values* expected;
    /// Raises the tolerance to `value`, with its reason, where that is larger than it is.
    void widen(double value, std::string reason);
    /// The workload's own measure of the error, judged against the tolerance in place of the
    /// element-wise relative error (matmul's, relative to the sum of |a·b|); the agreement still
    /// names the elements.
    void set_error(double error) { own_error_ = error; }
    /// Runs `schedule` as the timed passes are run (Timing), the outputs poisoned before each
    /// pass: its samples, and its last pass's outputs, sentinels checked, end to end.
    std::pair<std::vector<Sample>, Values> repeat(const Schedule& schedule);

private:
    friend class Runner;
    friend class SpecWorkload;
    Finish(Runner& runner, Queue& queue, DeviceBuffers& buffers, const Settings& settings, const std::string& variant,
           Measurement& result, const Report& report, Values* expected)
        : queue(queue), buffers(buffers), settings(settings), variant(variant), result(result), report(report),
          expected(expected), runner_(&runner)
    {
    }
    Runner* runner_;
    std::optional<double> own_error_;
};

} // namespace duet::workload

/// Defines the entry symbol of a workload plugin made of a Spec: `spec_function` returns it.
#define DUET_EXPORT_WORKLOAD_SPEC(spec_function)                                                                       \
    namespace {                                                                                                        \
    struct DuetSpecWorkload final : duet::workload::SpecWorkload {                                                     \
        DuetSpecWorkload() : SpecWorkload(spec_function()) {}                                                          \
    };                                                                                                                 \
    }                                                                                                                  \
    DUET_EXPORT_WORKLOAD(DuetSpecWorkload)
