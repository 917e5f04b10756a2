// MpiCommunicator's exchanges on every rank's own device, per backend and path: all-reduce,
// all-gather with even and uneven blocks, halo exchange, their records, and the arguments refused. Every
// rank runs the same cases; each exchange is collective, so every rank reaches it before any
// assertion that might end a case early.
#include "distributed.hpp"

#include <devices.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace duet::test {
namespace {

using distributed::MpiCommunicator;
using workload::Communicator;
using workload::ElementType;
using workload::ExchangePath;
using workload::ReduceOp;

struct PathParam {
    std::string name;
    std::string backend;
    std::optional<ExchangePath> requested; ///< nullopt: auto
    ExchangePath expected;
};

void PrintTo(const PathParam& param, std::ostream* os)
{
    *os << param.name;
}

/// OpenCL always stages; CUDA is run on each path, each skipping where this machine lacks it.
const std::vector<PathParam> paths{
    {"opencl_auto", "opencl", std::nullopt, ExchangePath::staged},
    {"opencl_staged", "opencl", ExchangePath::staged, ExchangePath::staged},
    {"cuda_staged", "cuda", ExchangePath::staged, ExchangePath::staged},
    {"cuda_device_pointers", "cuda", ExchangePath::device_pointers, ExchangePath::device_pointers},
    {"cuda_nccl", "cuda", ExchangePath::nccl, ExchangePath::nccl},
};

class Exchange : public ::testing::TestWithParam<PathParam> {
protected:
    void SetUp() override
    {
        std::vector<Device> candidates;
        std::string reason;
        for (const DeviceParam& param : backend_params(GetParam().backend)) {
            if (param.device) {
                candidates.push_back(*param.device);
            } else {
                reason = param.skip_reason;
            }
        }
        if (candidates.empty()) {
            GTEST_SKIP() << GetParam().backend << ": " << reason;
        }
        if (static_cast<std::size_t>(world().local_size()) > candidates.size()) {
            GTEST_SKIP() << world().local_size() << " ranks on this node but " << candidates.size() << " "
                         << GetParam().backend << " devices";
        }
        device_.emplace(distributed::rank_device(candidates, world()));
        queue_.emplace(device_->create_queue());
        try {
            communicator_ = std::make_unique<MpiCommunicator>(world(), *device_, GetParam().requested);
        } catch (const Unsupported& error) {
            // Agreed by every rank, so every rank skips alike.
            GTEST_SKIP() << error.what();
        }
    }

    MpiCommunicator& communicator() { return *communicator_; }
    Queue& queue() { return *queue_; }
    int rank() const { return world().rank(); }
    int ranks() const { return world().size(); }

    template <class T> Buffer<T> upload(const std::vector<T>& values)
    {
        Buffer<T> buffer = device_->alloc<T>(values.size());
        queue().write(buffer, values);
        return buffer;
    }
    template <class T> std::vector<T> download(const Buffer<T>& buffer)
    {
        std::vector<T> values(buffer.size());
        queue().read(std::span<T>(values), buffer);
        queue().finish();
        return values;
    }

    void expect_record(const workload::ExchangeRecord& record, const char* exchange, std::uint64_t bytes)
    {
        EXPECT_EQ(record.exchange, exchange);
        EXPECT_EQ(record.path, GetParam().expected) << to_string(record.path);
        EXPECT_EQ(record.bytes, bytes);
        record.end.wait();
        EXPECT_GE(elapsed_ms(record.start, record.end), 0.0);
    }

    /// All-reduce of `count` elements at offset 5 of a buffer with 3 more after them, each rank's
    /// values from `value(rank, i)`: the elements outside keep their sentinel.
    template <class T, class Value> void all_reduce_case(ReduceOp op, Value value)
    {
        constexpr std::size_t offset = 5;
        constexpr std::size_t count = 37;
        const T sentinel = T(-99);
        std::vector<T> host(offset + count + 3, sentinel);
        for (std::size_t i = 0; i < count; ++i) {
            host[offset + i] = value(rank(), i);
        }
        const Buffer<T> buffer = upload(host);
        const auto record =
            communicator().all_reduce(queue(), buffer.raw(), offset, count, workload::element_type_of<T>, op);
        const std::vector<T> result = download(buffer);

        expect_record(record, "all_reduce", count * sizeof(T));
        for (std::size_t i = 0; i < host.size(); ++i) {
            if (i < offset || i >= offset + count) {
                EXPECT_EQ(result[i], sentinel) << "element " << i << " outside the range";
                continue;
            }
            T expected = value(0, i - offset);
            for (int r = 1; r < ranks(); ++r) {
                const T other = value(r, i - offset);
                expected = op == ReduceOp::sum   ? T(expected + other)
                           : op == ReduceOp::max ? std::max(expected, other)
                                                 : std::min(expected, other);
            }
            EXPECT_EQ(result[i], expected) << "element " << i << ", " << to_string(op);
        }
    }

