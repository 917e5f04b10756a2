// matmul's "blas" variant: the vendor's SGEMM on duet's own queue and buffers, through their
// native handles: cuBLAS on CUDA, CLBlast on OpenCL. Either is optional at build time.
#pragma once

#include "matmul.hpp"

#include <string>

namespace duet::matmul {

class VendorBlas {
public:
    /// Unsupported, naming the library, when this build has no BLAS for the device's backend.
    explicit VendorBlas(const Device& device);
    ~VendorBlas();
    VendorBlas(const VendorBlas&) = delete;
    VendorBlas& operator=(const VendorBlas&) = delete;

    /// Enqueues C = A × B (row-major) on `queue`; returns without waiting.
    void multiply(Queue& queue, const RawBuffer& a, const RawBuffer& b, const RawBuffer& c, const Shape& shape) const;

private:
    std::string backend_;
    void* cublas_ = nullptr; ///< cublasHandle_t, on CUDA
    int cuda_ordinal_ = 0;   ///< the CUDA runtime's number for the device
};

} // namespace duet::matmul
