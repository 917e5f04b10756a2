// matmul as a workload plugin: `batch` independent products C = A × B, run on one of three
// schedules from the source experiments, one run of it per timed pass, repeated by the kit
// (workload::repeat) until the median settles. sequential: ordinary host memory, one queue, each
// product copied in, multiplied and copied out before the next. overlapped: pinned host memory,
// one queue per product, every copy in queued, then every kernel, then every copy out, so the
// transfers of one product run under the kernels of another. forkjoin: pinned host memory, each
// product copied in and multiplied on a queue of its own, forked from one event of the main queue
// and joined by events onto it, which then copies every result out. Each pass of the last two also
// times the copies alone and the kernels alone; after their passes the sequential schedule is
// timed too (and for forkjoin the overlapped one): what they are judged against. C is poisoned
// before every pass, with sentinels past its end.
#include "matmul.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace duet::matmul {
namespace {

enum class Schedule { sequential, overlapped, forkjoin };

Schedule schedule_of(const Settings& settings)
{
    const std::string name = settings.text("schedule");
    return name == "overlapped" ? Schedule::overlapped : name == "forkjoin" ? Schedule::forkjoin : Schedule::sequential;
}

/// The products' inputs (drawn from the seed) and their device buffers. Each C is followed on
/// the device by workload::sentinel_elements elements that no kernel may write.
struct Batch {
    Shape shape;
    std::vector<std::vector<float>> a, b;
    std::vector<Buffer<float>> da, db, dc;

    Batch(const Device& device, const Shape& shape, std::size_t products, std::uint64_t seed) : shape(shape)
    {
        for (std::size_t p = 0; p < products; ++p) {
            a.push_back(workload::random_floats(shape.m * shape.k, seed + 2 * p));
            b.push_back(workload::random_floats(shape.k * shape.n, seed + 2 * p + 1));
            da.push_back(device.alloc<float>(shape.m * shape.k));
            db.push_back(device.alloc<float>(shape.k * shape.n));
            dc.push_back(device.alloc<float>(c_size() + workload::sentinel_elements));
        }
    }

    std::size_t size() const { return a.size(); }
    std::size_t c_size() const { return shape.m * shape.n; }
    /// Product p's C, without its sentinels.
    BufferView<float> c(std::size_t p) const { return dc[p].view(0, c_size()); }
};

// Every C poisoned up to its last sentinel, so that an element no kernel wrote fails the check.
void poison_outputs(Queue& queue, const Batch& batch)
{
    for (const auto& dc : batch.dc) {
        queue.fill(dc, workload::poison());
    }
    queue.finish();
}

// Throws, naming the product, when a kernel wrote past the end of its C.
void check_sentinels(Queue& queue, const Batch& batch)
{
    std::vector<float> tail(workload::sentinel_elements);
    for (std::size_t p = 0; p < batch.size(); ++p) {
        queue.read(std::span<float>(tail), batch.dc[p].view(batch.c_size(), tail.size()));
        queue.finish();
        workload::check_sentinels<float>(tail, "C of product " + std::to_string(p));
    }
}

// Schedule (a), one pass: one product after another on one queue, from and to ordinary host memory.
Sample run_sequential(const Launcher& launcher, Queue& queue, const Batch& batch, const workload::Spacer& spacer,
                      std::span<float> c)
{
    poison_outputs(queue, batch);
    std::ranges::fill(c, workload::poison());
    workload::PhaseTimer timer(queue);
    for (std::size_t p = 0; p < batch.size(); ++p) {
        queue.write(batch.da[p], batch.a[p]);
        queue.write(batch.db[p], batch.b[p]);
        timer.mark(Phase::h2d);
        timer.space(spacer);
        launcher.run(queue, batch.da[p], batch.db[p], batch.dc[p], batch.shape);
        timer.mark(Phase::kernel);
        queue.read(c.subspan(p * batch.c_size(), batch.c_size()), batch.c(p));
        timer.mark(Phase::d2h);
    }
    return timer.sample();
}

/// Pinned host copies of the inputs, and pinned room for the results.
struct PinnedBatch {
    std::vector<HostBuffer> a, b, c;

