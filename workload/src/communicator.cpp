// The exchanges' argument checks and timing, shared by every communicator, and the one-rank
// communicator.
#include <duet/workload/communicator.hpp>

#include <duet/detail/saturating.hpp>
#include <duet/detail/text.hpp>
#include <duet/error.hpp>

namespace duet::workload {

std::string_view to_string(ExchangePath path)
{
    switch (path) {
    case ExchangePath::staged:
        return "staged through pinned host memory";
    case ExchangePath::device_pointers:
        return "device pointers to CUDA-aware MPI";
    case ExchangePath::nccl:
        return "NCCL";
    case ExchangePath::local:
        break;
    }
    return "one rank";
}

std::string_view to_string(ReduceOp op)
{
    switch (op) {
    case ReduceOp::max:
        return "max";
    case ReduceOp::min:
        return "min";
    case ReduceOp::sum:
        break;
    }
    return "sum";
}

namespace {

/// Elements [first, first + count) of one buffer, in bytes, saturating: a range too large for
/// any machine still reads as past the end.
struct ByteRange {
    std::uint64_t begin;
    std::uint64_t end;
};

ByteRange bytes_of(std::size_t first, std::size_t count, ElementType type)
{
    const std::uint64_t begin = detail::saturating_multiply(first, element_size(type));
    return {begin, detail::saturating_add(begin, detail::saturating_multiply(count, element_size(type)))};
}

/// Checks what every exchange shares, and returns the backend to name in its errors.
std::string check_queue_and_buffer(const Communicator& communicator, const Queue& queue, const RawBuffer& buffer,
                                   const std::string& call)
{
    if (!buffer) {
        throw InvalidArgument("duet", call, "the buffer is empty (a default-constructed RawBuffer)");
    }
    const Device queue_device = queue.device();
    const Device buffer_device = buffer.device();
    if (!(queue_device == buffer_device)) {
        throw InvalidArgument(queue_device.backend(), call,
                              "the buffer is on device " + buffer_device.selector() + " but the queue on " +
                                  queue_device.selector() + ": an exchange runs on the buffer's own device");
    }
    if (const auto own = communicator.device(); own && !(*own == queue_device)) {
        throw InvalidArgument(queue_device.backend(), call,
                              "the queue is on device " + queue_device.selector() +
                                  " but this rank's exchanges run on " + own->selector());
    }
    return queue_device.backend();
}

void check_inside(const std::string& backend, const std::string& call, const std::string& what, std::size_t first,
                  std::size_t count, ElementType type, const RawBuffer& buffer)
{
    const ByteRange range = bytes_of(first, count, type);
    if (range.end > buffer.bytes()) {
        throw InvalidArgument(backend, call,
                              what + " (elements " + std::to_string(first) + " to " + std::to_string(first) + " + " +
                                  std::to_string(count) + " of " + std::string(to_string(type)) + ") ends at byte " +
                                  std::to_string(range.end) + ", past the buffer's " +
                                  detail::bytes_text(buffer.bytes()));
    }
}

bool overlap(std::size_t a, std::size_t b, std::size_t count)
{
    return count > 0 && a < b + count && b < a + count;
}

/// Times `exchange` (which returns its path) on `queue`: the record of one exchange, also appended
/// to `log` where one is kept.
template <class Exchange>
ExchangeRecord timed(const char* name, Queue& queue, std::uint64_t bytes, std::vector<ExchangeRecord>* log,
                     Exchange&& exchange)
{
    ExchangeRecord record{name, ExchangePath::local, bytes, queue.record(), {}};
    record.path = exchange();
    record.end = queue.record();
    if (record.path == ExchangePath::local) {
        record.bytes = 0;
    }
    if (log != nullptr) {
        log->push_back(record);
    }
    return record;
}

} // namespace

Communicator::~Communicator() = default;

ExchangeRecord Communicator::all_reduce(Queue& queue, const RawBuffer& buffer, std::size_t offset, std::size_t count,
                                        ElementType type, ReduceOp op)
{
    const std::string call = "Communicator::all_reduce";
    const std::string backend = check_queue_and_buffer(*this, queue, buffer, call);
    check_inside(backend, call, "the reduced range", offset, count, type, buffer);
    return timed("all_reduce", queue, count * element_size(type), log_,
                 [&] { return reduce(queue, buffer, offset, count, type, op); });
}

ExchangeRecord Communicator::all_gather(Queue& queue, const RawBuffer& buffer, std::span<const std::size_t> counts,
                                        ElementType type)
{
    const std::string call = "Communicator::all_gather";
    const std::string backend = check_queue_and_buffer(*this, queue, buffer, call);
    if (counts.size() != static_cast<std::size_t>(size())) {
        throw InvalidArgument(backend, call,
                              std::to_string(counts.size()) + " counts for " + std::to_string(size()) +
                                  (size() == 1 ? " rank" : " ranks") + ": one count per rank");
    }
    std::uint64_t total = 0;
    for (const std::size_t count : counts) {
        total = detail::saturating_add(total, count);
    }
    check_inside(backend, call, "the gathered blocks", 0, total, type, buffer);
    return timed("all_gather", queue, total * element_size(type), log_,
                 [&] { return gather(queue, buffer, counts, type); });
}

ExchangeRecord Communicator::halo_exchange(Queue& queue, const RawBuffer& buffer, const Halo& halo, ElementType type)
{
    const std::string call = "Communicator::halo_exchange";
    const std::string backend = check_queue_and_buffer(*this, queue, buffer, call);
    const bool low = rank() > 0;
    const bool high = rank() + 1 < size();
    if (low) {
        check_inside(backend, call, "the low halo sent", halo.send_low, halo.count, type, buffer);
        check_inside(backend, call, "the low halo received", halo.recv_low, halo.count, type, buffer);
    }
    if (high) {
        check_inside(backend, call, "the high halo sent", halo.send_high, halo.count, type, buffer);
        check_inside(backend, call, "the high halo received", halo.recv_high, halo.count, type, buffer);
    }
    // A receive that overlaps another range would make the result depend on the order of the transfers.
    const auto refuse_overlap = [&](const char* received, std::size_t at, const char* other, std::size_t other_at) {
        if (overlap(at, other_at, halo.count)) {
            throw InvalidArgument(backend, call,
                                  std::string(received) + " (from element " + std::to_string(at) + ") overlaps " +
                                      other + " (from element " + std::to_string(other_at) + "), " +
                                      std::to_string(halo.count) + " elements each: the ranges must be apart");
        }
    };
    if (low) {
        refuse_overlap("the low halo received", halo.recv_low, "the low halo sent", halo.send_low);
    }
    if (high) {
        refuse_overlap("the high halo received", halo.recv_high, "the high halo sent", halo.send_high);
    }
    if (low && high) {
        refuse_overlap("the low halo received", halo.recv_low, "the high halo sent", halo.send_high);
        refuse_overlap("the high halo received", halo.recv_high, "the low halo sent", halo.send_low);
        refuse_overlap("the low halo received", halo.recv_low, "the high halo received", halo.recv_high);
    }
    const std::uint64_t neighbours = (low ? 1 : 0) + (high ? 1 : 0);
    return timed("halo_exchange", queue, 2 * neighbours * halo.count * element_size(type), log_,
                 [&] { return exchange_halos(queue, buffer, halo, type); });
}

namespace {

class OneRank final : public Communicator {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::string describe() const override { return "one rank"; }
    std::optional<Device> device() const override { return std::nullopt; }

    std::vector<std::string> gather_text(const std::string& text) override { return {text}; }
    double max_over_ranks(double value) override { return value; }
    double sum_over_ranks(double value) override { return value; }
    void barrier() override {}
    [[noreturn]] void abort(const std::string& message) override { throw Error("duet", "one_rank", message); }

protected:
    // One rank already holds the reduction, the gathered block and no halo from anyone.
    ExchangePath reduce(Queue&, const RawBuffer&, std::size_t, std::size_t, ElementType, ReduceOp) override
    {
        return ExchangePath::local;
    }
    ExchangePath gather(Queue&, const RawBuffer&, std::span<const std::size_t>, ElementType) override
    {
        return ExchangePath::local;
    }
    ExchangePath exchange_halos(Queue&, const RawBuffer&, const Halo&, ElementType) override
    {
        return ExchangePath::local;
    }
};

} // namespace

Communicator& one_rank()
{
    static OneRank communicator;
    return communicator;
}

} // namespace duet::workload
