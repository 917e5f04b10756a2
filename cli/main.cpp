// The duet command line: list backends and devices, and run vector_add on every device,
// checked against the CPU reference and against each other.
#include <duet/duet.hpp>

#include <vector_add.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* type_name(duet::DeviceType type)
{
    switch (type) {
    case duet::DeviceType::gpu:
        return "gpu";
    case duet::DeviceType::cpu:
        return "cpu";
    case duet::DeviceType::accelerator:
        return "accelerator";
    case duet::DeviceType::other:
        break;
    }
    return "other";
}

int list_devices(const duet::Registry& registry)
{
    std::cout << "Backends\n";
    for (const auto& backend : registry.backends()) {
        if (backend.loaded) {
            std::cout << "  " << backend.name << ": loaded, " << backend.device_count << " device(s); "
                      << backend.version << "\n    from " << backend.path.string() << "\n";
        } else {
            std::cout << "  " << backend.name << ": unavailable: " << backend.reason << "\n";
        }
    }
    std::cout << "\nDevices\n";
    for (const auto& device : registry.devices()) {
        const auto& p = device.properties();
        std::cout << "  " << device.selector() << "  " << p.name << "  [" << type_name(p.type) << ", " << p.platform
                  << ", driver " << p.driver_version << "]\n"
                  << "      compute units " << p.compute_units << ", max block " << p.max_block_size << " ("
                  << p.max_block_dims[0] << "x" << p.max_block_dims[1] << "x" << p.max_block_dims[2] << "), warp "
                  << p.warp_width << ", local memory " << p.local_memory_per_block / 1024 << " KiB, global memory "
                  << p.global_memory / (1024 * 1024) << " MiB, clock " << p.clock_mhz << " MHz";
        if (p.theoretical_bandwidth_gbps() > 0) {
            std::cout << ", memory " << p.memory_bus_width_bits << "-bit at " << p.memory_clock_mhz << " MHz ("
                      << static_cast<int>(p.theoretical_bandwidth_gbps()) << " GB/s peak)";
        }
        std::cout << "\n";
    }
    if (registry.devices().empty()) {
        std::cout << "  none\n";
    }
    return 0;
}

struct Result {
    duet::Device device;
    std::vector<float> c;
    double h2d_ms, kernel_ms, d2h_ms;
};

/// One device: copies in, kernel, copies out, each phase timed by device events.
Result run_vector_add(const duet::Device& device, const std::vector<float>& a, const std::vector<float>& b)
{
    const std::size_t n = a.size();
    const duet::vector_add::Launcher launcher(device);
    auto queue = device.create_queue();
    auto da = device.alloc<float>(n), db = device.alloc<float>(n), dc = device.alloc<float>(n);
    Result result{device, std::vector<float>(n, std::nanf("")), 0, 0, 0};

    const auto start = queue.record();
    queue.write(da, a);
    queue.write(db, b);
    const auto copied_in = queue.record();
    launcher.run(queue, da, db, dc, n);
    const auto computed = queue.record();
    queue.read(result.c, dc);
    const auto copied_out = queue.record();
    copied_out.wait();
    result.h2d_ms = duet::elapsed_ms(start, copied_in);
    result.kernel_ms = duet::elapsed_ms(copied_in, computed);
    result.d2h_ms = duet::elapsed_ms(computed, copied_out);
    return result;
}

std::size_t mismatches(const std::vector<float>& x, const std::vector<float>& y)
{
    std::size_t count = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        count += !(x[i] == y[i]);
    }
    return count;
}

