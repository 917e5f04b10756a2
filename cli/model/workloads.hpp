// How the commands name workloads and their parameters: lookup with the list of what exists,
// parameter descriptions, and the settings a command line asks for.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <duet/duet.hpp>
#include <duet/workload.hpp>

#include "model/usage_error.hpp"

namespace duet::cli {

/// No workload has the name asked for: a UsageError that keeps the name, so that the command line
/// can say how that word was read (Arguments::file_note).
class UnknownWorkload : public UsageError {
public:
    UnknownWorkload(std::string name, const std::string& message) : UsageError(message), name_(std::move(name)) {}
    const std::string& name() const { return name_; }

private:
    std::string name_;
};

/// The workload called `name`; an UnknownWorkload listing the workloads (and plugins that failed to
/// load, with why) when there is none.
std::shared_ptr<const Workload> find_workload(const std::string& name);
/// Every workload; a UsageError when no workload plugin loaded.
const std::vector<std::shared_ptr<const Workload>>& all_workloads();

/// "n=1000 block=64", in the parameters' order.
std::string describe_settings(const WorkloadInfo& info, const std::map<std::string, std::string>& values);

/// The variants to run: all of them when `wanted` is empty, else those named; a name that is not
/// a variant of `info` is a UsageError listing its variants.
std::vector<std::string> pick_variants(const WorkloadInfo& info, const std::vector<std::string>& wanted);

/// Settings from --set values; an unknown parameter or a bad value is a UsageError that lists the
/// parameters or names the accepted range.
Settings make_settings(const WorkloadInfo& info, const std::map<std::string, std::string>& values);

} // namespace duet::cli
