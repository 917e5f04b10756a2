// Programs from OpenCL C source or from a binary this backend produced earlier (the disk cache),
// built for one device; a failed build reports the compiler's whole log.
#include "common.hpp"

#include <memory>

namespace duet::backend::opencl {
namespace {

std::string build_log(const duet_program_s& program)
{
    std::size_t size = 0;
    check(clGetProgramBuildInfo(program.program, program.device->id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size),
          "clGetProgramBuildInfo");
    std::string log(size, '\0');
    check(clGetProgramBuildInfo(program.program, program.device->id, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr),
          "clGetProgramBuildInfo");
    while (!log.empty() && log.back() == '\0')
        log.pop_back();
    return log;
}

[[noreturn]] void fail_refused_binary(cl_int code, const char* call, const std::string& log)
{
    fail(DUET_ERROR_INVALID_ARGUMENT,
         "the device refused the program binary (" + std::string(error_name(code)) +
             "): it was built for another device or driver, or it is damaged" + (log.empty() ? "" : "\n" + log),
         call, code, error_name(code));
}

void build(duet_program_s& program, const char* options, bool from_source)
{
    // Argument info (address qualifiers, for the launch's argument checks) is kept only when asked
    // for on some drivers (NVIDIA's); programs from binaries take no such option.
    std::string all_options = options ? options : "";
    if (from_source)
        all_options += " -cl-kernel-arg-info";
    const cl_int code = clBuildProgram(program.program, 1, &program.device->id, all_options.c_str(), nullptr, nullptr);
    // NVIDIA's binaries are PTX text, which clCreateProgramWithBinary takes unread: a bad one
    // shows only here.
    if (code == CL_INVALID_BINARY)
        fail_refused_binary(code, "clBuildProgram", build_log(program));
    if (code == CL_BUILD_PROGRAM_FAILURE) {
        std::string log = build_log(program);
        fail(DUET_ERROR_BUILD, log.empty() ? "the build failed and the compiler left no log" : std::move(log),
             "clBuildProgram", code, error_name(code));
    }
    if (code == CL_INVALID_BUILD_OPTIONS)
        fail(DUET_ERROR_BUILD, "the compiler refused the options \"" + all_options + "\"", "clBuildProgram", code,
             error_name(code));
    check(code, "clBuildProgram");
}

void create_from_source(duet_program_s& program, const void* data, std::size_t size)
{
    const char* source = static_cast<const char*>(data);
    cl_int code = CL_SUCCESS;
    program.program = clCreateProgramWithSource(program.device->context, 1, &source, &size, &code);
    check(code, "clCreateProgramWithSource");
}

void create_from_binary(duet_program_s& program, const void* data, std::size_t size)
{
    const auto* binary = static_cast<const unsigned char*>(data);
    cl_int binary_status = CL_SUCCESS;
    cl_int code = CL_SUCCESS;
    program.program = clCreateProgramWithBinary(program.device->context, 1, &program.device->id, &size, &binary,
                                                &binary_status, &code);
    if (code == CL_INVALID_BINARY || binary_status != CL_SUCCESS)
        fail_refused_binary(code == CL_SUCCESS ? binary_status : code, "clCreateProgramWithBinary", {});
    check(code, "clCreateProgramWithBinary");
}

} // namespace

duet_status program_create(duet_device device, duet_program_format format, const void* data, std::size_t size,
                           const char* options, duet_program* program)
{
    return guard([&] {
        auto created = std::make_unique<duet_program_s>();
        created->device = device;
        switch (format) {
        case DUET_FORMAT_OPENCL_C:
            create_from_source(*created, data, size);
            break;
        case DUET_FORMAT_NATIVE:
            create_from_binary(*created, data, size);
            break;
        default:
            fail(DUET_ERROR_UNSUPPORTED, "OpenCL builds OpenCL C source and its own program binaries; format " +
                                             std::to_string(static_cast<int>(format)) + " is neither");
        }
        build(*created, options, format == DUET_FORMAT_OPENCL_C);
        created->kernel_names =
            info_text(clGetProgramInfo, created->program, CL_PROGRAM_KERNEL_NAMES, "clGetProgramInfo");
        *program = created.release();
    });
}

duet_status program_release(duet_program program)
{
    return guard([&] { delete program; });
}

duet_status program_binary(duet_program program, void (*sink)(void* context, const void* data, std::size_t size),
                           void* context)
{
    return guard([&] {
        // Built for one device, so the program has exactly one binary.
        const auto size = info<std::size_t>(clGetProgramInfo, program->program, CL_PROGRAM_BINARY_SIZES,
                                            "clGetProgramInfo");
        std::vector<unsigned char> binary(size);
        unsigned char* destination = binary.data();
        check(clGetProgramInfo(program->program, CL_PROGRAM_BINARIES, sizeof destination, &destination, nullptr),
              "clGetProgramInfo");
        sink(context, binary.data(), binary.size());
    });
}

duet_status program_kernel_names(duet_program program, const char** names)
{
    return guard([&] { *names = program->kernel_names.c_str(); });
}

} // namespace duet::backend::opencl

duet_program_s::~duet_program_s()
{
    if (program)
        clReleaseProgram(program);
}
