// Queue: every argument is checked here, once for all backends, before anything is enqueued;
// a check that fails leaves the device and every buffer untouched.
#include <duet/device.hpp>
#include <duet/queue.hpp>

#include "state.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <shared_mutex>

namespace duet {

namespace {

using detail::bytes_text;

/// The operands of a size computation, named for a message: "destination origin_slice + depth".
std::string operands(const char* side, const char* what)
{
    return side ? std::string(side) + " " + what : what;
}

/// a + b, or InvalidArgument naming both when the sum wraps: an offset near SIZE_MAX must not pass
/// a bounds check. `what` says what is added ("offset + size"), `side` whose it is, if any.
std::size_t add(const detail::QueueState& queue, const char* call, std::size_t a, std::size_t b, const char* what,
                const char* side = nullptr)
{
    std::size_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) {
        detail::fail<InvalidArgument>(queue.device->backend->name(), call,
                                      operands(side, what) + " = " + std::to_string(a) + " + " + std::to_string(b) +
                                          " overflows size_t");
    }
    return sum;
}

std::size_t multiply(const detail::QueueState& queue, const char* call, std::size_t a, std::size_t b, const char* what,
                     const char* side = nullptr)
{
    std::size_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) {
        detail::fail<InvalidArgument>(queue.device->backend->name(), call,
                                      operands(side, what) + " = " + std::to_string(a) + " × " + std::to_string(b) +
                                          " overflows size_t");
    }
    return product;
}

void check_same_device(const detail::QueueState& queue, const std::shared_ptr<const detail::DeviceState>& device,
                       const char* call, const char* what)
{
    if (device != queue.device) {
        detail::fail<InvalidArgument>(queue.device->backend->name(), call,
                                      std::string(what) + " belongs to " + device->label() + ", the queue to " +
                                          queue.device->label());
    }
}

/// What a queue reaches on another device (a buffer to copy, an event to wait for) must be of its
/// backend, which must know ABI 3.2, where queue_wait took events of other devices.
void check_same_backend(const detail::QueueState& queue, const detail::DeviceState& device, const char* call,
                        const char* what)
{
    const std::string& backend = queue.device->backend->name();
    if (device.backend->name() != backend) {
        detail::fail<InvalidArgument>(backend, call,
                                      std::string(what) + " belongs to " + device.label() + " of the " +
                                          device.backend->name() + " backend, the queue to " + queue.device->label() +
                                          " of the " + backend +
                                          " backend: a queue reaches other devices of its own backend only (go "
                                          "through host memory)");
    }
    const auto& api = queue.device->api();
    if (api.abi_minor < 2) {
        detail::fail<Unsupported>(backend, call,
                                  "the " + backend + " backend was built for ABI " + std::to_string(api.abi_major) +
                                      "." + std::to_string(api.abi_minor) +
                                      "; copies and waits between devices need ABI 3.2 or newer");
    }
}

const detail::BufferState& non_empty(const detail::QueueState& queue, const RawBuffer& buffer, const char* call,
                                     const char* what)
{
    if (!buffer) {
        detail::fail<InvalidArgument>(queue.device->backend->name(), call, std::string(what) + " is an empty buffer");
    }
    return *buffer.state();
}

const detail::BufferState& checked_buffer(const detail::QueueState& queue, const RawBuffer& buffer, const char* call,
                                          const char* what)
{
    const detail::BufferState& state = non_empty(queue, buffer, call, what);
    check_same_device(queue, state.device, call, what);
    return state;
}

void check_range(const detail::QueueState& queue, const detail::BufferState& buffer, std::size_t offset,
                 std::size_t bytes, const char* call, const char* what)
{
    if (add(queue, call, offset, bytes, "offset + size", what) > buffer.bytes) {
        detail::fail<InvalidArgument>(queue.device->backend->name(), call,
                                      std::string(what) + ": offset " + bytes_text(offset) + " + size " +
                                          bytes_text(bytes) + " exceeds the buffer's " + bytes_text(buffer.bytes));
    }
}

void check_host(const detail::QueueState& queue, const void* pointer, const char* call)
{
    if (pointer == nullptr) {
        detail::fail<InvalidArgument>(queue.device->backend->name(), call, "null host pointer");
    }
}

/// Fills in a single slice's rows_per_slice and checks that the rectangle fits its pitches.
duet_rect_side rect_side(const detail::QueueState& queue, const RectSide& side, const Extent& extent, const char* call,
                         const char* what)
{
    const std::string name = queue.device->backend->name();
    if (add(queue, call, side.origin_bytes, extent.width_bytes, "origin_bytes + width_bytes", what) > side.row_pitch) {
        detail::fail<InvalidArgument>(name, call,
                                      std::string(what) + " row pitch " + bytes_text(side.row_pitch) +
                                          " is smaller than its row (origin " + bytes_text(side.origin_bytes) +
                                          " + width " + bytes_text(extent.width_bytes) + ")");
    }
    const std::size_t rows_needed = add(queue, call, side.origin_row, extent.height, "origin_row + height", what);
    const bool single_slice = extent.depth == 1 && side.origin_slice == 0;
    const std::size_t rows_per_slice = single_slice && side.rows_per_slice == 0 ? rows_needed : side.rows_per_slice;
    if (rows_per_slice < rows_needed) {
        detail::fail<InvalidArgument>(name, call,
                                      std::string(what) + " has " + std::to_string(rows_per_slice) +
                                          " rows per slice, fewer than its origin row + height (" +
                                          std::to_string(rows_needed) + ")");
    }
    return {side.origin_bytes, side.origin_row, side.origin_slice, side.row_pitch, rows_per_slice};
}

