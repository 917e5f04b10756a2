// Programs from OpenCL C source or from a binary this backend produced earlier (the disk cache),
// built for one device; a failed build reports the compiler's whole log. Each program knows what
// every kernel's arguments take, and on NVIDIA's OpenCL its registers, and its binary carries that
// beside the driver's.
#include "common.hpp"

#include <algorithm>
#include <charconv>
#include <memory>
#include <string_view>

namespace duet::backend::opencl {
namespace {

// The binary that program_binary hands the core, and program_create takes back as
// DUET_FORMAT_NATIVE. A driver reports no argument info for a program created from a binary, so
// the binary records each kernel's, as read when the program was built from source:
//   "duet-opencl-program", the format version (u32);
//   the kernel count (u32), then per kernel: its name (u32 length, then the bytes), its argument
//   count (u32), whether the kinds are known (u8, 0 or 1) and, when known, per argument its
//   address qualifier (u32) and type name (u32 length, then the bytes); its registers a
//   work-item (u32, 0 when the compiler did not say);
//   the size of the driver's binary (u64), then that binary to the end.
// Integers are little-endian. Anything else (an older duet's binary, which is the driver's alone,
// or a damaged one) is refused as an invalid argument, so that the core rebuilds from source.
constexpr std::string_view binary_magic = "duet-opencl-program";
constexpr std::uint32_t binary_version = 2;

template <class T> void put_integer(std::string& out, T value)
{
    for (std::size_t byte = 0; byte < sizeof(T); ++byte)
        out.push_back(static_cast<char>((value >> (8 * byte)) & 0xff));
}

void put_text(std::string& out, std::string_view text)
{
    put_integer(out, static_cast<std::uint32_t>(text.size()));
    out += text;
}

[[noreturn]] void refuse_binary(const std::string& problem)
{
    fail(DUET_ERROR_INVALID_ARGUMENT, "not a program binary of this OpenCL backend (format " +
                                          std::to_string(binary_version) + "): " + problem +
                                          "; build the program from source instead");
}

/// Reads a binary front to back, refusing it where it ends early.
class BinaryReader {
public:
    explicit BinaryReader(std::string_view bytes) : bytes_(bytes) {}

    std::string_view take(std::size_t size, const std::string& what)
    {
        if (size > bytes_.size() - at_)
            refuse_binary("it ends inside " + what + " (at byte " + std::to_string(at_) + " of " +
                          std::to_string(bytes_.size()) + ", " + std::to_string(size) + " more needed)");
        const std::string_view taken = bytes_.substr(at_, size);
        at_ += size;
        return taken;
    }

    template <class T> T integer(const std::string& what)
    {
        const std::string_view raw = take(sizeof(T), what);
        T value = 0;
        for (std::size_t byte = 0; byte < sizeof(T); ++byte)
            value = static_cast<T>(value | static_cast<T>(static_cast<unsigned char>(raw[byte])) << (8 * byte));
        return value;
    }

