// fork and exec with the output redirected to files in a scratch directory.
#include "process.hpp"

#include "environment.hpp"
#include "json_reader.hpp"

#include <duet/detail/plugins.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace duet::test {

namespace {

std::vector<std::string> environment_for(const EnvChanges& changes)
{
    std::map<std::string, std::string> variables;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string text = *entry;
        const auto equals = text.find('=');
        const std::string name = text.substr(0, equals);
        if (name.rfind("DUET_", 0) != 0 || name == "DUET_CACHE_DIR") {
            variables[name] = equals == std::string::npos ? "" : text.substr(equals + 1);
        }
    }
    for (const auto& [name, value] : changes) {
        if (value) {
            variables[name] = *value;
        } else {
            variables.erase(name);
        }
    }
    std::vector<std::string> environment;
    for (const auto& [name, value] : variables) {
        environment.push_back(name + "=" + value);
    }
    return environment;
}

} // namespace

std::string read_file(const std::string& path)
{
    std::ifstream file(path, std::ios::binary);
    std::ostringstream content;
    content << file.rdbuf();
    return content.str();
}

Completed run_duet(const std::vector<std::string>& args, const EnvChanges& changes, const Limits& limits)
{
    std::vector<std::string> command{DUET_EXECUTABLE};
    command.insert(command.end(), args.begin(), args.end());
    return run_program(command, changes, limits);
}

Completed run_program(const std::vector<std::string>& command, const EnvChanges& changes, const Limits& limits)
{
    const TempDir scratch;
    const std::string out_path = (scratch.path() / "out").string(), err_path = (scratch.path() / "err").string();
    const std::vector<std::string>& argv_text = command;
    const auto environment = environment_for(changes);
    std::vector<char*> argv, envp;
    for (const auto& arg : argv_text) {
        argv.push_back(const_cast<char*>(arg.c_str()));
    }
    for (const auto& variable : environment) {
        envp.push_back(const_cast<char*>(variable.c_str()));
    }
    argv.push_back(nullptr);
    envp.push_back(nullptr);

    const pid_t child = ::fork();
    if (child < 0) {
        throw std::runtime_error("fork failed");
    }
    if (child == 0) {
        // Only async-signal-safe calls between fork and exec.
        const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (out < 0 || err < 0 || ::dup2(out, STDOUT_FILENO) < 0 || ::dup2(err, STDERR_FILENO) < 0) {
            ::_exit(126);
        }
        if (limits.address_space) {
            const rlimit address_space{*limits.address_space, *limits.address_space};
            if (::setrlimit(RLIMIT_AS, &address_space) != 0) {
                ::_exit(125);
            }
        }
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    int status = 0;
    bool timed_out = false;
    unsigned timeout_seconds = limits.timeout_seconds;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
    for (;;) {
        const pid_t done = ::waitpid(child, &status, timeout_seconds == 0 ? 0 : WNOHANG);
        if (done == child || (done < 0 && errno != EINTR)) {
            break;
        }
        if (done == 0 && std::chrono::steady_clock::now() >= deadline) {
            timed_out = true;
            ::kill(child, SIGKILL);
            timeout_seconds = 0; // now wait for it to go
        } else if (done == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out_path), read_file(err_path), timed_out};
}

std::optional<TwoDevices> two_devices(const EnvChanges& base)
{
    EnvChanges pocl = base;
    pocl["POCL_DEVICES"] = "pthread pthread";
    for (const EnvChanges& env : {base, pocl}) {
        const auto devices = json::parse(run_duet({"devices", "--json"}, env).out);
        const auto& found = devices["devices"].array();
        if (found.size() >= 2) {
            return TwoDevices{env, found[0]["selector"].string(), found[1]["selector"].string()};
        }
    }
    return std::nullopt;
}

namespace {

/// The ICD variables that leave PoCL the only OpenCL platform: a vendors folder of the ICD files
/// that name PoCL (from OCL_ICD_VENDORS where set, as scripts/gpu-check sets it), and of
/// OCL_ICD_FILENAMES the entries that name it (the H100 machine's loader finds its drivers through
/// that variable: OCL_ICD_FILENAMES=libpocl.so.2:libnvidia-opencl.so.1). Where duet then lists no
/// PoCL device, the environment's own ICD settings, in which CUDA_VISIBLE_DEVICES="" leaves NVIDIA's
/// OpenCL no device.
EnvChanges pocl_icd_alone()
{
    const auto folder = std::filesystem::temp_directory_path() / ("duet-pocl-alone-" + std::to_string(::getpid()));
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    const char* vendors = std::getenv("OCL_ICD_VENDORS");
    const std::filesystem::path from = vendors != nullptr && std::filesystem::is_directory(vendors)
                                           ? std::filesystem::path(vendors)
                                           : std::filesystem::path("/etc/OpenCL/vendors");
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(from, error)) {
        if (entry.path().extension() == ".icd" && read_file(entry.path().string()).find("pocl") != std::string::npos) {
            std::filesystem::copy_file(entry.path(), folder / entry.path().filename());
        }
    }
    std::string pocl_files;
    const char* filenames = std::getenv("OCL_ICD_FILENAMES");
    for (const auto& file : detail::paths_in(filenames == nullptr ? "" : filenames)) {
        if (file.string().find("pocl") != std::string::npos) {
            pocl_files += (pocl_files.empty() ? "" : ":") + file.string();
        }
    }
    EnvChanges alone{{"CUDA_VISIBLE_DEVICES", ""}, {"OCL_ICD_VENDORS", folder.string()}};
    alone["OCL_ICD_FILENAMES"] = pocl_files.empty() ? std::nullopt : std::optional(pocl_files);
    if (!pocl_device(alone).empty()) {
        return alone;
    }
    std::cerr << "pocl_alone: with PoCL's ICD files alone duet said "
              << backends_said(run_duet({"devices", "--json"}, alone).out)
              << "; CUDA_VISIBLE_DEVICES=\"\" alone hides the GPUs instead\n";
    return {{"CUDA_VISIBLE_DEVICES", ""}};
}

} // namespace

EnvChanges pocl_alone(EnvChanges base)
{
    static const EnvChanges alone = pocl_icd_alone();
    for (const auto& [name, value] : alone) {
        base[name] = value;
    }
    return base;
}

EnvChanges few_malloc_arenas(EnvChanges base)
{
    base["MALLOC_ARENA_MAX"] = "2";
    return base;
}

std::string backends_said(const std::string& devices_json)
{
    const auto listed = json::parse(devices_json);
    std::string said;
    for (const auto& backend : listed["backends"].array()) {
        const auto count = static_cast<int>(backend["device_count"].number());
        said += (said.empty() ? "" : "; ") + backend["name"].string() + ": " + std::to_string(count) +
                (count == 1 ? " device" : " devices");
        if (!backend["reason"].string().empty()) {
            said += " (" + backend["reason"].string() + ")";
        }
    }
    return said;
}

std::string pocl_device(const EnvChanges& env)
{
    const auto listed = json::parse(run_duet({"devices", "--json"}, env).out);
    for (const auto& device : listed["devices"].array()) {
        if (device["api"].string() == "OpenCL (PoCL)") {
            return device["selector"].string();
        }
    }
    return "";
}

} // namespace duet::test