    PinnedBatch(const Device& device, const Batch& batch)
    {
        for (std::size_t p = 0; p < batch.size(); ++p) {
            a.push_back(pinned_copy(device, batch.a[p]));
            b.push_back(pinned_copy(device, batch.b[p]));
            c.push_back(device.alloc_host(batch.c_size() * sizeof(float), HostMemoryKind::pinned));
        }
    }

    void poison_outputs() const
    {
        for (const auto& host : c) {
            std::ranges::fill(host.as<float>(), workload::poison());
        }
    }

    /// Every product's C, one after another.
    std::vector<float> outputs() const
    {
        std::vector<float> all;
        for (const auto& host : c) {
            std::ranges::copy(host.as<float>(), std::back_inserter(all));
        }
        return all;
    }

private:
    static HostBuffer pinned_copy(const Device& device, const std::vector<float>& values)
    {
        HostBuffer host = device.alloc_host(values.size() * sizeof(float), HostMemoryKind::pinned);
        std::memcpy(host.data(), values.data(), values.size() * sizeof(float));
        return host;
    }
};

// One queue per product, enqueued breadth-first as in the source experiment. The time runs from
// the earliest queue's start to the latest queue's end: events of one device share its clock,
// whatever their queue. No queue waits on another: the products are independent, and with every
// queue waiting on one start event, NVIDIA's OpenCL (driver 580, H200) reported no device time for
// some events of batches of 5 and 10 products of 864 and larger.
double overlapped_ms(const Launcher& launcher, std::vector<Queue>& queues, const Batch& batch,
                     const PinnedBatch& pinned)
{
    std::vector<Event> starts;
    for (auto& queue : queues) {
        starts.push_back(queue.record());
    }
    for (std::size_t p = 0; p < queues.size(); ++p) {
        queues[p].write(batch.da[p], pinned.a[p].as<float>());
        queues[p].write(batch.db[p], pinned.b[p].as<float>());
    }
    for (std::size_t p = 0; p < queues.size(); ++p) {
        launcher.run(queues[p], batch.da[p], batch.db[p], batch.dc[p], batch.shape);
    }
    for (std::size_t p = 0; p < queues.size(); ++p) {
        queues[p].read(pinned.c[p].as<float>(), batch.c(p));
    }
    std::vector<Event> ends;
    for (auto& queue : queues) {
        ends.push_back(queue.record());
    }
    for (auto& queue : queues) {
        queue.finish();
    }
    return workload::span_ms(starts, ends);
}

// Schedule (c), the source experiment's fork-join. The fork is recorded on the main queue before
// any copy, since each of the experiment's streams copies its own A and B in: each worker queue
// waits on it, then copies in from pinned memory and multiplies. The main queue waits on an event of
// every worker (the join, the experiment's cudaDeviceSynchronize) and only then copies every C out,
// where the experiment's streams copy their own out before it: a read the join failed to hold back
// would read poison. The time runs between two events of the main queue, which waits for all the
// work between them, never of a worker: NVIDIA's OpenCL (driver 580) gave some events of queues
// waiting on one start event no device time (see overlapped_ms). A missing time shows as one not
// positive or longer than the host saw the pass take, and fails.
double forkjoin_ms(const Launcher& launcher, Queue& main, std::vector<Queue>& workers, const Batch& batch,
                   const PinnedBatch& pinned)
{
    // A and B poisoned on the main queue just before the fork, and not waited for: a worker that
    // did not wait on the fork could copy its inputs in before the poison lands and multiply NaN.
    for (std::size_t p = 0; p < workers.size(); ++p) {
        main.fill(batch.da[p], workload::poison());
        main.fill(batch.db[p], workload::poison());
    }
    Event fork, end;
    const double host_ms = workload::host_ms([&] {
        fork = main.record();
        std::vector<Event> joins;
        for (std::size_t p = 0; p < workers.size(); ++p) {
            workers[p].wait(fork);
            workers[p].write(batch.da[p], pinned.a[p].as<float>());
            workers[p].write(batch.db[p], pinned.b[p].as<float>());
            launcher.run(workers[p], batch.da[p], batch.db[p], batch.dc[p], batch.shape);
            joins.push_back(workers[p].record());
        }
        for (const auto& join : joins) {
            main.wait(join);
        }
        for (std::size_t p = 0; p < workers.size(); ++p) {
            main.read(pinned.c[p].as<float>(), batch.c(p));
        }
        end = main.record();
        end.wait();
    });
    const double device_ms = elapsed_ms(fork, end);
    if (!(device_ms > 0 && device_ms <= host_ms)) {
        throw Error("duet", "matmul forkjoin",
                    "the device reported no usable time between the fork and the end of the reads: " +
                        std::to_string(device_ms) + " ms, for a run the host saw take " + std::to_string(host_ms) +
                        " ms");
    }
    return device_ms;
}

// Schedules (b) and (c), one pass. First each phase alone on one queue (every copy in, every copy
// out, then every kernel back to back on inputs already there): the sample's h2d, d2h and kernel,
// since per-queue phase events of the concurrent run would count, in each queue's copy or kernel,
// the time it waited for the other queues'. Then, C poisoned again, the concurrent run: its total.
Sample run_concurrent(Schedule schedule, const Launcher& launcher, Queue& queue, std::vector<Queue>& queues,
                      const Batch& batch, const PinnedBatch& pinned)
{
    workload::PhaseTimer alone(queue);
    for (std::size_t p = 0; p < batch.size(); ++p) {
        queue.write(batch.da[p], pinned.a[p].as<float>());
        queue.write(batch.db[p], pinned.b[p].as<float>());
    }
    alone.mark(Phase::h2d);
    for (std::size_t p = 0; p < batch.size(); ++p) {
        queue.read(pinned.c[p].as<float>(), batch.c(p));
    }
    alone.mark(Phase::d2h);
    for (std::size_t p = 0; p < batch.size(); ++p) {
        launcher.run(queue, batch.da[p], batch.db[p], batch.dc[p], batch.shape);
    }
    alone.mark(Phase::kernel);
    Sample sample = alone.sample();
    poison_outputs(queue, batch);
    pinned.poison_outputs();
    sample.total_ms = schedule == Schedule::forkjoin ? forkjoin_ms(launcher, queue, queues, batch, pinned)
                                                     : overlapped_ms(launcher, queues, batch, pinned);
    return sample;
}

double median_total_ms(std::vector<Sample> samples)
{
    Measurement measurement;
    measurement.samples = std::move(samples);
    return measurement.total_summary().median;
}

// Each product against the double-precision reference on the rows rows_to_check() keeps: the
// largest error relative to Σ|a·b| of every output in `outputs` (result.max_error, which the
// tolerance judges), and result.output element by element (result.agreement). Rows left out of a
// sampled check take the result's own values there, so they differ only where unwritten (NaN).
void check(const RunRequest& request, const Batch& batch, std::span<const std::span<const float>> outputs,
           Measurement& result)
{
    const Shape& shape = batch.shape;
    const auto rows = rows_to_check(shape, batch.size(), request.seed);
    const bool sampled = rows.size() < shape.m;
    result.tolerance = tolerance(shape);
    result.tolerance_reason = tolerance_reason(sampled);
    result.output_shape = workload::Shape{shape.n};
    if (!request.verify) {
        return;
    }
    std::vector<double> want(rows.size() * shape.n);
    std::vector<float> expected = result.output.as<float>();
    for (std::size_t p = 0; p < batch.size(); ++p) {
        result.reference_ms += workload::host_ms([&] {
            if (sampled) {
                reference_rows(batch.a[p], batch.b[p], rows, want, shape);
            } else {
                reference(batch.a[p], batch.b[p], want, shape);
            }
        });
        for (const auto output : outputs) {
            const auto c = output.subspan(p * batch.c_size(), batch.c_size());
            result.max_error = std::max(result.max_error, max_error(c, want, batch.a[p], batch.b[p], rows, shape));
        }
        for (std::size_t r = 0; r < rows.size(); ++r) {
            std::copy_n(want.begin() + r * shape.n, shape.n, expected.begin() + p * batch.c_size() + rows[r] * shape.n);
        }
    }
    result.agreement =
        workload::compare(result.output, workload::Values(std::move(expected)), result.tolerance, result.output_shape);
    result.verified = true;
    // The i-k-j reference costs the same for every row, so a sample's time scales to the whole.
    const double full_reference_ms = result.reference_ms * static_cast<double>(shape.m) / rows.size();
    result.extras.emplace_back(sampled ? "cpu_speedup_extrapolated" : "cpu_speedup",
                               full_reference_ms / result.total_ms);
}

class Matmul final : public Workload {
public:
    WorkloadInfo info() const override
    {
        return {"matmul",
                "C = A x B in float, row-major, any M, N, K: naive and shared-memory tiled kernels (tiles of 8, 16, "
                "32), blocked (tiles of C a block and a thread tuned per device, the thread's in registers, float4 "
                "loads, double-buffered) against "
                "the vendor BLAS (cuBLAS, CLBlast) on duet's queues; `batch` independent products run "
                "sequentially (ordinary memory, one queue), overlapped (pinned memory, one queue per product) or "
                "fork-joined (pinned memory, one queue per product, forked from and joined onto one queue by events)",
                variants(),
                {workload::integer_parameter("m", 1024, 1, 65536, "rows of A and C"),
                 workload::integer_parameter("n", 1024, 1, 65536, "columns of B and C"),
                 workload::integer_parameter("k", 1024, 1, 65536, "columns of A, rows of B"),
                 workload::integer_parameter("batch", 1, 1, 64, "independent products (Lm in the source experiment)"),
                 workload::choice_parameter(
                     "schedule", {"sequential", "overlapped", "forkjoin"},
                     "sequential: one queue, ordinary host memory; overlapped: one queue per product, pinned host "
                     "memory, copies overlapping kernels; forkjoin: one queue per product, pinned host memory, forked "
                     "from an event of one queue and joined onto it by events before it copies the results out")},
                {{{"m", "1"}, {"n", "1"}, {"k", "1"}},
                 {{"m", "7"}, {"n", "5"}, {"k", "3"}},
                 {{"m", "33"}, {"n", "17"}, {"k", "65"}},
                 {{"m", "128"}, {"n", "96"}, {"k", "160"}},
                 {{"m", "512"}, {"n", "512"}, {"k", "512"}},
                 {{"m", "257"}, {"n", "130"}, {"k", "19"}},
                 {{"m", "37"}, {"n", "41"}, {"k", "29"}, {"batch", "3"}, {"schedule", "sequential"}},
                 {{"m", "37"}, {"n", "41"}, {"k", "29"}, {"batch", "3"}, {"schedule", "overlapped"}},
                 {{"m", "37"}, {"n", "41"}, {"k", "29"}, {"batch", "1"}, {"schedule", "forkjoin"}},
                 {{"m", "37"}, {"n", "41"}, {"k", "29"}, {"batch", "3"}, {"schedule", "forkjoin"}}},
                {}};
    }