/// One past the last byte a non-empty rectangle touches, every step checked for overflow.
std::size_t rect_end(const detail::QueueState& queue, const duet_rect_side& side, const Extent& extent,
                     const char* call, const char* what)
{
    const std::size_t slice_pitch =
        multiply(queue, call, side.row_pitch, side.rows_per_slice, "slice pitch row_pitch × rows_per_slice", what);
    const std::size_t last_slice = add(queue, call, side.origin_slice, extent.depth, "origin_slice + depth", what) - 1;
    const std::size_t last_row = add(queue, call, side.origin_row, extent.height, "origin_row + height", what) - 1;
    const std::size_t slice_start = multiply(queue, call, last_slice, slice_pitch, "last slice × slice pitch", what);
    const std::size_t row_start = multiply(queue, call, last_row, side.row_pitch, "last row × row_pitch", what);
    const std::size_t row_end =
        add(queue, call, side.origin_bytes, extent.width_bytes, "origin_bytes + width_bytes", what);
    return add(queue, call, add(queue, call, slice_start, row_start, "last slice start + last row start", what),
               row_end, "last row start + origin_bytes + width_bytes", what);
}

void check_rect_buffer(const detail::QueueState& queue, const detail::BufferState& buffer, const duet_rect_side& side,
                       const Extent& extent, const char* call, const char* what)
{
    const std::size_t end = rect_end(queue, side, extent, call, what);
    if (end > buffer.bytes) {
        detail::fail<InvalidArgument>(queue.device->backend->name(), call,
                                      std::string(what) + " rectangle ends at byte " + std::to_string(end) +
                                          ", past the buffer's " + bytes_text(buffer.bytes));
    }
}

/// The host side has no size to check against, but its last byte must still be an address.
void check_rect_host(const detail::QueueState& queue, const void* pointer, const duet_rect_side& side,
                     const Extent& extent, const char* call, const char* what)
{
    const std::size_t end = rect_end(queue, side, extent, call, what);
    if (reinterpret_cast<std::uintptr_t>(pointer) > std::numeric_limits<std::uintptr_t>::max() - end) {
        detail::fail<InvalidArgument>(queue.device->backend->name(), call,
                                      std::string(what) + " rectangle ends " + std::to_string(end) +
                                          " bytes past the host pointer, beyond the address space");
    }
}

bool empty(const Extent& extent)
{
    return extent.width_bytes == 0 || extent.height == 0 || extent.depth == 0;
}

duet_extent native_extent(const Extent& extent)
{
    return {extent.width_bytes, extent.height, extent.depth};
}

/// "32×32×1"
template <class Dims> std::string dims_text(const Dims& dims)
{
    return std::to_string(dims[0]) + "×" + std::to_string(dims[1]) + "×" + std::to_string(dims[2]);
}

/// A block the kernel rules out is the caller's error (InvalidArgument); one that the kernel's
/// registers, or a driver that gives no cause, rule out on this device is a limit of the device
/// (Unsupported): another may launch it. Each message names the limit and what sets it.
[[noreturn]] void refuse_block(const std::string& backend, const char* call, const detail::KernelState& kernel,
                               const std::array<std::size_t, 3>& block)
{
    const KernelProperties& kp = kernel.properties;
    const std::string shape = dims_text(block);
    const std::uint64_t threads = block[0] * block[1] * block[2];
    const std::string start =
        "kernel '" + kernel.name + "': block of " + shape + " = " + std::to_string(threads) + " work-items";
    if (kp.required_block[0] != 0 && !std::equal(block.begin(), block.end(), kp.required_block.begin())) {
        detail::fail<InvalidArgument>(backend, call,
                                      start + ", but the kernel declares its block as " + dims_text(kp.required_block) +
                                          " (reqd_work_group_size)");
    }
    switch (kp.max_block_limit) {
    case BlockLimit::declared:
        detail::fail<InvalidArgument>(backend, call,
                                      start + " exceeds the " + std::to_string(kp.max_block_size) +
                                          " the kernel declares as its largest (__launch_bounds__)");
    case BlockLimit::registers:
        detail::fail<Unsupported>(backend, call,
                                  start + " exceeds the " + std::to_string(kp.max_block_size) +
                                      " this device's register file holds at the kernel's " +
                                      std::to_string(kp.registers) + " registers a work-item");
    case BlockLimit::device:
    case BlockLimit::driver:
        break;
    }
    detail::fail<Unsupported>(
        backend, call,
        start + " exceeds the kernel's max_block_size " + std::to_string(kp.max_block_size) +
            " on this device, as the driver reports it (CL_KERNEL_WORK_GROUP_SIZE; no cause given)");
}

