// matmul as a workload: `batch` independent products C = A × B (one instance of "a", "b" and "c"
// a product), run on one of three schedules from the source experiments (schedules.hpp), each
// pass the runner's. sequential from ordinary host memory; overlapped and forkjoin from pinned
// memory, each pass also timing the copies alone and the kernels alone, and after their passes
// the sequential schedule (and for forkjoin the overlapped one): what they are judged against.
// Large products are checked on a sample of rows, each result's error relative to Σ|a·b|.
#include "schedules.hpp"

#include <duet/workload/kit.hpp>

#include <algorithm>
#include <memory>
#include <utility>

namespace duet::matmul {
namespace {

using namespace duet::workload;

BufferSpec product_array(BufferSpec array)
{
    array.instances = products;
    array.host_memory = [](const Settings& settings) {
        return batch_schedule(settings) == BatchSchedule::sequential ? HostMemoryKind::pageable
                                                                     : HostMemoryKind::pinned;
    };
    return array;
}

// The compared schedules' medians beside the timed one's, the rate, and against the reference: the
// rows it left out filled with the result's own values, the largest error of every schedule's result.
void finish(Finish& f, Batch& batch, const BatchCheck& check)
{
    Measurement& result = f.result;
    double error = 0;
    const auto judge = [&](const Values& output) {
        if (f.expected != nullptr) {
            error = std::max(error, check.max_error(output.as<float>()));
        }
    };
    judge(result.output);
    std::vector<double> medians;
    for (const BatchSchedule schedule : compared_with(batch_schedule(f.settings))) {
        auto [samples, output] = f.repeat([&batch, schedule](Pass& pass) { return batch.pass(pass, schedule); });
        Measurement other;
        other.samples = std::move(samples);
        medians.push_back(other.total_summary().median);
        judge(output);
    }
    const double total = result.total_ms;
    if (batch_schedule(f.settings) == BatchSchedule::overlapped) {
        const double copy_ms = result.h2d_ms + result.d2h_ms;
        result.extras.insert(result.extras.end(),
                             {{"copy_ms", copy_ms},
                              {"kernel_only_ms", result.kernel_ms},
                              {"overlapped_ms", total},
                              {"overlapped_over_max_copy_kernel", total / std::max(copy_ms, result.kernel_ms)},
                              {"sequential_ms", medians[0]},
                              {"overlapped_over_sequential", total / medians[0]}});
    } else if (batch_schedule(f.settings) == BatchSchedule::forkjoin) {
        result.extras.insert(result.extras.end(), {{"forkjoin_ms", total},
                                                   {"sequential_ms", medians[0]},
                                                   {"overlapped_ms", medians[1]},
                                                   {"forkjoin_over_sequential", total / medians[0]},
                                                   {"forkjoin_over_overlapped", total / medians[1]}});
    }
    result.extras.emplace_back("total_gflops", result.work() / (total * 1e-3) / 1e9);
    if (f.expected == nullptr) {
        return;
    }
    check.fill_unchecked(result.output.as<float>(), f.expected->as<float>());
    f.set_error(error);
    // The i-k-j reference costs the same for every row, so a sample's time scales to the whole.
    const Shape shape = shape_of(f.settings);
    const std::size_t rows = rows_checked(shape, products(f.settings));
    result.extras.emplace_back(rows < shape.m ? "cpu_speedup_extrapolated" : "cpu_speedup",
                               result.reference_ms * static_cast<double>(shape.m) / rows / total);
}

Spec spec()
{
    Spec spec;
    spec.info = {
        .name = "matmul",
        .description =
            "C = A x B in float, row-major, any M, N, K: naive and shared-memory tiled kernels (tiles of 8, 16, 32), "
            "blocked (tiles of C a block and a thread tuned per device, the thread's in registers, float4 loads, "
            "double-buffered) against the vendor BLAS (cuBLAS, CLBlast) on duet's queues; `batch` independent "
            "products run sequentially (ordinary memory, one queue), overlapped (pinned memory, one queue per "
            "product) or fork-joined (pinned memory, one queue per product, forked from and joined onto one queue "
            "by events)",
        .variants = variants(),
        .parameters = {integer_parameter("m", 1024, 1, 65536, "rows of A and C"),
                       integer_parameter("n", 1024, 1, 65536, "columns of B and C"),
                       integer_parameter("k", 1024, 1, 65536, "columns of A, rows of B"),
                       integer_parameter("batch", 1, 1, 64, "independent products (Lm in the source experiment)"),
                       choice_parameter("schedule", {"sequential", "overlapped", "forkjoin"},
                                        "sequential: one queue, ordinary host memory; overlapped: one queue per "
                                        "product, pinned host memory, copies overlapping kernels; forkjoin: one queue "
                                        "per product, pinned host memory, forked from an event of one queue and "
                                        "joined onto it by events before it copies the results out"),
                       choice_parameter("tiles", tile_choices(),
                                        "auto: the tuner's choice for the device and size class; or tiles to build "
                                        "(BMxBNxBK/TMxTN, @ blocks an SM, /k a split of K), to compare devices or "
                                        "APIs at the same tiles",
                                        {"blocked"})},
        .test_cases = {{{"m", "1"}, {"n", "1"}, {"k", "1"}},
                       {{"m", "7"}, {"n", "5"}, {"k", "3"}},
                       {{"m", "33"}, {"n", "17"}, {"k", "65"}},
                       {{"m", "128"}, {"n", "96"}, {"k", "160"}},
                       {{"m", "512"}, {"n", "512"}, {"k", "512"}},
                       {{"m", "257"}, {"n", "130"}, {"k", "19"}},
                       {{"m", "37"}, {"n", "41"}, {"k", "29"}, {"batch", "3"}, {"schedule", "sequential"}},
                       {{"m", "37"}, {"n", "41"}, {"k", "29"}, {"batch", "3"}, {"schedule", "overlapped"}},
                       {{"m", "37"}, {"n", "41"}, {"k", "29"}, {"batch", "1"}, {"schedule", "forkjoin"}},
                       {{"m", "37"}, {"n", "41"}, {"k", "29"}, {"batch", "3"}, {"schedule", "forkjoin"}}}};
    BufferSpec c = output("c", [](const Settings& s) { return shape_of(s).m * shape_of(s).n; });
    c.shape = [](const Settings& settings) { return workload::Shape{shape_of(settings).n}; };
    spec.buffers = {product_array(input("a", [](const Settings& s) { return shape_of(s).m * shape_of(s).k; })),
                    product_array(input("b", [](const Settings& s) { return shape_of(s).k * shape_of(s).n; })),
                    product_array(c)};
    spec.prepare = [](const Device& device, const Settings& settings, const std::string& variant) {
        const auto batch = std::make_shared<Batch>(device, variant, settings);
        const auto check = std::make_shared<BatchCheck>(shape_of(settings), products(settings));
        Prepared prepared([batch](Queue& queue, const DeviceBuffers& buffers) { batch->multiply(queue, buffers); });
        prepared.schedule = [batch, schedule = batch_schedule(settings)](Pass& pass) {
            return batch->pass(pass, schedule);
        };
        prepared.reference = [check](const HostArrays& arrays) {
            check->reference(arrays.in("a"), arrays.in("b"), arrays.seed(), arrays.out("c"));
        };
        prepared.finish = [batch, check](Finish& f) { finish(f, *batch, *check); };
        return prepared;
    };
    // A multiply-add per term of each of the m·n dot products of length k; A and B read and C
    // written once each (compulsory: a tile's reuse from shared memory or cache is not counted).
    spec.flops = [](const Settings& s) { return 2.0 * shape_of(s).m * shape_of(s).n * shape_of(s).k * products(s); };
    spec.bytes = [](const Settings& s) {
        const Shape shape = shape_of(s);
        const double elements = static_cast<double>(shape.m) * shape.k + static_cast<double>(shape.k) * shape.n +
                                static_cast<double>(shape.m) * shape.n;
        return elements * sizeof(float) * static_cast<double>(products(s));
    };
    spec.unit = Measurement::Unit::flops;
    spec.tolerance = [](const Settings& settings) {
        const Shape shape = shape_of(settings);
        return Tolerance{tolerance(shape), tolerance_reason(rows_checked(shape, products(settings)) < shape.m)};
    };
    // The blocked variant's split-K workspaces, one for each queue that runs products, where its
    // tuner may choose a split or its `tiles` setting names one. A footprint knows no variant: the
    // others count them too.
    spec.extra_device_bytes = [](const Settings& settings) {
        const std::uint64_t queues = batch_schedule(settings) == BatchSchedule::sequential ? 1 : products(settings);
        return queues * split_workspace_bytes(shape_of(settings), settings.text("tiles"));
    };
    spec.extra_largest_allocation = [](const Settings& settings) {
        return split_workspace_bytes(shape_of(settings), settings.text("tiles"));
    };
    // The reference's rows, and a compared schedule's results while they are judged.
    spec.extra_host_bytes = [](const Settings& settings) {
        const Shape shape = shape_of(settings);
        const std::uint64_t results =
            compared_with(batch_schedule(settings)).empty() ? 0 : products(settings) * shape.m * shape.n;
        return BatchCheck::host_bytes(shape, products(settings)) + results * sizeof(float);
    };
    return spec;
}

} // namespace
} // namespace duet::matmul

DUET_EXPORT_WORKLOAD_SPEC(duet::matmul::spec)