int compare(const duet::Registry& registry, const std::vector<std::string>& selectors, std::size_t n)
{
    std::vector<duet::Device> devices;
    if (selectors.empty()) {
        devices = registry.devices();
    } else {
        for (const auto& selector : selectors) {
            devices.push_back(registry.select(selector));
        }
    }
    for (const auto& backend : registry.backends()) {
        if (!backend.loaded) {
            std::cout << "note: " << backend.name << " unavailable: " << backend.reason << "\n";
        }
    }
    if (devices.empty()) {
        std::cerr << "duet: no device to run on\n";
        return 2;
    }

    std::mt19937 random(2024);
    std::uniform_real_distribution<float> values(-1.0f, 1.0f);
    std::vector<float> a(n), b(n), expected(n);
    std::generate(a.begin(), a.end(), [&] { return values(random); });
    std::generate(b.begin(), b.end(), [&] { return values(random); });
    duet::vector_add::reference(a, b, expected);

    std::printf("vector_add, n = %zu floats\n%-10s %-44s %10s %10s %10s %10s  %s\n", n, "device", "name", "h2d ms",
                "kernel ms", "d2h ms", "GB/s", "matches reference");
    std::vector<Result> results;
    bool all_agree = true;
    for (const auto& device : devices) {
        auto result = run_vector_add(device, a, b);
        const auto wrong = mismatches(result.c, expected);
        all_agree = all_agree && wrong == 0;
        const double gbps = 3.0 * n * sizeof(float) / (result.kernel_ms * 1e-3) / 1e9;
        std::printf("%-10s %-44.44s %10.3f %10.3f %10.3f %10.1f  %s\n", device.selector().c_str(),
                    device.properties().name.c_str(), result.h2d_ms, result.kernel_ms, result.d2h_ms, gbps,
                    wrong == 0 ? "yes" : (std::to_string(wrong) + " elements differ").c_str());
        results.push_back(std::move(result));
    }
    for (std::size_t i = 1; i < results.size(); ++i) {
        const auto wrong = mismatches(results[0].c, results[i].c);
        if (wrong != 0) {
            all_agree = false;
            std::printf("DISAGREE: %s and %s differ in %zu elements\n", results[0].device.selector().c_str(),
                        results[i].device.selector().c_str(), wrong);
        }
    }
    std::printf(all_agree ? "all %zu device(s) agree with the reference and each other\n"
                          : "FAILED: %zu device(s) compared, see above\n",
                results.size());
    return all_agree ? 0 : 1;
}

void usage()
{
    std::cout << "usage: duet devices\n"
                 "       duet compare vector_add [--devices SEL,SEL...] [--n N]\n"
                 "SEL: opencl:0, cuda:1, opencl:gpu, opencl:cpu, or part of a device name\n";
}

} // namespace

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    try {
        const auto& registry = duet::Registry::global();
        if (args.empty() || args[0] == "--help" || args[0] == "-h") {
            usage();
            return args.empty() ? 2 : 0;
        }
        if (args[0] == "devices") {
            return list_devices(registry);
        }
        if (args[0] == "compare") {
            if (args.size() < 2 || (args[1] != "vector_add" && args[1] != "all")) {
                std::cerr << "duet: unknown workload '" << (args.size() < 2 ? "" : args[1])
                          << "'; workloads: vector_add (or all)\n";
                return 2;
            }
            std::vector<std::string> selectors;
            std::size_t n = 1 << 24;
            for (std::size_t i = 2; i < args.size(); ++i) {
                if (args[i] == "--devices" && i + 1 < args.size()) {
                    std::stringstream list(args[++i]);
                    for (std::string selector; std::getline(list, selector, ',');) {
                        selectors.push_back(selector);
                    }
                } else if (args[i] == "--n" && i + 1 < args.size()) {
                    n = std::stoull(args[++i]);
                } else {
                    std::cerr << "duet: unknown option '" << args[i] << "'\n";
                    usage();
                    return 2;
                }
            }
            return compare(registry, selectors, n);
        }
        std::cerr << "duet: unknown command '" << args[0] << "'\n";
        usage();
        return 2;
    } catch (const duet::Error& error) {
        std::cerr << "duet: " << error.what() << "\n";
        return 1;
    } catch (const std::exception& error) {
        std::cerr << "duet: " << error.what() << "\n";
        return 1;
    }
}