using Gate = std::shared_lock<std::shared_mutex>;

/// InvalidArgument while the queue records a sequence, for what a sequence cannot hold: `why`.
/// Otherwise the queue's gate, held until the command has reached the backend, so that no
/// recording starts in between.
[[nodiscard]] Gate refuse_while_recording(const detail::QueueState& queue, const char* call, const char* why)
{
    Gate gate(queue.recording_gate);
    if (queue.recording != nullptr) [[unlikely]] {
        detail::fail<InvalidArgument>(queue.device->backend->name(), call,
                                      std::string("not while the queue records a sequence: ") + why);
    }
    return gate;
}

constexpr const char* touches_host = "a recorded sequence cannot touch host memory (copy through a device "
                                     "buffer before or after recording)";
constexpr const char* synchronises = "a recorded sequence cannot synchronise (record, wait or finish before or "
                                     "after recording)";

/// Enqueues `command`, or while the queue records a sequence, records it: the backend captures it
/// as it is enqueued, or the core keeps it for its plain replay. Either way `keep` adds what the
/// command uses to the sequence, which keeps it alive. The caller holds the queue's gate.
template <class Command, class Keep>
void enqueue(const detail::QueueState& queue, const Gate&, const Command& command, const Keep& keep)
{
    detail::SequenceState* recording = queue.recording;
    if (recording == nullptr) [[likely]] {
        queue.device->check(command(queue.handle));
        return;
    }
    std::lock_guard lock(queue.recording_mutex);
    if (recording->method == ReplayMethod::plain) {
        recording->commands.emplace_back(command);
    } else {
        queue.device->check(command(queue.handle));
    }
    keep(recording->kept);
    ++recording->count;
}

/// A launch as a sequence keeps it: the argument values copied, since the caller's are gone by
/// the time it replays.
struct RecordedLaunch {
    duet_kernel kernel = nullptr;
    duet_launch_range range{};
    std::vector<duet_kernel_arg> args; ///< values point into `values`
    std::vector<unsigned char> values;

    RecordedLaunch(duet_kernel kernel, const duet_launch_range& range, const duet_kernel_arg* native, std::size_t count)
        : kernel(kernel), range(range), args(native, native + count)
    {
        std::size_t bytes = 0;
        for (const duet_kernel_arg& arg : args) {
            bytes += arg.kind == DUET_ARG_VALUE ? arg.size : 0;
        }
        values.resize(bytes);
        std::size_t at = 0;
        for (duet_kernel_arg& arg : args) {
            if (arg.kind == DUET_ARG_VALUE) {
                std::memcpy(values.data() + at, arg.value, arg.size);
                arg.value = values.data() + at;
                at += arg.size;
            }
        }
    }
};

// --- a launch, in the steps launch_packed takes: each check throws before anything is enqueued ---

/// A launch's range as the ABI takes it, and the work-items of one block.
struct LaunchShape {
    std::uint32_t dims = 1;
    std::array<std::size_t, 3> grid{};
    std::array<std::size_t, 3> block{};
    std::size_t threads = 1;

    duet_launch_range native() const { return {dims, {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]}}; }
};

constexpr const char* axes = "xyz";

/// "kernel 'scale': y", where a message about one axis of a launch starts. Messages are built only
/// on failure: the checks run on every launch.
std::string axis_text(const detail::KernelState& kernel, std::uint32_t d)
{
    return std::string("kernel '") + kernel.name + "': " + axes[d];
}

/// A malformed range is the caller's error whatever the device (InvalidArgument): 1 to 3
/// dimensions, no empty axis, 1 along the axes past its dimensions, and sizes that size_t holds.
LaunchShape checked_shape(const std::string& backend, const char* call, const detail::KernelState& kernel,
                          const Range& range)
{
    if (range.dims < 1 || range.dims > 3) {
        detail::fail<InvalidArgument>(backend, call,
                                      "a range has 1 to 3 dimensions, not " + std::to_string(range.dims));
    }
    LaunchShape shape{
        range.dims, {range.grid.x, range.grid.y, range.grid.z}, {range.block.x, range.block.y, range.block.z}};
    for (std::uint32_t d = 0; d < 3; ++d) {
        const std::size_t grid = shape.grid[d], block = shape.block[d];
        if (grid == 0 || block == 0) {
            detail::fail<InvalidArgument>(backend, call,
                                          axis_text(kernel, d) + " of the range is empty (grid " +
                                              std::to_string(grid) + ", block " + std::to_string(block) + ")");
        }
        if (d >= range.dims && (grid != 1 || block != 1)) {
            detail::fail<InvalidArgument>(backend, call,
                                          axis_text(kernel, d) + " lies beyond the range's " +
                                              std::to_string(range.dims) + " dimension(s) and must be 1");
        }
        std::size_t global = 0;
        if (__builtin_mul_overflow(grid, block, &global)) {
            detail::fail<InvalidArgument>(backend, call,
                                          axis_text(kernel, d) + " global size grid × block overflows size_t");
        }
        if (__builtin_mul_overflow(shape.threads, block, &shape.threads)) {
            detail::fail<InvalidArgument>(backend, call,
                                          "kernel '" + kernel.name + "': block " + dims_text(shape.block) +
                                              " has more work-items than size_t holds");
        }
    }
    return shape;
}

