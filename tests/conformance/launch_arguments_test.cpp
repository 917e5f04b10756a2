// A launch with more arguments than the core packs in place (16): each reaches the kernel in its
// position, launched at once and recorded into a sequence, whose copies of the values outlive
// the caller's.
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "duet_test.hpp"

namespace duet::test {
namespace {

constexpr std::uint32_t values = 19; // with the output buffer, 20 arguments

/// many(out, a0, ..., a18): out[k] = ak, in OpenCL C and CUDA (kept here: a ProgramSource views them).
struct ManyArguments {
    std::string opencl = "__kernel void many(__global unsigned int* out";
    std::string cuda = "extern \"C\" __global__ void many(unsigned int* out";

    ManyArguments()
    {
        std::string parameters, body;
        for (std::uint32_t k = 0; k < values; ++k) {
            parameters += ", unsigned int a" + std::to_string(k);
            body += " out[" + std::to_string(k) + "] = a" + std::to_string(k) + ";";
        }
        for (std::string* source : {&opencl, &cuda}) {
            *source += parameters + ") {" + body + " }\n";
        }
    }
    ProgramSource source() const
    {
        return {"many_arguments", {{ProgramFormat::opencl_c, opencl}, {ProgramFormat::cuda_c, cuda}}};
    }
};

/// first, first + 1, ...: one number for each value argument.
std::vector<std::uint32_t> counting_from(std::uint32_t first)
{
    std::vector<std::uint32_t> numbers(values);
    std::iota(numbers.begin(), numbers.end(), first);
    return numbers;
}

using LaunchArguments = DeviceTest;

TEST_P(LaunchArguments, MoreThanSixteenReachTheKernelInOrderLaunchedAndRecorded)
{
    const Kernel kernel = device().build(ManyArguments().source()).kernel("many");
    Buffer<std::uint32_t> out = make_buffer(device(), queue(), std::vector<std::uint32_t>(values, 0));
    const auto launch = [&](Queue& on, std::uint32_t first) {
        const std::vector<std::uint32_t> numbers = counting_from(first); // gone before the sequence replays
        std::vector<detail::LaunchArg> args{detail::launch_arg(out)};
        for (const std::uint32_t& number : numbers) {
            args.push_back(detail::launch_arg(number));
        }
        on.launch(kernel, Range::grid_block(1, 1), std::span<const detail::LaunchArg>(args));
    };

    launch(queue(), 100);
    EXPECT_EQ(download(queue(), out), counting_from(100));

    const Sequence sequence = queue().record_sequence([&](Queue& recording) { launch(recording, 500); });
    queue().fill(BufferView<std::uint32_t>(out), 0u);
    queue().replay(sequence);
    EXPECT_EQ(download(queue(), out), counting_from(500)) << "replayed with " << to_string(sequence.method());
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(LaunchArguments);

} // namespace
} // namespace duet::test
