// `duet devices`: every backend (loaded, or why not) and every device of every backend side by
// side under the same property names, deviceQuery and clinfo in one table, and how copies travel
// between the devices of one backend.
#include "commands/commands.hpp"
#include "commands/output.hpp"
#include "model/environment.hpp"
#include "render/environment.hpp"
#include "render/format.hpp"
#include "render/table.hpp"

#include <iostream>
#include <map>

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

/// One ordered pair of devices of one backend and how a copy between them travels.
struct PeerRouteRow {
    std::string backend, from, to, route, reason;
};

/// Every ordered pair of devices of each backend with two or more: all of them where the backend
/// has fewer than 8, else its GPUs alone, so that the list stays short.
std::vector<PeerRouteRow> peer_routes(const Registry& registry)
{
    constexpr std::size_t all_devices_below = 8;
    std::map<std::string, std::vector<Device>> by_backend;
    for (const auto& device : registry.devices()) {
        by_backend[device.backend()].push_back(device);
    }
    std::vector<PeerRouteRow> rows;
    for (auto& [backend, devices] : by_backend) {
        if (devices.size() >= all_devices_below) {
            std::erase_if(devices, [](const Device& device) { return device.properties().type != DeviceType::gpu; });
        }
        for (const auto& from : devices) {
            for (const auto& to : devices) {
                if (from == to) {
                    continue;
                }
                PeerRouteRow row{backend, from.selector(), to.selector(), {}, {}};
                try {
                    row.route = std::string(to_string(to.peer_route(from)));
                } catch (const Error& error) {
                    row.route = "unknown";
                    row.reason = error.message();
                }
                rows.push_back(std::move(row));
            }
        }
    }
    return rows;
}

std::string route_text(const PeerRouteRow& row)
{
    if (row.route == "direct") {
        return "direct (peer access)";
    }
    if (row.route == "staged") {
        return "staged through pinned host memory";
    }
    return "unknown: " + row.reason;
}

void print_peer_routes(const std::vector<PeerRouteRow>& rows)
{
    if (rows.empty()) {
        return;
    }
    std::cout << "\nPeer routes (Queue::copy_bytes between devices of one backend)\n";
    for (const auto& row : rows) {
        std::cout << "  " << row.from << " → " << row.to << "  " << route_text(row) << "\n";
    }
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
    const auto routes_found = peer_routes(registry);
    auto json = Output::from(arguments, "json");
    if (json) {
        json::Array backends, devices, routes;
        for (const auto& backend : registry.backends()) {
            backends.push_back(backend_json(backend));
        }
        for (const auto& device : registry.devices()) {
            devices.push_back(device_json(device, true));
        }
        for (const auto& row : routes_found) {
            json::Object route{{"backend", row.backend}, {"from", row.from}, {"to", row.to}, {"route", row.route}};
            if (!row.reason.empty()) {
                route["reason"] = row.reason;
            }
            routes.push_back(std::move(route));
        }
        json->write_json(json::Object{{"schema", "duet.devices/1"},
                                      {"backends", std::move(backends)},
                                      {"devices", std::move(devices)},
                                      {"peer_routes", std::move(routes)}});
        if (json->is_stdout()) {
            return exit_ok;
        }
    }
    print_backends(registry);
    print_devices(registry);
    print_peer_routes(routes_found);
    if (arguments.has("raw")) {
        print_raw(registry);
    }
    return exit_ok;
}

} // namespace duet::cli
