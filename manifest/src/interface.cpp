// The interface check of a kernel pair: each kernel's parameters, read from its source, against
// the manifest's arguments and against each other, before anything is built or launched. A
// mismatch shows both signatures side by side with the first difference marked.
#include "port.hpp"

#include <algorithm>

namespace duet::workload::port {

namespace {

/// What an argument asks of a kernel's parameter.
struct Expected {
    std::string name;
    std::string text; ///< "float buffer", "int32", "local memory"
    enum class Kind { buffer, scalar, local } kind;
    ElementType type = ElementType::f32;
    bool output = false;
};

Expected expected(const Manifest& manifest, const std::string& arg)
{
    for (const auto& buffer : manifest.buffers) {
        if (buffer.name == arg) {
            return {arg, std::string(to_string(buffer.type)) + (buffer.output ? " buffer, output" : " buffer"),
                    Expected::Kind::buffer, buffer.type, buffer.output};
        }
    }
    for (const auto& scalar : manifest.scalars) {
        if (scalar.name == arg) {
            return {arg, std::string(to_string(scalar.type)) + " value", Expected::Kind::scalar, scalar.type, false};
        }
    }
    return {arg, "local memory", Expected::Kind::local, ElementType::f32, false};
}

/// Why `parameter` cannot take `want` on `language`; empty when it can.
std::string mismatch(const Expected& want, const KernelParameter& parameter, Language language)
{
    const std::string element(to_string(want.type));
    switch (want.kind) {
    case Expected::Kind::buffer:
        if (!parameter.pointer ||
            !(parameter.space == AddressSpace::global ||
              (language == Language::opencl && parameter.space == AddressSpace::constant && !want.output))) {
            return "takes " + describe(parameter) + ", not a " +
                   (language == Language::opencl ? "__global pointer" : "pointer") + " to the buffer";
        }
        if (parameter.known_element && parameter.element != element) {
            return "takes " + parameter.element + " elements; the buffer holds " + element;
        }
        if (want.output && parameter.is_const) {
            return "takes a const pointer, but the buffer is an output";
        }
        return {};
    case Expected::Kind::scalar:
        if (parameter.pointer || parameter.space != AddressSpace::value) {
            return "takes " + describe(parameter) + ", not a value";
        }
        if (parameter.known_element && parameter.element != element) {
            return "takes " + parameter.element + "; the scalar is " + element;
        }
        return {};
    case Expected::Kind::local:
        if (!parameter.pointer || parameter.space != AddressSpace::local) {
            return "takes " + describe(parameter) + ", not a __local pointer";
        }
        return {};
    }
    return {};
}

std::string pad(std::string text, std::size_t width)
{
    text.resize(std::max(text.size(), width), ' ');
    return text;
}

} // namespace

void check_interfaces(const Manifest& manifest, const KernelSource& cuda, const KernelSource& opencl,
                      const LaunchDecl& launch)
{
    // Each API's arguments, and the parameter each one lands on: on CUDA "local" is the launch's
    // dynamic shared memory, not a parameter.
    struct Side {
        const KernelSource* source;
        std::vector<Expected> args;
        std::vector<std::size_t> parameter; ///< per argument; SIZE_MAX where it takes none
        std::string problem;                ///< the first mismatch, "" if none
        std::size_t row = SIZE_MAX;         ///< where it shows
    };
    std::vector<Side> sides;
    for (const KernelSource* source : {&cuda, &opencl}) {
        Side side{source, {}, {}, {}, SIZE_MAX};
        std::size_t next = 0;
        for (const auto& arg : source->args.value_or(launch.args)) {
            side.args.push_back(expected(manifest, arg));
            const bool skipped = source->language == Language::cuda && side.args.back().kind == Expected::Kind::local;
            side.parameter.push_back(skipped ? SIZE_MAX : next++);
        }
        const auto& parameters = source->signature.parameters;
        for (std::size_t i = 0; i < side.args.size() && side.problem.empty(); ++i) {
            if (side.parameter[i] == SIZE_MAX) {
                continue;
            }
            if (side.parameter[i] >= parameters.size()) {
                side.problem = "argument " + std::to_string(i + 1) + " ('" + side.args[i].name +
                               "') has no parameter: " + source->entry + " takes " + std::to_string(parameters.size());
            } else if (auto why = mismatch(side.args[i], parameters[side.parameter[i]], source->language);
                       !why.empty()) {
                side.problem = "argument " + std::to_string(i + 1) + " ('" + side.args[i].name + "'): " + why;
            }
            side.row = side.problem.empty() ? side.row : i;
        }
        if (side.problem.empty() && next < parameters.size()) {
            side.problem = source->entry + " takes " + std::to_string(parameters.size()) +
                           " parameters; the manifest gives " + std::to_string(next) + " arguments";
            side.row = side.args.size();
        }
        sides.push_back(std::move(side));
    }
    // Where both APIs take the same arguments, a buffer both read must be const in both or neither.
    std::string problem;
    std::size_t row = SIZE_MAX;
    for (const auto& side : sides) {
        if (!side.problem.empty() && side.row < row) {
            problem = std::string(side.source->language == Language::cuda ? "CUDA" : "OpenCL") + " " + side.problem;
            row = side.row;
        }
    }
    if (problem.empty() && sides[0].args.size() == sides[1].args.size()) {
        for (std::size_t i = 0; i < sides[0].args.size() && problem.empty(); ++i) {
            const auto a = sides[0].parameter[i], b = sides[1].parameter[i];
            if (a == SIZE_MAX || b == SIZE_MAX || sides[0].args[i].name != sides[1].args[i].name) {
                continue;
            }
            const auto& pa = cuda.signature.parameters[a];
            const auto& pb = opencl.signature.parameters[b];
            if (pa.pointer && pb.pointer && pa.is_const != pb.is_const) {
                problem = "argument " + std::to_string(i + 1) + " ('" + sides[0].args[i].name + "') is const in " +
                          (pa.is_const ? "CUDA" : "OpenCL") + " only";
                row = i;
            }
        }
    }
    if (problem.empty()) {
        return;
    }

    // The table: each API's arguments in its own order beside the parameters they land on, then
    // parameters no argument reaches.
    const auto rows_of = [](const Side& side) {
        std::vector<std::pair<std::string, std::string>> rows;
        const auto& parameters = side.source->signature.parameters;
        std::size_t taken = 0;
        for (std::size_t i = 0; i < side.args.size(); ++i) {
            const std::size_t p = side.parameter[i];
            taken += p != SIZE_MAX ? 1 : 0;
            rows.emplace_back(side.args[i].name + ": " + side.args[i].text, p == SIZE_MAX ? "(dynamic shared memory)"
                                                                            : p < parameters.size()
                                                                                ? parameters[p].declaration
                                                                                : "(none)");
        }
        for (std::size_t p = taken; p < parameters.size(); ++p) {
            rows.emplace_back("(none)", parameters[p].declaration);
        }
        return rows;
    };
    const auto heading = [](const Side& side) {
        return std::string(side.source->language == Language::cuda ? "CUDA " : "OpenCL ") + side.source->entry + " (" +
               side.source->file.filename().string() + ":" + std::to_string(side.source->signature.line) + ")";
    };
    const auto cuda_rows = rows_of(sides[0]), opencl_rows = rows_of(sides[1]);
    std::size_t arg_width = std::string("argument").size(), parameter_width = heading(sides[0]).size();
    for (const auto& [arg, parameter] : cuda_rows) {
        arg_width = std::max(arg_width, arg.size());
        parameter_width = std::max(parameter_width, parameter.size());
    }
    for (const auto& [arg, parameter] : opencl_rows) {
        arg_width = std::max(arg_width, arg.size());
    }
    std::string table = "\n     " + pad("argument", arg_width + 2) + pad(heading(sides[0]), parameter_width + 3) +
                        pad("argument", arg_width + 2) + heading(sides[1]);
    for (std::size_t i = 0; i < std::max(cuda_rows.size(), opencl_rows.size()); ++i) {
        const auto cell = [&](const auto& rows, bool parameter) -> std::string {
            return i < rows.size() ? (parameter ? rows[i].second : rows[i].first) : "";
        };
        table += "\n  " + std::string(i == row ? "> " : "  ") + " " + pad(cell(cuda_rows, false), arg_width + 2) +
                 pad(cell(cuda_rows, true), parameter_width + 3) + pad(cell(opencl_rows, false), arg_width + 2) +
                 cell(opencl_rows, true);
    }
    const KernelSource& culprit = row < sides[0].args.size() && !sides[0].problem.empty() ? cuda : opencl;
    fail(culprit.args ? culprit.args_place : launch.args_place,
         "the kernels do not take these arguments: " + problem + table);
}

} // namespace duet::workload::port