    std::string_view text(const std::string& what) { return take(integer<std::uint32_t>(what), what); }
    std::string_view rest() { return take(bytes_.size() - at_, "the driver's binary"); }
    std::size_t left() const { return bytes_.size() - at_; }

private:
    std::string_view bytes_;
    std::size_t at_ = 0;
};

using KernelArgumentMap = decltype(duet_program_s::kernel_arguments);

using KernelRegisterMap = decltype(duet_program_s::kernel_registers);

struct RecordedBinary {
    KernelArgumentMap kernel_arguments;
    KernelRegisterMap kernel_registers;
    std::string_view native; ///< the driver's binary
};

bool is_address_qualifier(cl_kernel_arg_address_qualifier qualifier)
{
    return qualifier == CL_KERNEL_ARG_ADDRESS_GLOBAL || qualifier == CL_KERNEL_ARG_ADDRESS_LOCAL ||
           qualifier == CL_KERNEL_ARG_ADDRESS_CONSTANT || qualifier == CL_KERNEL_ARG_ADDRESS_PRIVATE;
}

KernelArguments read_recorded_arguments(BinaryReader& reader, const std::string& kernel)
{
    KernelArguments arguments;
    arguments.count = reader.integer<std::uint32_t>("the argument count of " + kernel);
    const auto known = reader.integer<std::uint8_t>("whether the argument kinds of " + kernel + " are known");
    if (known > 1)
        refuse_binary("it marks the argument kinds of " + kernel + " as " + std::to_string(known) +
                      " (0 or 1 expected)");
    if (known == 0)
        return arguments;
    for (cl_uint index = 0; index < arguments.count; ++index) {
        const std::string argument = "argument " + std::to_string(index) + " of " + kernel;
        const auto qualifier = reader.integer<std::uint32_t>("the address qualifier of " + argument);
        if (!is_address_qualifier(qualifier))
            refuse_binary("it gives " + argument + " the address qualifier " + std::to_string(qualifier) +
                          ", which OpenCL does not define");
        arguments.qualifiers.push_back(qualifier);
        arguments.types.emplace_back(reader.text("the type name of " + argument));
    }
    return arguments;
}

/// The recorded kernels and the driver's binary, checked for structure before any driver sees it.
RecordedBinary read_binary(std::string_view blob)
{
    if (!blob.starts_with(binary_magic))
        refuse_binary("it does not begin with \"" + std::string(binary_magic) +
                      "\" (an older duet wrote the driver's binary alone, with no argument kinds)");
    BinaryReader reader(blob);
    reader.take(binary_magic.size(), "the format name");
    const auto version = reader.integer<std::uint32_t>("the format version");
    if (version != binary_version)
        refuse_binary("it is of format version " + std::to_string(version) + ", which this duet does not read");

    RecordedBinary recorded;
    const auto kernel_count = reader.integer<std::uint32_t>("the kernel count");
    for (std::uint32_t k = 0; k < kernel_count; ++k) {
        const std::string name(reader.text("the name of kernel " + std::to_string(k)));
        if (name.empty())
            refuse_binary("kernel " + std::to_string(k) + " has an empty name");
        KernelArguments arguments = read_recorded_arguments(reader, "kernel '" + name + "'");
        if (!recorded.kernel_arguments.emplace(name, std::move(arguments)).second)
            refuse_binary("it records kernel '" + name + "' twice");
        const auto registers = reader.integer<std::uint32_t>("the registers of kernel '" + name + "'");
        if (registers != 0)
            recorded.kernel_registers.emplace(name, registers);
    }
    const auto native_size = reader.integer<std::uint64_t>("the size of the driver's binary");
    if (native_size == 0 || native_size != reader.left())
        refuse_binary("it records a driver's binary of " + std::to_string(native_size) + " bytes, and " +
                      std::to_string(reader.left()) + " follow");
    recorded.native = reader.rest();
    return recorded;
}

/// The program's kernels as the driver sees them, each created for a moment.
template <class Visit> void for_each_kernel(const duet_program_s& program, Visit&& visit)
{
    std::string_view names = program.kernel_names;
    while (!names.empty()) {
        const std::size_t end = std::min(names.find(';'), names.size());
        const std::string name(names.substr(0, end));
        names.remove_prefix(std::min(end + 1, names.size()));
        if (name.empty())
            continue;
        cl_int code = CL_SUCCESS;
        const std::unique_ptr<std::remove_pointer_t<cl_kernel>, decltype(&clReleaseKernel)> kernel(
            clCreateKernel(program.program, name.c_str(), &code), &clReleaseKernel);
        check(code, "clCreateKernel");
        visit(name, kernel.get());
    }
}

cl_uint argument_count(cl_kernel kernel)
{
    return info<cl_uint>(clGetKernelInfo, kernel, CL_KERNEL_NUM_ARGS, "clGetKernelInfo");
}

/// CL_KERNEL_ARG_TYPE_NAME of one argument ("float*"), or nullopt when the driver will not say.
std::optional<std::string> argument_type(cl_kernel kernel, cl_uint index)
{
    std::size_t size = 0;
    if (clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_NAME, 0, nullptr, &size) != CL_SUCCESS)
        return std::nullopt;
    std::string name(size, '\0');
    if (clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_NAME, size, name.data(), nullptr) != CL_SUCCESS)
        return std::nullopt;
    while (!name.empty() && name.back() == '\0')
        name.pop_back();
    return name;
}