    std::optional<Device> device_;
    std::optional<Queue> queue_;
    std::unique_ptr<MpiCommunicator> communicator_;
};

// Values whose sums are exact in any order (multiples of 1/4 well inside the mantissa), so that
// the reduction's order, which MPI and NCCL choose, cannot change the result.
template <class T> T quarter(int rank, std::size_t i)
{
    return T(static_cast<double>((rank + 1) * 7 + static_cast<int>(i) * 3 - 40) / 4);
}
template <class T> T integer(int rank, std::size_t i)
{
    return T((rank + 1) * 1000003 - static_cast<int>(i) * 7919);
}

TEST_P(Exchange, AllReduceSumMaxMinOfFloatDoubleInt32)
{
    for (const ReduceOp op : {ReduceOp::sum, ReduceOp::max, ReduceOp::min}) {
        all_reduce_case<float>(op, quarter<float>);
        all_reduce_case<double>(op, quarter<double>);
        all_reduce_case<std::int32_t>(op, integer<std::int32_t>);
    }
}

TEST_P(Exchange, AllGatherOfEvenAndUnevenBlocksIncludingEmptyOnes)
{
    // Even blocks (NCCL's all-gather), then rank 1's block empty, then rank 0's (NCCL's broadcasts):
    // every rank's block reaches every rank each way.
    const std::vector<std::vector<std::size_t>> count_sets{
        std::vector<std::size_t>(static_cast<std::size_t>(ranks()), 5),
        [&] {
            std::vector<std::size_t> counts;
            for (int r = 0; r < ranks(); ++r) {
                counts.push_back(r == 1 ? 0 : 2 * static_cast<std::size_t>(r) + 3);
            }
            return counts;
        }(),
        [&] {
            std::vector<std::size_t> counts;
            for (int r = 0; r < ranks(); ++r) {
                counts.push_back(r == 0 ? 0 : static_cast<std::size_t>(r) + 4);
            }
            return counts;
        }(),
    };
    for (const auto& counts : count_sets) {
        std::size_t total = 0;
        std::size_t own_start = 0;
        for (int r = 0; r < ranks(); ++r) {
            own_start += r < rank() ? counts[static_cast<std::size_t>(r)] : 0;
            total += counts[static_cast<std::size_t>(r)];
        }
        const std::size_t own = counts[static_cast<std::size_t>(rank())];
        std::vector<std::int32_t> host(total + 4, -1);
        for (std::size_t i = 0; i < own; ++i) {
            host[own_start + i] = 1000 * rank() + static_cast<std::int32_t>(i);
        }
        const Buffer<std::int32_t> buffer = upload(host);
        const auto record = communicator().all_gather(queue(), buffer.raw(), counts, ElementType::i32);
        const std::vector<std::int32_t> result = download(buffer);

        expect_record(record, "all_gather", total * sizeof(std::int32_t));
        std::size_t at = 0;
        for (int r = 0; r < ranks(); ++r) {
            for (std::size_t i = 0; i < counts[static_cast<std::size_t>(r)]; ++i, ++at) {
                EXPECT_EQ(result[at], 1000 * r + static_cast<std::int32_t>(i)) << "rank " << r << "'s element " << i;
            }
        }
        for (; at < result.size(); ++at) {
            EXPECT_EQ(result[at], -1) << "element " << at << " past the blocks";
        }
    }
}

TEST_P(Exchange, HaloExchangeFillsInteriorHalosAndLeavesTheEnds)
{
    // [low halo | interior | high halo], the interior's first and last `h` rows sent.
    constexpr std::size_t h = 3;
    constexpr std::size_t m = 11;
    const Communicator::Halo halo{h, 0, m, h + m, h};
    const auto interior = [](int r, std::size_t i) { return 100.0 * r + static_cast<double>(i) + 0.5; };
    std::vector<double> host(h + m + h, -7.0);
    for (std::size_t i = 0; i < m; ++i) {
        host[h + i] = interior(rank(), i);
    }
    const Buffer<double> buffer = upload(host);
    const auto record = communicator().halo_exchange(queue(), buffer.raw(), halo, ElementType::f64);
    const std::vector<double> result = download(buffer);

    const int neighbours = (rank() > 0 ? 1 : 0) + (rank() + 1 < ranks() ? 1 : 0);
    expect_record(record, "halo_exchange", 2 * neighbours * h * sizeof(double));
    for (std::size_t i = 0; i < h; ++i) {
        EXPECT_EQ(result[i], rank() > 0 ? interior(rank() - 1, m - h + i) : -7.0) << "low halo " << i;
        EXPECT_EQ(result[h + m + i], rank() + 1 < ranks() ? interior(rank() + 1, i) : -7.0) << "high halo " << i;
    }
    for (std::size_t i = 0; i < m; ++i) {
        EXPECT_EQ(result[h + i], interior(rank(), i)) << "interior " << i;
    }
}

TEST_P(Exchange, RefusesCountsOfTheWrongLengthAndRangesPastTheEnd)
{
    const Buffer<float> buffer = device_->alloc<float>(16);
    const std::vector<std::size_t> one_too_many(static_cast<std::size_t>(ranks()) + 1, 1);
    try {
        communicator().all_gather(queue(), buffer.raw(), one_too_many, ElementType::f32);
        ADD_FAILURE() << "all_gather took " << one_too_many.size() << " counts for " << ranks() << " ranks";
    } catch (const InvalidArgument& error) {
        EXPECT_NE(std::string(error.what()).find("all_gather"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what())
                      .find(std::to_string(ranks() + 1) + " counts for " + std::to_string(ranks()) +
                            (ranks() == 1 ? " rank" : " ranks")),
                  std::string::npos)
            << error.what();
    }
    try {
        communicator().all_reduce(queue(), buffer.raw(), 10, 10, ElementType::f32, ReduceOp::sum);
        ADD_FAILURE() << "all_reduce took elements 10 to 20 of 16";
    } catch (const InvalidArgument& error) {
        EXPECT_NE(std::string(error.what()).find("all_reduce"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("ends at byte 80, past the buffer's 64 bytes"), std::string::npos)
            << error.what();
    }
    try {
        // Each halo received onto the one sent to the same neighbour, refused on every rank with one.
        communicator().halo_exchange(queue(), buffer.raw(), {4, 4, 10, 10, 2}, ElementType::f32);
        if (ranks() > 1) {
            ADD_FAILURE() << "halo_exchange took overlapping ranges";
        }
    } catch (const InvalidArgument& error) {
        EXPECT_NE(std::string(error.what()).find("overlaps"), std::string::npos) << error.what();
    }
}

TEST_P(Exchange, HostSideGatherTextAndMaxAndSumOverRanks)
{
    const auto texts = communicator().gather_text("rank " + std::to_string(rank()));
    const double largest = communicator().max_over_ranks(rank());
    const double sum = communicator().sum_over_ranks(rank() + 1);
    if (rank() == 0) {
        ASSERT_EQ(texts.size(), static_cast<std::size_t>(ranks()));
        for (int r = 0; r < ranks(); ++r) {
            EXPECT_EQ(texts[static_cast<std::size_t>(r)], "rank " + std::to_string(r));
        }
    } else {
        EXPECT_TRUE(texts.empty());
    }
    EXPECT_EQ(largest, ranks() - 1);
    EXPECT_EQ(sum, ranks() * (ranks() + 1) / 2);
    EXPECT_EQ(communicator().path(), GetParam().expected);
    EXPECT_NE(communicator().describe().find(std::to_string(ranks()) + (ranks() == 1 ? " rank" : " ranks")),
              std::string::npos)
        << communicator().describe();
}

TEST_P(Exchange, GathersTextsPastMpisIntCountAfterABarrier)
{
    // Host-side, so one path tells: the last rank's text is over 1 GiB, the piece MPI carries at a
    // time, and the outputs rank 0 gathers this way may pass 2 GiB (INT_MAX bytes).
    if (GetParam().name != "opencl_staged") {
        GTEST_SKIP() << "host-side: checked once, on opencl_staged";
    }
    DUET_REQUIRE_TWO_RANKS();
    communicator().barrier();
    const std::size_t long_length = (std::size_t{1} << 30) + 3;
    const bool last = rank() == ranks() - 1;
    std::string text = last ? std::string(long_length, 'x') : "rank " + std::to_string(rank());
    if (last) {
        text.back() = 'z';                      // the second piece's last byte
        text[(std::size_t{1} << 30) - 1] = 'y'; // the first piece's last byte
    }
    const auto texts = communicator().gather_text(text);
    text.clear();
    text.shrink_to_fit();
    if (rank() != 0) {
        EXPECT_TRUE(texts.empty());
        return;
    }
    ASSERT_EQ(texts.size(), static_cast<std::size_t>(ranks()));
    const std::string& received = texts.back();
    ASSERT_EQ(received.size(), long_length);
    EXPECT_EQ(received[(std::size_t{1} << 30) - 1], 'y');
    EXPECT_EQ(received.back(), 'z');
    EXPECT_EQ(std::count(received.begin(), received.end(), 'x'), static_cast<std::ptrdiff_t>(long_length - 2));
    for (int r = 0; r + 1 < ranks(); ++r) {
        EXPECT_EQ(texts[static_cast<std::size_t>(r)], "rank " + std::to_string(r));
    }
}

INSTANTIATE_TEST_SUITE_P(Paths, Exchange, ::testing::ValuesIn(paths),
                         [](const ::testing::TestParamInfo<PathParam>& info) { return info.param.name; });

} // namespace
} // namespace duet::test
