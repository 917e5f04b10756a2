// The page shell, style sheet and tables that compare's, bench's, scale's and explain's HTML
// reports share.
#include "render/html.hpp"

#include "model/environment.hpp"
#include "render/chart.hpp"
#include "render/environment.hpp"
#include "render/format.hpp"

namespace duet::cli {

using chart::escape;

namespace {

constexpr const char* style = R"(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 24px auto; max-width: 1100px; padding: 0 16px; }
h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 19px; margin-top: 36px; border-bottom: 1px solid #ddd; }
.meta, .note { color: #666; }
table { border-collapse: collapse; margin: 12px 0; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } td.number { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #1a7f37; font-weight: 600; } .wrong, .failed { color: #c62828; font-weight: 600; } .unsupported { color: #8a6d00; }
.banner { padding: 10px 14px; border-radius: 6px; margin: 16px 0; }
.banner.ok { background: #e8f5e9; border: 1px solid #a5d6a7; } .banner.wrong { background: #ffebee; border: 1px solid #ef9a9a; }
svg.chart { display: block; margin: 12px 0; max-width: 100%; height: auto; }
svg .title { font-weight: 600; font-size: 14px; } svg .group { font-weight: 600; font-size: 12px; fill: #444; }
svg text { font-family: system-ui, sans-serif; font-size: 12px; fill: #222; } svg .value, svg .tick { font-size: 11px; fill: #555; }
svg .grid { stroke: #eee; } svg .axis-line { stroke: #888; } svg .reference { stroke: #c62828; stroke-dasharray: 4 3; }
svg .whisker { stroke-width: 1.5; }
td.matrix { white-space: pre-line; font-weight: normal; }
h3 { font-size: 16px; margin-top: 24px; }
nav.toc ul { margin: 4px 0; padding-left: 20px; }
td.differs { background: #fff3cd; } td.total { font-weight: 600; }
td.options { font-family: ui-monospace, monospace; font-size: 12px; white-space: pre-wrap; overflow-wrap: break-word; }
.absent { color: #8a6d00; } ul.differences li { margin-bottom: 8px; }
)";

} // namespace

std::string html_table(const std::vector<std::string>& headers, const std::vector<std::vector<Cell>>& rows)
{
    std::string html = "<table>\n<tr>";
    for (const auto& header : headers) {
        html += "<th>" + escape(header) + "</th>";
    }
    html += "</tr>\n";
    for (const auto& row : rows) {
        html += "<tr>";
        for (const auto& cell : row) {
            html += (cell.css_class.empty() ? "<td>" : "<td class=\"" + cell.css_class + "\">") + escape(cell.text) +
                    "</td>";
        }
        html += "</tr>\n";
    }
    return html + "</table>\n";
}

std::string page_start(const std::string& title)
{
    const auto& build = build_info();
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escape(title) +
           "</title>\n<style>" + style + "</style>\n</head>\n<body>\n<h1>" + escape(title) +
           "</h1>\n<p class=\"meta\">duet " + escape(build.version) + " (" + escape(build.commit) + "), " +
           escape(build.compiler) + " &middot; " + escape(host_name()) + ", " + escape(operating_system()) +
           " &middot; " + escape(utc_time()) + "</p>\n";
}

std::string page_end()
{
    return "</body>\n</html>\n";
}

std::string backends_section()
{
    std::vector<std::vector<Cell>> rows;
    for (const auto& backend : Registry::global().backends()) {
        rows.push_back({{backend.name, ""},
                        backend.loaded ? Cell{"loaded, " + format::count(backend.device_count, "device"), "ok"}
                                       : Cell{"unavailable", "unsupported"},
                        {backend.loaded ? backend.version : backend.reason, ""}});
    }
    return "<h2>Backends</h2>\n" + html_table({"backend", "status", "version, or why it is unavailable"}, rows);
}

std::string devices_section(const std::vector<Device>& devices)
{
    if (devices.empty()) {
        return "";
    }
    std::vector<std::string> headers{"property"};
    std::vector<std::vector<DeviceField>> fields;
    for (const auto& device : devices) {
        headers.push_back(device.selector());
        fields.push_back(device_fields(device));
    }
    std::vector<std::vector<Cell>> rows;
    for (std::size_t row = 0; row < fields.front().size(); ++row) {
        std::vector<Cell> cells{{fields.front()[row].label, ""}};
        for (const auto& device : fields) {
            cells.push_back({device[row].text, ""});
        }
        rows.push_back(std::move(cells));
    }
    return "<h2>Devices</h2>\n" + html_table(headers, rows);
}

Cell status_cell(Status status, const std::string& reason)
{
    const std::string name = to_string(status);
    return {status == Status::ok ? "ok" : name + ": " + reason, name};
}

} // namespace duet::cli