/// Each argument's address qualifier and type name, or only the count when the driver keeps no
/// argument info for this kernel (CL_KERNEL_ARG_INFO_NOT_AVAILABLE, or any other refusal).
KernelArguments arguments_from_driver(cl_kernel kernel)
{
    KernelArguments arguments;
    arguments.count = argument_count(kernel);
    for (cl_uint index = 0; index < arguments.count; ++index) {
        cl_kernel_arg_address_qualifier qualifier = 0;
        std::optional<std::string> type;
        if (clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof qualifier, &qualifier, nullptr) !=
                CL_SUCCESS ||
            !(type = argument_type(kernel, index)))
            return {arguments.count, {}, {}};
        arguments.qualifiers.push_back(qualifier);
        arguments.types.push_back(std::move(*type));
    }
    return arguments;
}

KernelArgumentMap kernel_arguments_from_driver(const duet_program_s& program)
{
    KernelArgumentMap arguments;
    for_each_kernel(
        program, [&](const std::string& name, cl_kernel kernel) { arguments[name] = arguments_from_driver(kernel); });
    return arguments;
}

/// The recorded arguments, once they are known to describe exactly the kernels the driver built.
KernelArgumentMap matched_to_driver(const duet_program_s& program, KernelArgumentMap recorded)
{
    std::size_t kernels = 0;
    for_each_kernel(program, [&](const std::string& name, cl_kernel kernel) {
        ++kernels;
        const auto found = recorded.find(name);
        if (found == recorded.end())
            refuse_binary("it records no arguments for kernel '" + name + "', which the driver's binary has");
        const cl_uint count = argument_count(kernel);
        if (found->second.count != count)
            refuse_binary("it records " + std::to_string(found->second.count) + " arguments for kernel '" + name +
                          "', which takes " + std::to_string(count));
    });
    if (recorded.size() != kernels)
        refuse_binary("it records " + std::to_string(recorded.size()) + " kernels; the driver's binary has " +
                      std::to_string(kernels));
    return recorded;
}

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

/// Each kernel's registers a work-item from ptxas's lines in a -cl-nv-verbose log:
///   ptxas info    : Compiling entry function 'matmul_blocked' for 'sm_90a'
///   ...
///   ptxas info    : Used 123 registers, used 1 barriers, 16644 bytes smem
KernelRegisterMap registers_from_log(std::string_view log)
{
    constexpr std::string_view entry = "Compiling entry function '";
    constexpr std::string_view used = "Used ";
    KernelRegisterMap registers;
    for (std::size_t at = log.find(entry); at != std::string_view::npos;) {
        const std::size_t name_at = at + entry.size();
        const std::size_t name_end = log.find('\'', name_at);
        if (name_end == std::string_view::npos)
            break;
        const std::size_t next = log.find(entry, name_end);
        const std::size_t used_at = log.substr(0, next).find(used, name_end);
        if (used_at != std::string_view::npos) {
            std::uint32_t count = 0;
            const char* digits = log.data() + used_at + used.size();
            const auto [end, error] = std::from_chars(digits, log.data() + log.size(), count);
            if (error == std::errc() && std::string_view(end, log.data() + log.size()).starts_with(" registers"))
                registers[std::string(log.substr(name_at, name_end - name_at))] = count;
        }
        at = next;
    }
    return registers;
}

