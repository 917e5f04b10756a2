// matmul's schedules of a batch, each one pass on the kit's Pass: its copies, its marks and its
// poison are the runner's; the queues and the order of the work are the schedule's.
#include "schedules.hpp"

#include <string>

namespace duet::matmul {

using workload::DeviceBuffers;
using workload::Pass;

Shape shape_of(const Settings& settings)
{
    return {static_cast<std::size_t>(settings.integer("m")), static_cast<std::size_t>(settings.integer("n")),
            static_cast<std::size_t>(settings.integer("k"))};
}

std::size_t products(const Settings& settings)
{
    return static_cast<std::size_t>(settings.integer("batch"));
}

BatchSchedule batch_schedule(const Settings& settings)
{
    const std::string& name = settings.text("schedule");
    return name == "overlapped" ? BatchSchedule::overlapped
           : name == "forkjoin" ? BatchSchedule::forkjoin
                                : BatchSchedule::sequential;
}

std::vector<BatchSchedule> compared_with(BatchSchedule timed)
{
    using enum BatchSchedule;
    return timed == forkjoin     ? std::vector{sequential, overlapped}
           : timed == overlapped ? std::vector{sequential}
                                 : std::vector<BatchSchedule>{};
}

namespace {

/// The blocked kernel's tiles: the `tiles` setting's, or the tuner's where it is "auto".
BlockedTiles blocked_tiles(const Device& device, const Settings& settings)
{
    const std::string& chosen = settings.text("tiles");
    if (chosen == "auto") {
        return tuned_tiles(device, shape_of(settings));
    }
    const auto tiles = parse_tiles(chosen);
    if (!tiles) { // the setting is one of tile_choices(), each a candidate's name
        throw InvalidArgument(device.backend(), "matmul", "tiles=" + chosen + " names no tiles");
    }
    return *tiles;
}

} // namespace

Batch::Batch(const Device& device, const std::string& variant, const Settings& settings)
    : launcher_(device, variant, variant == "blocked" ? blocked_tiles(device, settings) : BlockedTiles{}),
      shape_(shape_of(settings)), products_(products(settings))
{
    for (std::size_t p = 0; batch_schedule(settings) != BatchSchedule::sequential && p < products_; ++p) {
        workers_.push_back(device.create_queue());
    }
}

void Batch::multiply(Queue& queue, const DeviceBuffers& buffers, std::size_t product) const
{
    launcher_.run(queue, buffers.get("a", product), buffers.get("b", product), buffers.get("c", product), shape_);
}

void Batch::multiply(Queue& queue, const DeviceBuffers& buffers) const
{
    for (std::size_t p = 0; p < products_; ++p) {
        multiply(queue, buffers, p);
    }
}

Sample Batch::pass(Pass& pass, BatchSchedule schedule)
{
    if (schedule == BatchSchedule::sequential) {
        return sequential(pass);
    }
    Queue& queue = pass.queue();
    pass.copy_in(queue);
    pass.mark(Phase::h2d);
    pass.copy_out(queue);
    pass.mark(Phase::d2h);
    pass.launch(queue);
    pass.mark(Phase::kernel);
    Sample sample = pass.sample();
    pass.poison_outputs();
    sample.total_ms = schedule == BatchSchedule::forkjoin ? forkjoin_ms(pass) : overlapped_ms(pass);
    return sample;
}

// One product after another on the pass's queue.
Sample Batch::sequential(Pass& pass) const
{
    Queue& queue = pass.queue();
    for (std::size_t p = 0; p < products_; ++p) {
        pass.copy_in(queue, "a", p);
        pass.copy_in(queue, "b", p);
        pass.mark(Phase::h2d);
        pass.space();
        multiply(queue, pass.buffers(), p);
        pass.mark(Phase::kernel);
        pass.copy_out(queue, "c", p);
        pass.mark(Phase::d2h);
    }
    return pass.sample();
}

// One queue per product, enqueued breadth-first as in the source experiment. The time runs from
// the earliest queue's start to the latest queue's end: events of one device share its clock,
// whatever their queue. No queue waits on another: the products are independent, and with every
// queue waiting on one start event, NVIDIA's OpenCL (driver 580, H200) reported no device time for
// some events of batches of 5 and 10 products of 864 and larger.
double Batch::overlapped_ms(Pass& pass)
{
    std::vector<Event> starts, ends;
    for (auto& queue : workers_) {
        starts.push_back(queue.record());
    }
    for (std::size_t p = 0; p < products_; ++p) {
        pass.copy_in(workers_[p], "a", p);
        pass.copy_in(workers_[p], "b", p);
    }
    for (std::size_t p = 0; p < products_; ++p) {
        multiply(workers_[p], pass.buffers(), p);
    }
    for (std::size_t p = 0; p < products_; ++p) {
        pass.copy_out(workers_[p], "c", p);
    }
    for (auto& queue : workers_) {
        ends.push_back(queue.record());
    }
    for (auto& queue : workers_) {
        queue.finish();
    }
    return workload::span_ms(starts, ends);
}

// The source experiment's fork-join. The fork is recorded on the pass's queue before any copy,
// since each of the experiment's streams copies its own A and B in: each worker queue waits on it,
// then copies in and multiplies. The pass's queue waits on an event of every worker (the join, the
// experiment's cudaDeviceSynchronize) and only then copies every C out, where the experiment's
// streams copy their own out before it: a read the join failed to hold back would read poison. The
// time runs between two events of the pass's queue, which waits for all the work between them,
// never of a worker: NVIDIA's OpenCL (driver 580) gave some events of queues waiting on one start
// event no device time (see overlapped_ms). A missing time shows as one not positive or longer than
// the host saw the pass take, and fails.
double Batch::forkjoin_ms(Pass& pass)
{
    Queue& main = pass.queue();
    const DeviceBuffers& buffers = pass.buffers();
    // A and B poisoned on the pass's queue just before the fork, and not waited for: a worker that
    // did not wait on the fork could copy its inputs in before the poison lands and multiply NaN.
    for (std::size_t p = 0; p < products_; ++p) {
        main.fill(buffers.get("a", p).view(0, shape_.m * shape_.k), workload::poison());
        main.fill(buffers.get("b", p).view(0, shape_.k * shape_.n), workload::poison());
    }
    Event fork, end;
    const double host_ms = workload::host_ms([&] {
        fork = main.record();
        std::vector<Event> joins;
        for (std::size_t p = 0; p < products_; ++p) {
            workers_[p].wait(fork);
            pass.copy_in(workers_[p], "a", p);
            pass.copy_in(workers_[p], "b", p);
            multiply(workers_[p], buffers, p);
            joins.push_back(workers_[p].record());
        }
        for (const auto& join : joins) {
            main.wait(join);
        }
        pass.copy_out(main, "c");
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

} // namespace duet::matmul
