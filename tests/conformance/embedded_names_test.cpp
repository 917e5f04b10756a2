// duet_embed_kernels() under names other than the files': this binary embeds tests/embed/naive/step.{cl,cu}
// as step_naive and tests/embed/pyramid/step.{cl,cu} as step_pyramid, two programs of one target
// from files of one name. Each program carries its own name and its own files' bytes, and runs its
// own kernel on every device.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <duet_kernels/step_naive.hpp>
#include <duet_kernels/step_pyramid.hpp>

#include "duet_test.hpp"

namespace duet::test {
namespace {

std::string file_text(const std::filesystem::path& path)
{
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

std::string image_text(const ProgramSource& source, ProgramFormat format)
{
    for (const ProgramImage& image : source.images) {
        if (image.format == format) {
            return std::string(image.data);
        }
    }
    ADD_FAILURE() << source.name << " ships no " << to_string(format) << " image";
    return {};
}

TEST(EmbeddedNames, EachProgramHasItsNameAndItsOwnFilesBytes)
{
    const std::filesystem::path folder = DUET_EMBED_FIXTURE_DIR;
    const ProgramSource& naive = kernels::step_naive();
    const ProgramSource& pyramid = kernels::step_pyramid();
    EXPECT_EQ(naive.name, "step_naive");
    EXPECT_EQ(pyramid.name, "step_pyramid");
    EXPECT_EQ(image_text(naive, ProgramFormat::opencl_c), file_text(folder / "naive" / "step.cl"));
    EXPECT_EQ(image_text(naive, ProgramFormat::cuda_c), file_text(folder / "naive" / "step.cu"));
    EXPECT_EQ(image_text(pyramid, ProgramFormat::opencl_c), file_text(folder / "pyramid" / "step.cl"));
    EXPECT_EQ(image_text(pyramid, ProgramFormat::cuda_c), file_text(folder / "pyramid" / "step.cu"));
    EXPECT_NE(image_text(naive, ProgramFormat::opencl_c), image_text(pyramid, ProgramFormat::opencl_c));
}

class EmbeddedNamesOnDevice : public DeviceTest {
protected:
    std::vector<float> run_fill_index(const ProgramSource& source, std::size_t n)
    {
        const Kernel fill_index = cached_program(device(), source).kernel("fill_index");
        Buffer<float> out = device().alloc<float>(n);
        queue().fill(BufferView<float>(out), poison());
        queue().launch(fill_index, Range::cover(n, 64), out, static_cast<std::uint32_t>(n));
        return download(queue(), out);
    }
};

// On CUDA with nvcc at build time this runs each program's own fatbin.
TEST_P(EmbeddedNamesOnDevice, EachProgramRunsItsOwnKernel)
{
    const std::size_t n = 100;
    std::vector<float> naive(n);
    std::vector<float> pyramid(n);
    for (std::size_t i = 0; i < n; ++i) {
        naive[i] = static_cast<float>(i);
        pyramid[i] = 2.0f * static_cast<float>(i);
    }
    EXPECT_TRUE(bitwise_equal(naive, run_fill_index(kernels::step_naive(), n)));
    EXPECT_TRUE(bitwise_equal(pyramid, run_fill_index(kernels::step_pyramid(), n)));
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(EmbeddedNamesOnDevice);

} // namespace
} // namespace duet::test