/// A block the kernel's own declaration rules out (reqd_work_group_size, __launch_bounds__) is
/// the caller's error too, on every device.
void check_declared_block(const std::string& backend, const char* call, const detail::KernelState& kernel,
                          const LaunchShape& shape)
{
    const KernelProperties& kp = kernel.properties;
    if ((kp.required_block[0] != 0 && !std::equal(shape.block.begin(), shape.block.end(), kp.required_block.begin())) ||
        (kp.max_block_limit == BlockLimit::declared && shape.threads > kp.max_block_size)) {
        refuse_block(backend, call, kernel, shape.block);
    }
}

/// The device's largest block and grid along each axis, its largest block, and the kernel's on it
/// (its registers, or what the driver says): limits of this device (Unsupported).
void check_device_limits(const std::string& backend, const char* call, const detail::KernelState& kernel,
                         const LaunchShape& shape, const DeviceProperties& p)
{
    for (std::uint32_t d = 0; d < 3; ++d) {
        if (shape.block[d] > p.max_block_dims[d]) {
            detail::fail<Unsupported>(backend, call,
                                      axis_text(kernel, d) + " block size " + std::to_string(shape.block[d]) +
                                          " exceeds the device's max_block_dims[" + std::to_string(d) +
                                          "] = " + std::to_string(p.max_block_dims[d]) + " (its largest block along " +
                                          axes[d] + ")");
        }
        if (shape.grid[d] > p.max_grid_dims[d]) {
            detail::fail<Unsupported>(backend, call,
                                      axis_text(kernel, d) + " grid size " + std::to_string(shape.grid[d]) +
                                          " exceeds the device's max_grid_dims[" + std::to_string(d) +
                                          "] = " + std::to_string(p.max_grid_dims[d]));
        }
    }
    if (shape.threads > p.max_block_size) {
        detail::fail<Unsupported>(backend, call,
                                  "kernel '" + kernel.name + "': block of " + dims_text(shape.block) + " = " +
                                      std::to_string(shape.threads) +
                                      " work-items exceeds the device's max_block_size " +
                                      std::to_string(p.max_block_size) + " (its largest work-group)");
    }
    if (kernel.properties.max_block_size != 0 && shape.threads > kernel.properties.max_block_size) {
        refuse_block(backend, call, kernel, shape.block);
    }
}

/// A launch's arguments as the ABI takes them: in place for the usual few, so that a launch need
/// not allocate; and how much LocalMemory they ask for.
struct PackedArgs {
    std::array<duet_kernel_arg, 16> in_place;
    std::vector<duet_kernel_arg> on_heap; ///< only when there are more
    std::size_t local_args = 0;
    std::size_t dynamic_local = 0; ///< bytes, of the last LocalMemory argument

    duet_kernel_arg* data() { return on_heap.empty() ? in_place.data() : on_heap.data(); }
    const duet_kernel_arg* data() const { return on_heap.empty() ? in_place.data() : on_heap.data(); }
};

/// Each argument in the ABI's form; a buffer that is empty or of another device is refused
/// (InvalidArgument), naming the argument.
PackedArgs pack_arguments(const detail::QueueState& queue, const char* call, const detail::KernelState& kernel,
                          const detail::LaunchArg* args, std::size_t count)
{
    PackedArgs packed;
    if (count > packed.in_place.size()) {
        packed.on_heap.resize(count);
    }
    duet_kernel_arg* native = packed.data();
    for (std::size_t i = 0; i < count; ++i) {
        const auto& arg = args[i];
        switch (arg.kind) {
        case detail::LaunchArg::Kind::buffer: {
            const auto& buffer = arg.buffer->state();
            if (!buffer || buffer->device != queue.device) {
                checked_buffer(queue, *arg.buffer, call,
                               ("argument " + std::to_string(i) + " of kernel '" + kernel.name + "'").c_str());
            }
            native[i] = {DUET_ARG_BUFFER, buffer->handle, nullptr, 0};
            break;
        }
        case detail::LaunchArg::Kind::value:
            native[i] = {DUET_ARG_VALUE, nullptr, arg.value, arg.size};
            break;
        case detail::LaunchArg::Kind::local:
            packed.dynamic_local = arg.size;
            ++packed.local_args;
            native[i] = {DUET_ARG_LOCAL, nullptr, nullptr, arg.size};
            break;
        }
    }
    return packed;
}

