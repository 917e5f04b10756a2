// reduce as a workload: the sum or the max of n floats, one result; on a distributed run each rank
// folds its block of the n and the ranks' results are all-reduced. The inputs are drawn negative,
// in (-2, -0.5]: one sign, so the summation error bound is relative to the sum itself, and a max
// whose identity were 0 rather than -inf would show. Its figures put the kernel's read bandwidth
// beside a device-to-device copy's, measured in the same run.
#include "reduce.hpp"

#include <duet/workload/kit.hpp>

#include <cmath>
#include <cstdint>
#include <memory>

namespace duet::reduce {
namespace {

using namespace duet::workload;

std::size_t n(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("n"));
}

Operation operation(const Settings& settings)
{
    return settings.text("op") == "sum" ? Operation::sum : Operation::max;
}

/// n floats read; the partial results' traffic is 1/4096 of it.
double bytes_read(const Settings& settings)
{
    return static_cast<double>(n(settings)) * sizeof(float);
}

Values negative_floats(std::size_t count, std::uint64_t seed)
{
    std::vector<float> values = random_floats(count, seed);
    for (float& value : values) {
        value = -std::fabs(value);
    }
    return values;
}

Spec spec()
{
    Spec spec;
    spec.info = {
        .name = "reduce",
        .description =
            "sum or max of n floats to one value: blocks of 256 threads each fold 4096 consecutive elements "
            "(16 per thread, coalesced), then atomic: one atomic per block into the result; tree: pairwise in "
            "local memory, and passes over the blocks' results; warp: warp shuffles (OpenCL sub-groups where "
            "the device has them), and passes",
        .variants = {"atomic", "tree", "warp"},
        .parameters = {integer_parameter("n", std::int64_t{1} << 24, 1, static_cast<std::int64_t>(max_n),
                                         "number of floats"),
                       choice_parameter("op", {"sum", "max"}, "the operation folded")},
        // One element, fewer than a block, one block's span exactly and one past it, odd
        // sizes over two and three passes, both operations.
        .test_cases = {{{"n", "1"}},
                       {{"n", "1"}, {"op", "max"}},
                       {{"n", "200"}, {"op", "max"}},
                       {{"n", "4096"}},
                       {{"n", "4097"}, {"op", "max"}},
                       {{"n", "1000003"}},
                       {{"n", "1000003"}, {"op", "max"}},
                       {{"n", "16777217"}}},
    };
    BufferSpec in = input("in", n);
    in.draw = negative_floats;
    in.split = Split{.row = [](const Settings&) { return std::size_t{1}; }};
    spec.buffers = {in, output("result", [](const Settings&) { return std::size_t{1}; })};
    spec.prepare = [](const Device& device, const Settings& settings, const std::string& variant) -> Prepared {
        const auto reduction =
            std::make_shared<const Reduction<float>>(device, variant_named(variant), operation(settings), n(settings));
        Prepared prepared = [reduction, op = operation(settings)](Queue& queue, const DeviceBuffers& buffers) {
            const Part& part = buffers.part("in");
            Communicator& ranks = buffers.communicator();
            reduction->enqueue(queue, buffers.get("in"), part.rows, buffers.get("result"));
            if (ranks.size() > 1) {
                ranks.all_reduce(queue, buffers.get("result").raw(), 0, 1, ElementType::f32,
                                 op == Operation::sum ? ReduceOp::sum : ReduceOp::max);
            }
        };
        // The ranks' sums add up to ranks - 1 roundings more, in MPI's order.
        prepared.finish = [n = n(settings), op = operation(settings)](Finish& finish) {
            const int ranks = finish.buffers.communicator().size();
            if (op == Operation::sum && ranks > 1) {
                const std::size_t depth = rounding_depth(n) + static_cast<std::size_t>(ranks - 1);
                finish.widen(gamma<float>(depth),
                             "inputs of one sign: k·u/(1 - k·u) of the sum, k = " + std::to_string(depth) +
                                 " roundings: each rank's longest path, "
                                 "then the ranks' results added one by one");
            }
        };
        return prepared;
    };
    spec.reference = [](const Settings& settings, const HostArrays& arrays) {
        arrays.out("result")[0] = reference(operation(settings), arrays.in("in"));
    };
    spec.bytes = bytes_read;
    // n values folded to one: n - 1 adds, or for the max n - 1 comparisons, each a floating-point
    // instruction (the folds of the identity the kernels start from are not counted).
    spec.flops = [](const Settings& settings) { return static_cast<double>(n(settings) - 1); };
    spec.unit = Measurement::Unit::bytes;
    spec.tolerance = [](const Settings& settings) {
        if (operation(settings) == Operation::max) {
            return Tolerance{0, "the max is exact: every device picks the same element"};
        }
        return Tolerance{
            gamma<float>(rounding_depth(n(settings))),
            "inputs of one sign: k·u/(1 - k·u) of the sum, k = " + std::to_string(rounding_depth(n(settings))) +
                " roundings on the longest path from an input to the result"};
    };
    // The benchmark's yardstick: the kernel's best read bandwidth against a device-to-device copy
    // of the same n floats (counted as read and written); and the blocks' results.
    copy_yardstick_figures(
        spec, "in", [](const Settings& settings) { return n(settings) * sizeof(float); },
        [](const Settings& settings) {
            return std::uint64_t{scratch_elements(Variant::tree, n(settings)) * sizeof(float)};
        });
    return spec;
}

} // namespace
} // namespace duet::reduce

DUET_EXPORT_WORKLOAD_SPEC(duet::reduce::spec)
