// Kernel signatures read from source: qualifiers, attributes, comments and preprocessor lines
// around the entry point; each parameter's address space, element type, pointer and const.
#include "signature.hpp"

#include <gtest/gtest.h>

namespace duet::test {
namespace {

using workload::port::AddressSpace;
using workload::port::KernelParameter;
using workload::port::KernelSignature;
using workload::port::Language;
using workload::port::read_signature;

KernelSignature signature_of(const std::string& source, const std::string& entry, Language language)
{
    const auto signature = read_signature(source, entry, language);
    EXPECT_TRUE(signature.has_value()) << entry;
    return signature.value_or(KernelSignature{});
}

TEST(Signature, ACudaKernelWithAttributesAndComments)
{
    const auto signature = signature_of(R"(#include <cstdint>
#define TILE 32 \
   /* continued */
// __global__ void commented(int x)
/* __global__ void also_commented(int x) */
extern "C" __global__ void __launch_bounds__(256, 2)
scale(const float* __restrict__ in, float* out,
      unsigned int n, long long stride, float in2[])
{
}
)",
                                        "scale", Language::cuda);
    EXPECT_EQ(signature.line, 7u);
    ASSERT_EQ(signature.parameters.size(), 5u);
    const KernelParameter& in = signature.parameters[0];
    EXPECT_EQ(in.name, "in");
    EXPECT_EQ(in.declaration, "const float* __restrict__ in");
    EXPECT_EQ(in.element, "float");
    EXPECT_TRUE(in.pointer);
    EXPECT_TRUE(in.is_const);
    EXPECT_EQ(in.space, AddressSpace::global);
    EXPECT_FALSE(signature.parameters[1].is_const);
    EXPECT_EQ(signature.parameters[2].element, "uint32");
    EXPECT_EQ(signature.parameters[2].space, AddressSpace::value);
    EXPECT_EQ(signature.parameters[3].element, "int64");
    EXPECT_EQ(signature.parameters[3].line, 8u);
    EXPECT_TRUE(signature.parameters[4].pointer);
    EXPECT_EQ(signature.parameters[4].name, "in2");
}

TEST(Signature, AnOpenCLKernelWithAddressSpaces)
{
    const auto signature =
        signature_of("__kernel __attribute__((reqd_work_group_size(64, 1, 1)))\n"
                     "void reduce(global const double* restrict in, __local float* scratch, __constant int* table,\n"
                     "            const uint n, ulong m, uchar flag, float * const out_is_not_const)\n{}\n",
                     "reduce", Language::opencl);
    EXPECT_EQ(signature.line, 2u);
    ASSERT_EQ(signature.parameters.size(), 7u);
    EXPECT_EQ(signature.parameters[0].space, AddressSpace::global);
    EXPECT_EQ(signature.parameters[0].element, "double");
    EXPECT_TRUE(signature.parameters[0].is_const);
    EXPECT_EQ(signature.parameters[1].space, AddressSpace::local);
    EXPECT_EQ(signature.parameters[2].space, AddressSpace::constant);
    EXPECT_EQ(signature.parameters[3].element, "uint32");
    EXPECT_EQ(signature.parameters[3].space, AddressSpace::value);
    EXPECT_FALSE(signature.parameters[3].is_const); // a const value is just a value
    EXPECT_EQ(signature.parameters[4].element, "uint64");
    EXPECT_EQ(signature.parameters[5].element, "uint8");
    // A pointer with no address space, which OpenCL kernels may not take; the const is the pointer's.
    EXPECT_EQ(signature.parameters[6].space, AddressSpace::value);
    EXPECT_TRUE(signature.parameters[6].pointer);
    EXPECT_FALSE(signature.parameters[6].is_const);
    EXPECT_EQ(describe(signature.parameters[6]), "a pointer to float with no address space");
    EXPECT_EQ(describe(signature.parameters[1]), "a __local pointer to float");
    EXPECT_EQ(describe(signature.parameters[0]), "a global pointer to const double");
    EXPECT_EQ(describe(signature.parameters[3]), "a uint32 value");
}

TEST(Signature, TheEntryIsFoundAmongSeveralAndHelpersAreNotKernels)
{
    const std::string source = R"(__device__ float twice(float x) { return 2 * x; }
__global__ void first(int* a) {}
__global__ void second(void) {}
template <int N> __global__ void third(float* a) {}
)";
    EXPECT_EQ(workload::port::kernel_names(source, Language::cuda),
              (std::vector<std::string>{"first", "second", "third"}));
    EXPECT_FALSE(read_signature(source, "twice", Language::cuda).has_value());
    EXPECT_TRUE(signature_of(source, "second", Language::cuda).parameters.empty());
    EXPECT_EQ(signature_of(source, "third", Language::cuda).line, 4u);
    // OpenCL's spelling of the qualifier is not CUDA's.
    EXPECT_TRUE(workload::port::kernel_names(source, Language::opencl).empty());
}

TEST(Signature, AnUnreadableParameterListIsAnError)
{
    EXPECT_THROW(read_signature("__kernel void f(__global float* x", "f", Language::opencl), std::invalid_argument);
    EXPECT_THROW(read_signature("__kernel void f(__global float* x, )", "f", Language::opencl), std::invalid_argument);
    EXPECT_THROW(read_signature("__kernel void f(int)", "f", Language::opencl), std::invalid_argument);
}

} // namespace
} // namespace duet::test