/// At most one LocalMemory argument (InvalidArgument), and its bytes with the kernel's static
/// local memory within the device's local memory per block, opted-in where larger (Unsupported).
void check_local_memory(const std::string& backend, const char* call, const detail::KernelState& kernel,
                        const PackedArgs& packed, const DeviceProperties& p)
{
    if (packed.local_args > 1) {
        detail::fail<InvalidArgument>(
            backend, call,
            "kernel '" + kernel.name +
                "': at most one LocalMemory argument per launch (CUDA has one dynamic shared memory block)");
    }
    const std::uint64_t local_limit = p.local_memory_per_block_optin > p.local_memory_per_block
                                          ? p.local_memory_per_block_optin
                                          : p.local_memory_per_block;
    const std::size_t dynamic_local = packed.dynamic_local;
    // Compared without the sum, which a LocalMemory near SIZE_MAX would wrap.
    if (dynamic_local > local_limit || kernel.properties.static_local_memory > local_limit - dynamic_local) {
        detail::fail<Unsupported>(backend, call,
                                  "kernel '" + kernel.name + "': local memory of " + std::to_string(dynamic_local) +
                                      " dynamic + " + std::to_string(kernel.properties.static_local_memory) +
                                      " static bytes exceeds the device's local_memory_per_block " +
                                      std::to_string(local_limit) + " (its local memory per block" +
                                      (local_limit > p.local_memory_per_block ? ", opted in" : "") + ")");
    }
}

/// Launches now; or, while the queue records a sequence, records the launch with its argument
/// values copied, the sequence keeping the kernel and the buffers alive.
void launch_or_record(const detail::QueueState& queue, const Kernel& kernel, const Range& given,
                      const LaunchShape& shape, const PackedArgs& packed, const detail::LaunchArg* args,
                      std::size_t count)
{
    const detail::DeviceState& device = *queue.device;
    const duet_kernel handle = kernel.state()->handle;
    const duet_launch_range range = shape.native();
    const Gate gate(queue.recording_gate);
    if (queue.recording == nullptr) [[likely]] {
        device.check(
            device.api().queue_launch(queue.handle, handle, &range, packed.data(), static_cast<std::uint32_t>(count)));
        if (!queue.unlogged) {
            device.log_launch(kernel, given, packed.dynamic_local, false);
        }
        return;
    }
    auto recorded = std::make_shared<const RecordedLaunch>(handle, range, packed.data(), count);
    enqueue(
        queue, gate,
        [launch = device.api().queue_launch, recorded](duet_queue native) {
            return launch(native, recorded->kernel, &recorded->range, recorded->args.data(),
                          static_cast<std::uint32_t>(recorded->args.size()));
        },
        [&](auto& kept) {
            kept.push_back(kernel.state());
            for (std::size_t i = 0; i < count; ++i) {
                if (args[i].kind == detail::LaunchArg::Kind::buffer) {
                    kept.push_back(args[i].buffer->state());
                }
            }
        });
    if (!queue.unlogged) {
        device.log_launch(kernel, given, packed.dynamic_local, true);
    }
}

/// A recording from the moment the queue records: end() stops it, the gate held alone, and the
/// backend's recording ends into the sequence; if the commands threw, the destructor stops it and
/// the backend's recording is dropped.
struct RecordingScope {
    const detail::QueueState& queue;
    bool backend_recording = false;
    bool ended = false;

    /// The backend's recording ends into `handle`, or is dropped where `handle` is null.
    duet_status end(duet_sequence* handle)
    {
        const std::unique_lock gate(queue.recording_gate);
        ended = true;
        queue.recording = nullptr;
        return backend_recording ? queue.device->api().queue_end_recording(queue.handle, handle) : DUET_SUCCESS;
    }

    ~RecordingScope()
    {
        if (!ended) {
            end(nullptr);
        }
    }
};

/// A copy between the queue's device and another of its backend (Queue::copy_bytes).
void copy_between_devices(const detail::QueueState& queue, const detail::BufferState& to, std::size_t dst_offset,
                          const detail::BufferState& from, std::size_t src_offset, std::size_t bytes,
                          std::optional<PeerRoute> route)
{
    constexpr const char* call = "Queue::copy";
    const std::string& backend = queue.device->backend->name();
    check_same_backend(queue, *to.device, call, "the destination");
    check_same_backend(queue, *from.device, call, "the source");
    if (to.device != queue.device && from.device != queue.device) {
        detail::fail<InvalidArgument>(backend, call,
                                      "neither buffer is on the queue's device: the destination is on " +
                                          to.device->label() + ", the source on " + from.device->label() +
                                          ", the queue on " + queue.device->label());
    }
    check_range(queue, to, dst_offset, bytes, call, "destination");
    check_range(queue, from, src_offset, bytes, call, "source");
    const Gate gate = refuse_while_recording(
        queue, call, "a recorded sequence cannot copy between devices (copy before or after recording)");
    const detail::BufferState& foreign = to.device == queue.device ? from : to;
    const bool reachable = detail::peer_access(*foreign.device, *queue.device);
    if (route == PeerRoute::direct && !reachable) {
        detail::fail<Unsupported>(backend, call,
                                  "no direct route between " + foreign.device->label() + " and " +
                                      queue.device->label() +
                                      ": the queue's device cannot access the other's memory (the backend reports no "
                                      "peer access); copy by PeerRoute::staged, or let duet choose");
    }
    if (bytes == 0) {
        return;
    }
    const auto& api = queue.device->api();
    if (route.value_or(reachable ? PeerRoute::direct : PeerRoute::staged) == PeerRoute::direct) {
        queue.device->check(queue.device->backend->require(api.queue_copy_peer, "direct copies between devices")(
            queue.handle, to.handle, dst_offset, from.handle, src_offset, bytes));
    } else {
        detail::copy_staged(queue, to, dst_offset, from, src_offset, bytes);
    }
    auto done = std::make_shared<detail::EventState>();
    done->device = queue.device;
    queue.device->check(api.queue_record(queue.handle, &done->handle));
    foreign.add_foreign_copy(std::move(done));
}

} // namespace

