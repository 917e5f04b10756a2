// matmul as a workload plugin: `batch` independent products C = A × B, run on one of two
// schedules from the source experiment. sequential: ordinary host memory, one queue, each
// product copied in, multiplied and copied out before the next. overlapped: pinned host memory,
// one queue per product, every copy in queued, then every kernel, then every copy out, so the
// transfers of one product run under the kernels of another. The overlapped run also measures,
// in the same run, the sequential schedule, the copies alone and the kernels alone, which are
// what the overlap is judged against.
#include "matmul.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace duet::matmul {
namespace {

/// The products' inputs (drawn from the seed) and their device buffers.
struct Batch {
    Shape shape;
    std::vector<std::vector<float>> a, b;
    std::vector<Buffer<float>> da, db, dc;

    std::size_t size() const { return a.size(); }
    std::size_t c_size() const { return shape.m * shape.n; }
};

struct Phases {
    double h2d_ms = 0;
    double kernel_ms = 0;
    double d2h_ms = 0;
    double total_ms = 0;
};

Phases sum_phases(workload::PhaseTimer& timer)
{
    Phases sums;
    for (const auto& [phase, ms] : timer.phases_ms()) {
        (phase == "h2d" ? sums.h2d_ms : phase == "kernel" ? sums.kernel_ms : sums.d2h_ms) += ms;
    }
    sums.total_ms = timer.total_ms();
    return sums;
}

// Device C poisoned, so that an element no kernel wrote fails the check.
void poison_outputs(Queue& queue, const Batch& batch)
{
    for (const auto& dc : batch.dc) {
        queue.fill(dc, workload::poison());
    }
    queue.finish();
}

// One product nobody times, before anything that is: CUDA loads a module's kernels on their first
// launch and CLBlast compiles its kernels on its first call.
void warm_up(const Launcher& launcher, Queue& queue, const Batch& batch)
{
    queue.fill(batch.da[0], 1.0f);
    queue.fill(batch.db[0], 1.0f);
    launcher.run(queue, batch.da[0], batch.db[0], batch.dc[0], batch.shape);
    queue.finish();
}

// Schedule (a): one product after another on one queue, from and to ordinary host memory.
Phases run_sequential(const Launcher& launcher, Queue& queue, const Batch& batch, std::span<float> c)
{
    workload::PhaseTimer timer(queue);
    for (std::size_t p = 0; p < batch.size(); ++p) {
        queue.write(batch.da[p], batch.a[p]);
        queue.write(batch.db[p], batch.b[p]);
        timer.mark("h2d");
        launcher.run(queue, batch.da[p], batch.db[p], batch.dc[p], batch.shape);
        timer.mark("kernel");
        queue.read(c.subspan(p * batch.c_size(), batch.c_size()), batch.dc[p]);
        timer.mark("d2h");
    }
    return sum_phases(timer);
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

private:
    static HostBuffer pinned_copy(const Device& device, const std::vector<float>& values)
    {
        HostBuffer host = device.alloc_host(values.size() * sizeof(float), HostMemoryKind::pinned);
        std::memcpy(host.data(), values.data(), values.size() * sizeof(float));
        return host;
    }
};

// Every copy in, then every copy out, on one queue with no kernel between: the copies alone.
Phases run_copies_alone(Queue& queue, const Batch& batch, const PinnedBatch& pinned)
{
    workload::PhaseTimer timer(queue);
    for (std::size_t p = 0; p < batch.size(); ++p) {
        queue.write(batch.da[p], pinned.a[p].as<float>());
        queue.write(batch.db[p], pinned.b[p].as<float>());
    }
    timer.mark("h2d");
    for (std::size_t p = 0; p < batch.size(); ++p) {
        queue.read(pinned.c[p].as<float>(), batch.dc[p]);
    }
    timer.mark("d2h");
    return sum_phases(timer);
}

// Every kernel back to back on one queue, the inputs already on the device: the kernels alone.
double run_kernels_alone(const Launcher& launcher, Queue& queue, const Batch& batch)
{
    workload::PhaseTimer timer(queue);
    for (std::size_t p = 0; p < batch.size(); ++p) {
        launcher.run(queue, batch.da[p], batch.db[p], batch.dc[p], batch.shape);
    }
    timer.mark("kernel");
    return timer.total_ms();
}

// Schedule (b): one queue per product, enqueued breadth-first as in the source experiment. The
// time runs from the earliest queue's start to the latest queue's end: events of one device share
// its clock, whatever their queue. No queue waits on another: the products are independent, and
// with every queue waiting on one start event, NVIDIA's OpenCL (driver 580, H200) reported no
// device time for some events of batches of 5 and 10 products of 864 and larger.
double run_overlapped(const Launcher& launcher, std::vector<Queue>& queues, const Batch& batch,
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
        queues[p].read(pinned.c[p].as<float>(), batch.dc[p]);
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

class Matmul final : public Workload {
public:
    WorkloadInfo info() const override
    {
        return {"matmul",
                "C = A x B in float, row-major, any M, N, K: naive and shared-memory tiled kernels (tiles of 8, 16, "
                "32) against the vendor BLAS (cuBLAS, CLBlast) on duet's queues; `batch` independent products run "
                "sequentially (ordinary memory, one queue) or overlapped (pinned memory, one queue per product)",
                variants(),
                {workload::integer_parameter("m", 1024, 1, 65536, "rows of A and C"),
                 workload::integer_parameter("n", 1024, 1, 65536, "columns of B and C"),
                 workload::integer_parameter("k", 1024, 1, 65536, "columns of A, rows of B"),
                 workload::integer_parameter("batch", 1, 1, 64, "independent products (Lm in the source experiment)"),
                 workload::choice_parameter("schedule", {"sequential", "overlapped"},
                                            "sequential: one queue, ordinary host memory; overlapped: one queue per "
                                            "product, pinned host memory, copies overlapping kernels")},
                {{{"m", "1"}, {"n", "1"}, {"k", "1"}},
                 {{"m", "7"}, {"n", "5"}, {"k", "3"}},
                 {{"m", "33"}, {"n", "17"}, {"k", "65"}},
                 {{"m", "128"}, {"n", "96"}, {"k", "160"}},
                 {{"m", "512"}, {"n", "512"}, {"k", "512"}},
                 {{"m", "37"}, {"n", "41"}, {"k", "29"}, {"batch", "3"}, {"schedule", "sequential"}},
                 {{"m", "37"}, {"n", "41"}, {"k", "29"}, {"batch", "3"}, {"schedule", "overlapped"}}}};
    }

    Footprint footprint(const RunRequest& request) const override
    {
        const Settings& settings = request.settings;
        const std::uint64_t m = settings.integer("m"), n = settings.integer("n"), k = settings.integer("k");
        const std::uint64_t products = settings.integer("batch");
        const bool overlapped = settings.text("schedule") == "overlapped";
        const std::uint64_t a = m * k * sizeof(float), b = k * n * sizeof(float), c = m * n * sizeof(float);
        // Host: every product's A and B, the result, one copy of it per schedule checked, the
        // pinned copies of A, B and C for the overlapped schedule, and the reference rows (double).
        const std::uint64_t host = products * (a + b + c * (overlapped ? 2 : 1)) + (overlapped ? products * (a + b + c) : 0) +
                                   2 * c;
        return {products * (a + b + c), std::max({a, b, c}), host};
    }

    Measurement run(const RunRequest& request) const override
    {
        const Settings& settings = request.settings;
        const Shape shape{static_cast<std::size_t>(settings.integer("m")),
                          static_cast<std::size_t>(settings.integer("n")),
                          static_cast<std::size_t>(settings.integer("k"))};
        const auto products = static_cast<std::size_t>(settings.integer("batch"));
        const bool overlapped = settings.text("schedule") == "overlapped";
        const Device& device = request.device;
        const Launcher launcher(device, request.variant);

        Batch batch{shape, {}, {}, {}, {}, {}};
        for (std::size_t p = 0; p < products; ++p) {
            batch.a.push_back(workload::random_floats(shape.m * shape.k, request.seed + 2 * p));
            batch.b.push_back(workload::random_floats(shape.k * shape.n, request.seed + 2 * p + 1));
            batch.da.push_back(device.alloc<float>(shape.m * shape.k));
            batch.db.push_back(device.alloc<float>(shape.k * shape.n));
            batch.dc.push_back(device.alloc<float>(shape.m * shape.n));
        }
        auto queue = device.create_queue();
        warm_up(launcher, queue, batch);
        poison_outputs(queue, batch);

        Measurement result;
        result.output.assign(products * batch.c_size(), workload::poison());
        std::vector<std::vector<float>> outputs_to_check;
        const Phases sequential = run_sequential(launcher, queue, batch, result.output);
        if (!overlapped) {
            result.h2d_ms = sequential.h2d_ms;
            result.kernel_ms = sequential.kernel_ms;
            result.d2h_ms = sequential.d2h_ms;
            result.total_ms = sequential.total_ms;
        } else {
            // Each phase alone, then the overlapped schedule: h2d, kernel and d2h report the phases
            // alone, total the overlapped run. Per-queue phase events would count, in each
            // queue's copy or kernel, the time it waited for the other queues'.
            outputs_to_check.push_back(result.output);
            PinnedBatch pinned(device, batch);
            std::vector<Queue> queues;
            for (std::size_t p = 0; p < products; ++p) {
                queues.push_back(device.create_queue());
            }
            const Phases copies = run_copies_alone(queue, batch, pinned);
            const double kernels_ms = run_kernels_alone(launcher, queue, batch);
            poison_outputs(queue, batch);
            pinned.poison_outputs();
            const double overlapped_ms = run_overlapped(launcher, queues, batch, pinned);
            for (std::size_t p = 0; p < products; ++p) {
                std::ranges::copy(pinned.c[p].as<float>(), result.output.begin() + p * batch.c_size());
            }
            result.h2d_ms = copies.h2d_ms;
            result.kernel_ms = kernels_ms;
            result.d2h_ms = copies.d2h_ms;
            result.total_ms = overlapped_ms;
            const double copy_ms = copies.h2d_ms + copies.d2h_ms;
            result.extras = {{"copy_ms", copy_ms},
                             {"kernel_only_ms", kernels_ms},
                             {"overlapped_ms", overlapped_ms},
                             {"overlapped_over_max_copy_kernel", overlapped_ms / std::max(copy_ms, kernels_ms)},
                             {"sequential_ms", sequential.total_ms},
                             {"overlapped_over_sequential", overlapped_ms / sequential.total_ms}};
        }
        outputs_to_check.push_back(result.output);

        result.unit = Measurement::Unit::flops;
        result.work = 2.0 * static_cast<double>(shape.m) * shape.n * shape.k * products;
        result.extras.emplace_back("total_gflops", result.work / (result.total_ms * 1e-3) / 1e9);
        const auto rows = rows_to_check(shape, products, request.seed);
        const bool sampled = rows.size() < shape.m;
        result.tolerance = tolerance(shape);
        result.tolerance_reason = tolerance_reason(sampled);
        if (request.verify) {
            std::vector<double> want(rows.size() * shape.n);
            for (std::size_t p = 0; p < products; ++p) {
                result.reference_ms += workload::host_ms([&] {
                    if (sampled) {
                        reference_rows(batch.a[p], batch.b[p], rows, want, shape);
                    } else {
                        reference(batch.a[p], batch.b[p], want, shape);
                    }
                });
                for (const auto& output : outputs_to_check) {
                    const auto c = std::span<const float>(output).subspan(p * batch.c_size(), batch.c_size());
                    result.max_error = std::max(result.max_error, max_error(c, want, batch.a[p], batch.b[p], rows, shape));
                }
            }
            result.verified = true;
            // The i-k-j reference costs the same for every row, so a sample's time scales to the whole.
            const double full_reference_ms = result.reference_ms * static_cast<double>(shape.m) / rows.size();
            result.extras.emplace_back(sampled ? "cpu_speedup_extrapolated" : "cpu_speedup",
                                       full_reference_ms / result.total_ms);
        }
        return result;
    }
};

} // namespace
} // namespace duet::matmul

DUET_EXPORT_WORKLOAD(duet::matmul::Matmul)