void build(duet_program_s& program, const char* options, bool from_source)
{
    // On NVIDIA's OpenCL the log of a build from source then gives each kernel's registers, which
    // set its largest block (kernel.cpp). A binary's build runs no compiler and logs nothing.
    const std::string all_options = std::string(options ? options : "") +
                                    (from_source && program.device->nv_compiler_options ? " -cl-nv-verbose" : "");
    const auto build_with = [&](const std::string& text) {
        program.options = text;
        return clBuildProgram(program.program, 1, &program.device->id, text.c_str(), nullptr, nullptr);
    };
    cl_int code = CL_SUCCESS;
    if (from_source) {
        // Argument info (address qualifiers, for the launch's argument checks) is kept only when
        // asked for on some drivers (NVIDIA's). NVIDIA's (driver 580) then emits PTX its own ptxas
        // rejects for a kernel with no arguments: a program the option breaks is built without it,
        // and its arguments are checked by count and size only. Binaries take no such option.
        code = build_with(all_options + " -cl-kernel-arg-info");
        if (code == CL_BUILD_PROGRAM_FAILURE) {
            code = build_with(all_options);
        }
    } else {
        code = build_with(all_options);
    }
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

void create_from_binary(duet_program_s& program, std::string_view native)
{
    const auto* binary = reinterpret_cast<const unsigned char*>(native.data());
    const std::size_t size = native.size();
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
        std::optional<RecordedBinary> recorded;
        switch (format) {
        case DUET_FORMAT_OPENCL_C:
            create_from_source(*created, data, size);
            break;
        case DUET_FORMAT_NATIVE:
            recorded = read_binary({static_cast<const char*>(data), size});
            create_from_binary(*created, recorded->native);
            break;
        default:
            fail(DUET_ERROR_UNSUPPORTED, "OpenCL builds OpenCL C source and its own program binaries; format " +
                                             std::to_string(static_cast<int>(format)) + " is neither");
        }
        build(*created, options, !recorded);
        // NVIDIA's OpenCL (580.159 on an H100) crashes inside clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES)
        // for a program that declares no kernel: ask for the names only where there are some.
        created->kernel_names =
            info<std::size_t>(clGetProgramInfo, created->program, CL_PROGRAM_NUM_KERNELS, "clGetProgramInfo") == 0
                ? std::string()
                : info_text(clGetProgramInfo, created->program, CL_PROGRAM_KERNEL_NAMES, "clGetProgramInfo");
        created->kernel_arguments = recorded ? matched_to_driver(*created, std::move(recorded->kernel_arguments))
                                             : kernel_arguments_from_driver(*created);
        created->kernel_registers = recorded                               ? std::move(recorded->kernel_registers)
                                    : created->device->nv_compiler_options ? registers_from_log(build_log(*created))
                                                                           : KernelRegisterMap{};
        *program = created.release();
    });
}

duet_status program_release(duet_program program)
{
    return guard([&] { delete program; });
}

namespace {

/// The driver's binary of a program built for one device.
std::string driver_binary(const duet_program_s& program)
{
    const auto size = info<std::size_t>(clGetProgramInfo, program.program, CL_PROGRAM_BINARY_SIZES, "clGetProgramInfo");
    std::string binary(size, '\0');
    auto* destination = reinterpret_cast<unsigned char*>(binary.data());
    check(clGetProgramInfo(program.program, CL_PROGRAM_BINARIES, sizeof destination, &destination, nullptr),
          "clGetProgramInfo");
    return binary;
}

/// Whether a driver's binary is PTX text (NVIDIA's): a module's .version and .target lines.
bool is_ptx(std::string_view binary)
{
    return binary.find("\n.version ") != std::string_view::npos && binary.find("\n.target ") != std::string_view::npos;
}

} // namespace

duet_status program_options(duet_program program, const char** options)
{
    return guard([&] { *options = program->options.c_str(); });
}

duet_status program_assembly(duet_program program, duet_program_sink sink, void* context)
{
    return guard([&] {
        std::string binary = driver_binary(*program);
        if (!is_ptx(binary)) {
            fail(DUET_ERROR_UNSUPPORTED, "the " + program->device->platform_name +
                                             " driver's program binary is not PTX text (a CPU driver such as PoCL "
                                             "keeps an object file of its own): no assembly to read");
        }
        while (!binary.empty() && binary.back() == '\0') {
            binary.pop_back();
        }
        sink(context, binary.data(), binary.size());
    });
}

duet_status program_binary(duet_program program, void (*sink)(void* context, const void* data, std::size_t size),
                           void* context)
{
    return guard([&] {
        std::string binary(binary_magic);
        put_integer(binary, binary_version);
        put_integer(binary, static_cast<std::uint32_t>(program->kernel_arguments.size()));
        for (const auto& [name, arguments] : program->kernel_arguments) {
            put_text(binary, name);
            put_integer(binary, arguments.count);
            put_integer(binary, static_cast<std::uint8_t>(!arguments.qualifiers.empty()));
            for (std::size_t index = 0; index < arguments.qualifiers.size(); ++index) {
                put_integer(binary, arguments.qualifiers[index]);
                put_text(binary, arguments.types[index]);
            }
            const auto registers = program->kernel_registers.find(name);
            put_integer(binary, registers == program->kernel_registers.end() ? std::uint32_t{0} : registers->second);
        }
        // Built for one device, so the program has exactly one driver's binary.
        const std::string native = driver_binary(*program);
        put_integer(binary, static_cast<std::uint64_t>(native.size()));
        binary += native;
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