Device Queue::device() const
{
    const detail::QueueState& state = detail::live(state_, "Queue::device", "Queue");
    return Device(state.device);
}

std::size_t Queue::checked_product(std::size_t a, std::size_t b, const char* call, const char* what) const
{
    const detail::QueueState& state = detail::live(state_, call, "Queue");
    return multiply(state, call, a, b, what);
}

void Queue::check_count(std::size_t expected, std::size_t given)
{
    if (expected != given) {
        detail::fail<InvalidArgument>("duet", "Queue copy",
                                      "element counts differ: destination " + std::to_string(expected) + ", source " +
                                          std::to_string(given));
    }
}

void Queue::write_bytes(const RawBuffer& dst, std::size_t dst_offset, const void* src, std::size_t bytes)
{
    const detail::QueueState& state = detail::live(state_, "Queue::write", "Queue");
    constexpr const char* call = "Queue::write";
    const Gate gate = refuse_while_recording(state, call, touches_host);
    const auto& buffer = checked_buffer(state, dst, call, "destination");
    check_host(state, src, call);
    check_range(state, buffer, dst_offset, bytes, call, "destination");
    if (bytes != 0) {
        state.device->check(state.device->api().queue_write(state.handle, buffer.handle, dst_offset, src, bytes));
    }
}

void Queue::read_bytes(void* dst, const RawBuffer& src, std::size_t src_offset, std::size_t bytes)
{
    const detail::QueueState& state = detail::live(state_, "Queue::read", "Queue");
    constexpr const char* call = "Queue::read";
    const Gate gate = refuse_while_recording(state, call, touches_host);
    const auto& buffer = checked_buffer(state, src, call, "source");
    check_host(state, dst, call);
    check_range(state, buffer, src_offset, bytes, call, "source");
    if (bytes != 0) {
        state.device->check(state.device->api().queue_read(state.handle, dst, buffer.handle, src_offset, bytes));
    }
}

void Queue::copy_bytes(const RawBuffer& dst, std::size_t dst_offset, const RawBuffer& src, std::size_t src_offset,
                       std::size_t bytes, std::optional<PeerRoute> route)
{
    const detail::QueueState& state = detail::live(state_, "Queue::copy", "Queue");
    constexpr const char* call = "Queue::copy";
    const auto& to = non_empty(state, dst, call, "destination");
    const auto& from = non_empty(state, src, call, "source");
    if (to.device != state.device || from.device != state.device) {
        copy_between_devices(state, to, dst_offset, from, src_offset, bytes, route);
        return;
    }
    if (route == PeerRoute::staged) {
        detail::fail<InvalidArgument>(state.device->backend->name(), call,
                                      "a staged route is for copies between two devices; both buffers are on " +
                                          state.device->label());
    }
    check_range(state, to, dst_offset, bytes, call, "destination");
    check_range(state, from, src_offset, bytes, call, "source");
    if (&to == &from && dst_offset < src_offset + bytes && src_offset < dst_offset + bytes) {
        detail::fail<InvalidArgument>(state.device->backend->name(), call,
                                      "source and destination overlap within one buffer");
    }
    if (bytes != 0) {
        const auto copy = state.device->api().queue_copy;
        const Gate gate(state.recording_gate);
        enqueue(
            state, gate,
            [copy, to = to.handle, dst_offset, from = from.handle, src_offset, bytes](duet_queue queue) {
                return copy(queue, to, dst_offset, from, src_offset, bytes);
            },
            [&](auto& kept) {
                kept.insert(kept.end(), {dst.state(), src.state()});
            });
    }
}

