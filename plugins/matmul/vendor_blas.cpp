// cuBLAS and CLBlast behind matmul's "blas" variant, each compiled in only when CMake found it
// (DUET_MATMUL_CUBLAS, DUET_MATMUL_CLBLAST). Both libraries are column-major or take a layout;
// duet's matrices are row-major, so cuBLAS computes Cᵀ = Bᵀ·Aᵀ (the same bytes as C) and CLBlast
// is told kRowMajor.
#include "vendor_blas.hpp"

#ifdef DUET_MATMUL_CUBLAS
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#endif
#ifdef DUET_MATMUL_CLBLAST
#include <clblast.h>
#endif

namespace duet::matmul {
namespace {

[[noreturn]] void missing(const std::string& backend, const std::string& library, const std::string& how)
{
    throw Unsupported(backend, "matmul::VendorBlas",
                      "the blas variant on " + backend + " runs " + library + ", which this build of duet lacks (" +
                          how + ")");
}

#ifdef DUET_MATMUL_CUBLAS
void check_cuda(cudaError_t code, const char* call)
{
    if (code != cudaSuccess) {
        throw Error("cuda", call, code, cudaGetErrorName(code), cudaGetErrorString(code));
    }
}

void check_cublas(cublasStatus_t status, const char* call)
{
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw Error("cuda", call, status, cublasGetStatusName(status), cublasGetStatusString(status));
    }
}
#endif

} // namespace

VendorBlas::VendorBlas(const Device& device) : backend_(device.backend())
{
    if (backend_ == "cuda") {
#ifdef DUET_MATMUL_CUBLAS
        // cuBLAS works through the CUDA runtime, which numbers devices itself; the PCI address
        // names the same GPU in both. The runtime's context for it is the primary context, the
        // one duet's queues and buffers live in.
        const std::string& bus_id = device.properties().pci_bus_id;
        cuda_ordinal_ = static_cast<int>(device.index());
        if (!bus_id.empty()) {
            check_cuda(cudaDeviceGetByPCIBusId(&cuda_ordinal_, bus_id.c_str()), "cudaDeviceGetByPCIBusId");
        }
        check_cuda(cudaSetDevice(cuda_ordinal_), "cudaSetDevice");
        cublasHandle_t handle = nullptr;
        check_cublas(cublasCreate(&handle), "cublasCreate");
        cublas_ = handle;
        // FP32 throughout: TF32 tensor cores would round the inputs to 10-bit mantissas, far
        // outside the tolerance every variant is held to.
        check_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
#else
        missing(backend_, "cuBLAS", "no cuBLAS was found in a CUDA toolkit at configure time");
#endif
    } else if (backend_ == "opencl") {
#ifndef DUET_MATMUL_CLBLAST
        missing(backend_, "CLBlast",
                "CLBlast was not found at configure time: Debian's libclblast-dev, or -DCLBlast_DIR");
#endif
    } else {
        missing(backend_, "a vendor BLAS", "duet knows cuBLAS for CUDA and CLBlast for OpenCL");
    }
}

VendorBlas::~VendorBlas()
{
#ifdef DUET_MATMUL_CUBLAS
    if (cublas_ != nullptr) {
        cublasDestroy(static_cast<cublasHandle_t>(cublas_));
    }
#endif
}

// A build with neither library leaves the arguments unused: the constructor refused every device.
void VendorBlas::multiply([[maybe_unused]] Queue& queue, [[maybe_unused]] const RawBuffer& a,
                          [[maybe_unused]] const RawBuffer& b, [[maybe_unused]] const RawBuffer& c,
                          [[maybe_unused]] const Shape& shape) const
{
    [[maybe_unused]] const float alpha = 1.0f;
    [[maybe_unused]] const float beta = 0.0f;
#ifdef DUET_MATMUL_CUBLAS
    if (backend_ == "cuda") {
        const auto handle = static_cast<cublasHandle_t>(cublas_);
        check_cuda(cudaSetDevice(cuda_ordinal_), "cudaSetDevice");
        check_cublas(cublasSetStream(handle, static_cast<cudaStream_t>(queue.native())), "cublasSetStream");
        // Column-major, a row-major m × n matrix is its n × m transpose: Cᵀ = Bᵀ·Aᵀ.
        check_cublas(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(shape.n), static_cast<int>(shape.m),
                                 static_cast<int>(shape.k), &alpha, static_cast<const float*>(b.native()),
                                 static_cast<int>(shape.n), static_cast<const float*>(a.native()),
                                 static_cast<int>(shape.k), &beta, static_cast<float*>(c.native()),
                                 static_cast<int>(shape.n)),
                     "cublasSgemm");
        return;
    }
#endif
#ifdef DUET_MATMUL_CLBLAST
    if (backend_ == "opencl") {
        auto native_queue = static_cast<cl_command_queue>(queue.native());
        const auto status = clblast::Gemm<float>(
            clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo, shape.m, shape.n, shape.k,
            alpha, static_cast<cl_mem>(a.native()), 0, shape.k, static_cast<cl_mem>(b.native()), 0, shape.n, beta,
            static_cast<cl_mem>(c.native()), 0, shape.n, &native_queue, nullptr);
        if (status != clblast::StatusCode::kSuccess) {
            throw Error("opencl", "clblast::Gemm", static_cast<int>(status), "",
                        "CLBlast's SGEMM failed with status " + std::to_string(static_cast<int>(status)) +
                            " (negative: an OpenCL error code; -1024 and below: CLBlast's own, see clblast.h)");
        }
        return;
    }
#endif
}

} // namespace duet::matmul
