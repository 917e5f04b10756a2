// Sentences about the model for tables, messages and the report: a verdict's summary, the timing
// rule, a parameter's accepted values.
#pragma once

#include <map>
#include <ostream>
#include <string>

#include <duet/workload.hpp>

#include "model/runs.hpp"

namespace duet::cli {

/// "16 runs: 15 checked, 1 unsupported. All agree with the CPU reference." or, when not,
/// "... Nothing was checked." or "... 2 problems."
std::string verdict_summary(const Verdict& verdict);
/// "1 warm-up pass, then 5 to 100 timed passes until the median is within ±1% (or 1 s)"; with
/// `in_turns`, that the devices of a variant take their passes in turn.
std::string describe_timing(const workload::Timing& timing, bool in_turns = false);
/// "build options after each program's own: cuda: -use_fast_math (NVRTC: a fatbin takes no options);
/// opencl: -cl-fast-relaxed-math", from --options' flags by API; "" where none was given.
std::string describe_build_flags(const std::map<std::string, std::string>& flags);
/// "note: cuda unavailable: <why>", a line for each backend of the global registry that did not load.
void print_unavailable_backends(std::ostream& out);
/// "integer 1..1024", "real 0..1", "one of naive, shared".
std::string accepted_values(const WorkloadParameter& parameter);

} // namespace duet::cli
