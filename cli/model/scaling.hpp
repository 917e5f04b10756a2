// One workload run on 1, 2, ... ranks (`duet scale`): each API's time at each rank count, with the
// communication share, the speedup and efficiency against one rank, and OpenCL against CUDA.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace duet::cli {

struct ScalePoint {
    std::string api; ///< "CUDA", "OpenCL (NVIDIA)"
    std::string variant;
    std::string devices; ///< every rank's device, "cuda:0+1"
    /// For an OpenCL point, the CUDA point's devices on the same GPUs (compare's CUDA/OpenCL pairs),
    /// which its OpenCL/CUDA ratio is taken against; empty where none is.
    std::string cuda_twin;
    int ranks = 1;
    std::string status; ///< the compare run's: "ok", "wrong", "unsupported", "failed"
    std::string reason;
    std::string exchanges;                  ///< how the exchanges went between the ranks (Measurement::exchanges)
    std::string settings;                   ///< the workload's settings at this rank count (weak scaling grows one)
    double time_ms = 0;                     ///< the timed loop: kernels and communication, the slowest rank's medians
    double communication_ms = 0;            ///< of which exchanges between ranks
    std::optional<double> speedup;          ///< strong: one rank's time over this; none for weak scaling
    std::optional<double> efficiency;       ///< strong: speedup / ranks; weak: one rank's time over this
    std::optional<double> opencl_over_cuda; ///< OpenCL's time over CUDA's at this rank count and variant

    double communication_share() const { return time_ms > 0 ? communication_ms / time_ms : 0; }
};

struct Scaling {
    std::string workload;
    std::string weak; ///< the parameter grown with the ranks; empty for strong scaling
    std::vector<int> ranks;
    std::vector<ScalePoint> points; ///< by API and variant, then ranks
    std::vector<std::string> problems;
};

/// Fills each point's speedup, efficiency and OpenCL/CUDA ratio from the others' times.
void derive_scaling(Scaling& scaling);

} // namespace duet::cli