void Queue::fill_bytes(const RawBuffer& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                       std::size_t pattern_size)
{
    const detail::QueueState& state = detail::live(state_, "Queue::fill", "Queue");
    constexpr const char* call = "Queue::fill";
    const auto& buffer = checked_buffer(state, dst, call, "destination");
    const std::string& name = state.device->backend->name();
    if (pattern == nullptr || pattern_size == 0 || pattern_size > 128 || !std::has_single_bit(pattern_size)) {
        detail::fail<InvalidArgument>(name, call,
                                      "the pattern must be 1, 2, 4, ... or 128 bytes (OpenCL's limit); got " +
                                          bytes_text(pattern_size));
    }
    if (offset % pattern_size != 0 || bytes % pattern_size != 0) {
        detail::fail<InvalidArgument>(name, call,
                                      "offset " + bytes_text(offset) + " and size " + bytes_text(bytes) +
                                          " must be multiples of the " + bytes_text(pattern_size) + " pattern");
    }
    check_range(state, buffer, offset, bytes, call, "destination");
    if (bytes != 0) {
        const auto fill = state.device->backend->require(state.device->api().queue_fill, "fills");
        std::array<unsigned char, 128> value{};
        std::memcpy(value.data(), pattern, pattern_size);
        const Gate gate(state.recording_gate);
        enqueue(
            state, gate,
            [fill, to = buffer.handle, offset, bytes, value, pattern_size](duet_queue queue) {
                return fill(queue, to, offset, bytes, value.data(), pattern_size);
            },
            [&](auto& kept) { kept.push_back(dst.state()); });
    }
}

void Queue::write_rect(const RawBuffer& dst, const RectSide& dst_side, const void* src, const RectSide& src_side,
                       const Extent& extent)
{
    const detail::QueueState& state = detail::live(state_, "Queue::write_rect", "Queue");
    constexpr const char* call = "Queue::write_rect";
    const Gate gate = refuse_while_recording(state, call, touches_host);
    const auto& buffer = checked_buffer(state, dst, call, "destination");
    check_host(state, src, call);
    const auto to = rect_side(state, dst_side, extent, call, "destination");
    const auto from = rect_side(state, src_side, extent, call, "source");
    if (empty(extent)) {
        return;
    }
    check_rect_buffer(state, buffer, to, extent, call, "destination");
    check_rect_host(state, src, from, extent, call, "source");
    const auto region = native_extent(extent);
    state.device->check(state.device->backend->require(state.device->api().queue_write_rect, "rectangular copies")(
        state.handle, buffer.handle, &to, src, &from, &region));
}

void Queue::read_rect(void* dst, const RectSide& dst_side, const RawBuffer& src, const RectSide& src_side,
                      const Extent& extent)
{
    const detail::QueueState& state = detail::live(state_, "Queue::read_rect", "Queue");
    constexpr const char* call = "Queue::read_rect";
    const Gate gate = refuse_while_recording(state, call, touches_host);
    const auto& buffer = checked_buffer(state, src, call, "source");
    check_host(state, dst, call);
    const auto to = rect_side(state, dst_side, extent, call, "destination");
    const auto from = rect_side(state, src_side, extent, call, "source");
    if (empty(extent)) {
        return;
    }
    check_rect_buffer(state, buffer, from, extent, call, "source");
    check_rect_host(state, dst, to, extent, call, "destination");
    const auto region = native_extent(extent);
    state.device->check(state.device->backend->require(state.device->api().queue_read_rect, "rectangular copies")(
        state.handle, dst, &to, buffer.handle, &from, &region));
}

void Queue::copy_rect(const RawBuffer& dst, const RectSide& dst_side, const RawBuffer& src, const RectSide& src_side,
                      const Extent& extent)
{
    const detail::QueueState& state = detail::live(state_, "Queue::copy_rect", "Queue");
    constexpr const char* call = "Queue::copy_rect";
    const auto& to_buffer = checked_buffer(state, dst, call, "destination");
    const auto& from_buffer = checked_buffer(state, src, call, "source");
    const auto to = rect_side(state, dst_side, extent, call, "destination");
    const auto from = rect_side(state, src_side, extent, call, "source");
    if (empty(extent)) {
        return;
    }
    check_rect_buffer(state, to_buffer, to, extent, call, "destination");
    check_rect_buffer(state, from_buffer, from, extent, call, "source");
    const auto copy = state.device->backend->require(state.device->api().queue_copy_rect, "rectangular copies");
    const Gate gate(state.recording_gate);
    enqueue(
        state, gate,
        [copy, to_handle = to_buffer.handle, to, from_handle = from_buffer.handle, from,
         region = native_extent(extent)](duet_queue queue) {
            return copy(queue, to_handle, &to, from_handle, &from, &region);
        },
        [&](auto& kept) {
            kept.insert(kept.end(), {dst.state(), src.state()});
        });
}

void Queue::launch_packed(const Kernel& kernel, const Range& range, const detail::LaunchArg* args, std::size_t count)
{
    constexpr const char* call = "Queue::launch";
    const detail::QueueState& state = detail::live(state_, call, "Queue");
    const auto& k = detail::live(kernel.state(), call, "Kernel");
    if (k.program->device != state.device) {
        check_same_device(state, k.program->device, call, ("kernel '" + k.name + "'").c_str());
    }
    const std::string& backend = state.device->backend->name();
    const DeviceProperties& device = state.device->properties;
    const LaunchShape shape = checked_shape(backend, call, k, range);
    check_declared_block(backend, call, k, shape);
    check_device_limits(backend, call, k, shape, device);
    const PackedArgs packed = pack_arguments(state, call, k, args, count);
    check_local_memory(backend, call, k, packed, device);
    launch_or_record(state, kernel, range, shape, packed, args, count);
}

