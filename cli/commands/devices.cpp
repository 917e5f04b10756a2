// `duet devices`: every backend (loaded, or why not) and every device of every backend side by
// side under the same property names, deviceQuery and clinfo in one table.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/environment.hpp"
#include "render/environment.hpp"
#include "render/format.hpp"
#include "render/table.hpp"

#include <iostream>

namespace duet::cli {

namespace {

void print_backends(const Registry& registry)
{
    std::cout << "Backends\n";
    Table table({{"backend"}, {"status"}, {"version or reason"}});
    for (const auto& backend : registry.backends()) {
        if (backend.loaded) {
            table.add_row({backend.name, "loaded, " + format::count(backend.device_count, "device"), backend.version});
        } else {
            // failed: the plugin's own fault; unavailable: nothing to run on here (no driver, no device).
            table.add_row({backend.name, backend.failed ? "FAILED" : "unavailable", backend.reason});
        }
    }
    table.print(std::cout);
}

void print_devices(const Registry& registry)
{
    const auto& devices = registry.devices();
    std::cout << "\nDevices\n";
    if (devices.empty()) {
        std::cout << "  none: no backend found a device (`duet doctor` says more)\n";
        return;
    }
    std::vector<Table::Column> columns{{"property"}};
    std::vector<std::vector<DeviceField>> fields;
    for (const auto& device : devices) {
        columns.push_back({device.selector()});
        fields.push_back(device_fields(device));
    }
    Table table(std::move(columns));
    for (std::size_t row = 0; row < fields.front().size(); ++row) {
        std::vector<std::string> cells{fields.front()[row].label};
        for (const auto& device : fields) {
            cells.push_back(truncate(device[row].text, 40));
        }
        table.add_row(std::move(cells));
    }
    table.print(std::cout);
}

void print_raw(const Registry& registry)
{
    for (const auto& device : registry.devices()) {
        std::cout << "\n" << device_title(device) << ": every property " << device.backend() << " reports\n";
        Table table({{"property"}, {"value"}});
        for (const auto& [key, value] : device.properties().raw) {
            table.add_row({key, value});
        }
        table.print(std::cout);
    }
}

} // namespace

int devices_command(const Arguments& arguments)
{
    const auto& registry = Registry::global();
    auto json = Output::from(arguments, "json");
    if (json) {
        json::Array backends, devices;
        for (const auto& backend : registry.backends()) {
            backends.push_back(backend_json(backend));
        }
        for (const auto& device : registry.devices()) {
            devices.push_back(device_json(device, true));
        }
        json->write_json(json::Object{
            {"schema", "duet.devices/1"}, {"backends", std::move(backends)}, {"devices", std::move(devices)}});
        if (json->is_stdout()) {
            return exit_ok;
        }
    }
    print_backends(registry);
    print_devices(registry);
    if (arguments.has("raw")) {
        print_raw(registry);
    }
    return exit_ok;
}

} // namespace duet::cli
