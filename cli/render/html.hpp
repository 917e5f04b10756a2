// The pieces every HTML report is made of: the page around it (title, the build and host line, one
// style sheet, nothing fetched from the network), tables of escaped cells, and the backends and
// devices sections that close a report.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "model/runs.hpp"

namespace duet::cli {

/// One table cell: its text (escaped when written) and its classes in the style sheet.
struct Cell {
    std::string text;
    std::string css_class; ///< "number", "ok", "wrong", "differs"...
};

/// A table with a header row; every text escaped.
std::string html_table(const std::vector<std::string>& headers, const std::vector<std::vector<Cell>>& rows);

/// The document up to and including the title and the line naming duet's build, the host and the time.
std::string page_start(const std::string& title);
std::string page_end();

/// Each backend: loaded with its device count and version, or unavailable and why.
std::string backends_section();
/// The devices' properties, a column per device; empty for no device.
std::string devices_section(const std::vector<Device>& devices);

/// The devices of `items` (runs, points: each has a job), each once, in the order first seen.
template <class Item> std::vector<Device> devices_of(const std::vector<Item>& items)
{
    std::vector<Device> devices;
    for (const auto& item : items) {
        if (std::find(devices.begin(), devices.end(), item.job.device) == devices.end()) {
            devices.push_back(item.job.device);
        }
    }
    return devices;
}

/// "ok", or the status and its reason, classed by the status.
Cell status_cell(Status status, const std::string& reason);

} // namespace duet::cli
