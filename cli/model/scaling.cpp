// The figures of a scaling run derived from its times.
#include "model/scaling.hpp"

namespace duet::cli {

void derive_scaling(Scaling& scaling)
{
    for (auto& point : scaling.points) {
        if (point.status != "ok" || point.time_ms <= 0) {
            continue;
        }
        for (const auto& other : scaling.points) {
            if (other.status != "ok" || other.time_ms <= 0 || other.variant != point.variant) {
                continue;
            }
            if (other.api == point.api && other.ranks == 1) {
                if (scaling.weak.empty()) {
                    point.speedup = other.time_ms / point.time_ms;
                    point.efficiency = *point.speedup / point.ranks;
                } else {
                    point.efficiency = other.time_ms / point.time_ms;
                }
            }
            if (other.ranks == point.ranks && !point.cuda_twin.empty() && other.devices == point.cuda_twin) {
                point.opencl_over_cuda = point.time_ms / other.time_ms;
            }
        }
    }
}

} // namespace duet::cli