    Footprint footprint(const RunRequest& request) const override
    {
        const Settings& settings = request.settings;
        const std::uint64_t m = settings.integer("m"), n = settings.integer("n"), k = settings.integer("k");
        const std::uint64_t products = settings.integer("batch");
        const Schedule timed = schedule_of(settings);
        const bool pinned = timed != Schedule::sequential;
        // The schedules a run also times for its ratios: overlapped against sequential, forkjoin
        // against both.
        const std::uint64_t compared = timed == Schedule::forkjoin ? 2 : timed == Schedule::overlapped ? 1 : 0;
        const std::uint64_t a = m * k * sizeof(float), b = k * n * sizeof(float), c = m * n * sizeof(float);
        const std::uint64_t device_c = c + workload::sentinel_elements * sizeof(float);
        // Host: every product's A and B, the result and what it is expected to be, the results of
        // the schedules compared with, the pinned copies of A, B and C, and the reference rows (double).
        const std::uint64_t host =
            products * (a + b + c * (2 + compared)) + (pinned ? products * (a + b + c) : 0) + 2 * c;
        const std::uint64_t spacer = workload::Spacer::bytes(request.device);
        return {products * (a + b + device_c) + spacer, std::max({a, b, device_c, spacer}), host};
    }

    Measurement run(const RunRequest& request) const override
    {
        const Settings& settings = request.settings;
        const Shape shape{static_cast<std::size_t>(settings.integer("m")),
                          static_cast<std::size_t>(settings.integer("n")),
                          static_cast<std::size_t>(settings.integer("k"))};
        const auto products = static_cast<std::size_t>(settings.integer("batch"));
        const Schedule timed = schedule_of(settings);
        const Device& device = request.device;
        // First, so that a variant the device cannot run is refused before anything is allocated.
        // blocked: the tiles tuned for this device (searched on its first run, then kept in the cache).
        const Launcher launcher(device, request.variant,
                                request.variant == "blocked" ? tuned_tiles(device) : BlockedTiles{});
        const Batch batch(device, shape, products, request.seed);
        const workload::Spacer spacer(device);
        auto queue = device.create_queue();

        Measurement result;
        result.unit = Measurement::Unit::flops;
        result.work = 2.0 * static_cast<double>(shape.m) * shape.n * shape.k * products;
        result.output = std::vector<float>(products * batch.c_size());
        auto& output = result.output.as<float>();
        // The results of the schedules the timed one is compared with, checked as its own is.
        std::vector<std::vector<float>> compared_outputs;
        if (timed == Schedule::sequential) {
            result.samples = workload::repeat(request.timing,
                                              [&] { return run_sequential(launcher, queue, batch, spacer, output); });
            result.set_medians();
        } else {
            PinnedBatch pinned(device, batch);
            std::vector<Queue> queues;
            for (std::size_t p = 0; p < products; ++p) {
                queues.push_back(device.create_queue());
            }
            const auto repeat_concurrent = [&](Schedule concurrent) {
                return workload::repeat(
                    request.timing, [&] { return run_concurrent(concurrent, launcher, queue, queues, batch, pinned); });
            };
            result.samples = repeat_concurrent(timed);
            result.set_medians();
            output = pinned.outputs();
            // The other schedules on the same products, repeated as the timed passes are, so that
            // each ratio is of two medians.
            std::vector<float> sequential_output(output.size());
            const double sequential = median_total_ms(workload::repeat(
                request.timing, [&] { return run_sequential(launcher, queue, batch, spacer, sequential_output); }));
            compared_outputs.push_back(std::move(sequential_output));
            if (timed == Schedule::overlapped) {
                const double copy_ms = result.h2d_ms + result.d2h_ms;
                result.extras = {
                    {"copy_ms", copy_ms},
                    {"kernel_only_ms", result.kernel_ms},
                    {"overlapped_ms", result.total_ms},
                    {"overlapped_over_max_copy_kernel", result.total_ms / std::max(copy_ms, result.kernel_ms)},
                    {"sequential_ms", sequential},
                    {"overlapped_over_sequential", result.total_ms / sequential}};
            } else {
                const double overlapped = median_total_ms(repeat_concurrent(Schedule::overlapped));
                compared_outputs.push_back(pinned.outputs());
                result.extras = {{"forkjoin_ms", result.total_ms},
                                 {"sequential_ms", sequential},
                                 {"overlapped_ms", overlapped},
                                 {"forkjoin_over_sequential", result.total_ms / sequential},
                                 {"forkjoin_over_overlapped", result.total_ms / overlapped}};
            }
        }
        check_sentinels(queue, batch);
        result.extras.emplace_back("total_gflops", result.work / (result.total_ms * 1e-3) / 1e9);

        std::vector<std::span<const float>> outputs{output};
        outputs.insert(outputs.end(), compared_outputs.begin(), compared_outputs.end());
        check(request, batch, outputs, result);
        return result;
    }
};

} // namespace
} // namespace duet::matmul

DUET_EXPORT_WORKLOAD(duet::matmul::Matmul)
