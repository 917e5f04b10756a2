// matmul's batches: `products` independent products C = A × B, one pass of each schedule as the
// kit's runner times it (workload::Pass), from arrays "a", "b" and "c" of one instance a product.
// sequential: one queue, each product copied in, multiplied and copied out before the next.
// overlapped: one queue per product, every copy in queued, then every kernel, then every copy out,
// so the transfers of one product run under the kernels of another. forkjoin: each product copied
// in and multiplied on a queue of its own, forked from one event of the run's queue and joined by
// events onto it, which then copies every result out.
#pragma once

#include "matmul.hpp"

#include <duet/workload/kit.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace duet::matmul {

/// The settings' m, n and k.
Shape shape_of(const Settings& settings);
/// The settings' `batch`: how many products.
std::size_t products(const Settings& settings);

enum class BatchSchedule { sequential, overlapped, forkjoin };

/// The schedule the settings' `schedule` names: "sequential", "overlapped" or "forkjoin".
BatchSchedule batch_schedule(const Settings& settings);
/// The schedules a run of `timed` also times for its ratios: overlapped against sequential,
/// forkjoin against both.
std::vector<BatchSchedule> compared_with(BatchSchedule timed);

/// One run's batch: the variant's launcher, the shape, and for the concurrent schedules a queue
/// per product.
class Batch {
public:
    /// The launcher first, so that a variant the device cannot run is refused before anything is
    /// allocated; blocked: the tiles tuned for this device (searched on its first run, then kept in
    /// the cache).
    Batch(const Device& device, const std::string& variant, const Settings& settings);

    /// The launch step: every product on `queue`, one after another.
    void multiply(Queue& queue, const workload::DeviceBuffers& buffers) const;
    /// One pass of `schedule`. For overlapped and forkjoin, first each phase alone on the pass's
    /// queue (the sample's h2d, d2h and kernel: per-queue phase events of the concurrent run would
    /// count, in each queue's copy or kernel, the time it waited for the other queues'), then, C
    /// poisoned again, the concurrent run: the sample's total.
    Sample pass(workload::Pass& pass, BatchSchedule schedule);

private:
    void multiply(Queue& queue, const workload::DeviceBuffers& buffers, std::size_t product) const;
    Sample sequential(workload::Pass& pass) const;
    double overlapped_ms(workload::Pass& pass);
    double forkjoin_ms(workload::Pass& pass);

    Launcher launcher_;
    Shape shape_;
    std::size_t products_;
    std::vector<Queue> workers_; ///< one a product, for overlapped and forkjoin
};

} // namespace duet::matmul
