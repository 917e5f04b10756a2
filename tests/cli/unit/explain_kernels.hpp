// Made-up figures for the explain tests: a mix read from PTX that nvcc wrote (tests/cli/data/ptx),
// a GPU of a compute capability, and a kernel of a name with a mix, or with none and why.
#pragma once

#include "model/explain.hpp"

#include <duet/detail/file.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

namespace duet::cli {

/// The mix of `entry` in the PTX file `file` of tests/cli/data/ptx.
inline InstructionMix mix_in(const std::string& file, const std::string& entry)
{
    std::string content;
    EXPECT_EQ(detail::read_regular_file(std::string(DUET_TEST_PTX_DIR) + "/" + file, 1 << 20, content), "") << file;
    return mix_of(content, entry);
}

/// A GPU of compute capability `major`.`minor`, nothing else known.
inline DeviceProperties gpu(std::uint32_t major, std::uint32_t minor)
{
    DeviceProperties device;
    device.type = DeviceType::gpu;
    device.compute_capability_major = major;
    device.compute_capability_minor = minor;
    return device;
}

/// A kernel named `name` with `mix`, or without one because the driver keeps no PTX.
inline ExplainedKernel kernel_named(const std::string& name, std::optional<InstructionMix> mix)
{
    ExplainedKernel kernel;
    kernel.name = name;
    kernel.mix = std::move(mix);
    kernel.mix_absent = kernel.mix ? "" : "the driver keeps no PTX";
    return kernel;
}

} // namespace duet::cli