Event Queue::record()
{
    const detail::QueueState& state = detail::live(state_, "Queue::record", "Queue");
    const Gate gate = refuse_while_recording(state, "Queue::record", synchronises);
    auto event = std::make_shared<detail::EventState>();
    event->device = state.device;
    state.device->check(state.device->api().queue_record(state.handle, &event->handle));
    return Event(std::move(event));
}

void Queue::wait(const Event& event)
{
    const detail::QueueState& state = detail::live(state_, "Queue::wait", "Queue");
    const Gate gate = refuse_while_recording(state, "Queue::wait", synchronises);
    const auto& waited = detail::live(event.state(), "Queue::wait", "Event");
    if (waited.device != state.device) {
        check_same_backend(state, *waited.device, "Queue::wait", "the event");
    }
    state.device->check(state.device->api().queue_wait(state.handle, waited.handle));
}

void Queue::finish()
{
    const detail::QueueState& state = detail::live(state_, "Queue::finish", "Queue");
    const Gate gate = refuse_while_recording(state, "Queue::finish", synchronises);
    state.device->check(state.device->api().queue_finish(state.handle));
}

Sequence Queue::record_sequence(const std::function<void(Queue&)>& commands, Recording how)
{
    constexpr const char* call = "Queue::record_sequence";
    const detail::QueueState& state = detail::live(state_, call, "Queue");
    const auto& device = *state.device;
    std::string plain_reason = "a plain replay was asked for (Recording::plain)";
    if (how == Recording::fastest) {
        // Before the queue is taken: the measurement, the first time, runs on a queue of its own.
        const auto choice = replay_choice(Device(state.device));
        how = Recording::native;
        if (choice && choice->plain_is_faster()) {
            how = Recording::plain;
            plain_reason = "the plain replay is the faster on this device: " + choice->text();
        }
    }
    auto sequence = std::make_shared<detail::SequenceState>();
    sequence->device = state.device;
    bool backend_recording = false;
    {
        // Alone on the queue: commands other threads issue meanwhile wait, then are recorded too.
        const std::unique_lock gate(state.recording_gate);
        if (state.recording != nullptr) {
            detail::fail<InvalidArgument>(device.backend->name(), call,
                                          "the queue is already recording a sequence; sequences do not nest");
        }
        // Idle before it records, so that waiting for the device's queues (freeing host memory)
        // has nothing of this one to wait for meanwhile.
        device.check(device.api().queue_finish(state.handle));
        const auto begin = device.api().queue_begin_recording;
        if (how == Recording::plain) {
            sequence->reason = plain_reason;
        } else if (begin == nullptr || device.api().queue_end_recording == nullptr ||
                   device.api().sequence_replay == nullptr || device.api().sequence_release == nullptr) {
            sequence->reason = "the " + device.backend->name() +
                               " backend records no sequences (its function table has no recording slots)";
        } else {
            duet_replay_method method = DUET_REPLAY_GRAPH;
            try {
                device.check(begin(state.handle, &method));
                backend_recording = true;
                sequence->method = method == DUET_REPLAY_GRAPH ? ReplayMethod::graph : ReplayMethod::command_buffer;
            } catch (const Unsupported& unsupported) {
                sequence->reason = unsupported.message();
            }
        }
        state.recording = sequence.get();
    }
    RecordingScope scope{state, backend_recording};
    commands(*this);
    device.check(scope.end(&sequence->handle));
    return Sequence(std::move(sequence));
}

void Queue::replay(const Sequence& sequence)
{
    constexpr const char* call = "Queue::replay";
    const detail::QueueState& state = detail::live(state_, call, "Queue");
    const auto& replayed = detail::live(sequence.state(), call, "Sequence");
    check_same_device(state, replayed.device, call, "the sequence");
    const Gate gate = refuse_while_recording(state, call, "sequences do not nest (record the commands themselves)");
    if (replayed.handle != nullptr) {
        const std::lock_guard one_at_a_time(replayed.replay_mutex);
        state.device->check(state.device->api().sequence_replay(replayed.handle, state.handle));
        return;
    }
    for (const detail::RecordedCommand& command : replayed.commands) {
        state.device->check(command(state.handle));
    }
}

void* Queue::native() const
{
    const detail::QueueState& state = detail::live(state_, "Queue::native", "Queue");
    void* native = nullptr;
    state.device->check(state.device->backend->require(state.device->api().queue_native,
                                                       "native queue handles")(state.handle, &native));
    return native;
}

namespace detail {
QueueState::~QueueState()
{
    if (handle != nullptr) {
        // Work still queued may read host memory that is freed next (unwinding frees what was
        // declared after the queue first); a failure here has nowhere to go and is dropped.
        device->api().queue_finish(handle);
        device->remove_queue(*this);
        device->api().queue_release(handle);
    }
}
} // namespace detail

} // namespace duet
