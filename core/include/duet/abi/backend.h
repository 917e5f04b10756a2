/* duet backend plugin ABI: the only contract between the core library and a backend plugin.
 * Plain C so that any compiler and language can implement it. A backend exports one symbol,
 * duet_backend_entry, which hands out its function table for a requested ABI version. */
#ifndef DUET_ABI_BACKEND_H
#define DUET_ABI_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The major version changes when anything existing changes meaning; the minor version grows when
 * slots are appended to the end of DUET_BACKEND_SLOTS or fields to the end of a sized struct. A
 * core accepts a backend whose major equals its own; slots past the backend's reported table size
 * are treated as "not supported", and a table too small to hold every required slot is refused.
 * 2.0: sized structs (the size field first), and the CUDA-only cache preference reached through
 * the extension slot rather than a slot of its own. 3.0: kernel_properties, with what sets a
 * kernel's largest block, in the place of kernel_limits. 3.1: recorded sequences (queue_begin_recording,
 * queue_end_recording, sequence_replay, sequence_release). 3.2: copies between devices of one backend
 * (device_peer_access, queue_copy_peer), and queue_wait taking an event of another device. 3.3: the
 * compiled code as text (program_assembly), the options the compiler was given (program_options), the
 * PTX a fatbin was compiled from (DUET_FORMAT_PTX), and the driver's occupancy
 * (DUET_EXTENSION_KERNEL_OCCUPANCY). */
#define DUET_ABI_MAJOR 3
#define DUET_ABI_MINOR 3
#define DUET_BACKEND_ENTRY_SYMBOL "duet_backend_entry"
#define DUET_BACKEND_EXPORT __attribute__((visibility("default")))

typedef enum duet_status {
    DUET_SUCCESS = 0,
    DUET_ERROR_BACKEND = 1,          /* a native API call failed; the detail names it */
    DUET_ERROR_INVALID_ARGUMENT = 2, /* bad sizes, ranges, handles of another device */
    DUET_ERROR_NOT_FOUND = 3,        /* unknown kernel name and similar look-ups */
    DUET_ERROR_BUILD = 4,            /* program build failed; the message holds the full log */
    DUET_ERROR_UNSUPPORTED = 5,      /* the backend cannot do this at all */
    DUET_ERROR_OUT_OF_MEMORY = 6,
    DUET_ERROR_UNAVAILABLE = 7, /* the backend cannot run here (no driver, no devices) */
    DUET_ERROR_ABI_MISMATCH = 8
} duet_status;

/* Structs that a backend fills for the core start with their size, so that a minor version can
 * append fields: the caller sets size to sizeof the struct it knows; the backend writes no more
 * than that, nor more than its own struct, and sets size to the bytes it wrote. The caller
 * zero-fills first, so fields an older backend does not know read as zero ("not known"). Structs
 * the core hands in (ranges, copies, arguments) have a fixed layout for a major version. */

/* Detail of the last failure on the calling thread. The strings live in the backend and stay
 * valid until that thread's next call into the same backend. */
typedef struct duet_error_detail {
    size_t size;
    const char* call;        /* the native call that failed, e.g. "clEnqueueNDRangeKernel" */
    int64_t native_code;     /* e.g. -54 for CL_INVALID_WORK_GROUP_SIZE, 0 when none */
    const char* native_name; /* e.g. "CL_INVALID_WORK_GROUP_SIZE", "" when none */
    const char* message;     /* readable explanation; the full compiler log for DUET_ERROR_BUILD */
} duet_error_detail;

/* Opaque handles, owned by the backend. */
typedef struct duet_device_s* duet_device;
typedef struct duet_queue_s* duet_queue;
typedef struct duet_buffer_s* duet_buffer;
typedef struct duet_host_memory_s* duet_host_memory;
typedef struct duet_event_s* duet_event;
typedef struct duet_program_s* duet_program;
typedef struct duet_kernel_s* duet_kernel;
typedef struct duet_sequence_s* duet_sequence;

typedef enum duet_device_type {
    DUET_DEVICE_OTHER = 0,
    DUET_DEVICE_GPU = 1,
    DUET_DEVICE_CPU = 2,
    DUET_DEVICE_ACCELERATOR = 3
} duet_device_type;

/* Properties under common names. Zero means "not known on this backend". */
typedef struct duet_device_properties {
    size_t size; /* see "Structs that a backend fills" above */
    char name[256];
    char vendor[128];
    char driver_version[64];
    char platform[128];    /* OpenCL platform name; "CUDA" on CUDA */
    char api_version[128]; /* OpenCL: CL_DEVICE_VERSION; CUDA: the driver's CUDA version */
    duet_device_type type;
    uint32_t compute_units;                /* OpenCL compute units, CUDA multiprocessors */
    uint64_t max_block_size;               /* max work-items per work-group / threads per block */
    uint64_t max_block_dims[3];            /* per dimension */
    uint64_t max_grid_dims[3];             /* blocks per dimension (OpenCL: from address bits) */
    uint32_t warp_width;                   /* warp size / preferred work-group size multiple */
    uint64_t local_memory_per_block;       /* shared memory per block (default limit) */
    uint64_t local_memory_per_block_optin; /* CUDA opt-in limit; equals the default elsewhere */
    uint64_t global_memory;
    uint64_t max_allocation; /* largest single buffer */
    uint64_t l2_cache;
    uint32_t clock_mhz;
    uint32_t compute_capability_major; /* CUDA; NVIDIA's OpenCL (cl_nv_device_attribute_query) */
    uint32_t compute_capability_minor;
    uint32_t opencl_version_major; /* OpenCL only */
    uint32_t opencl_version_minor;
    uint32_t base_address_alignment; /* bytes; pitched rows are rounded up to it */
    uint32_t copy_engines;
    uint32_t can_map_host_memory;
    uint32_t unified_addressing;
    uint32_t integrated;
    uint32_t ecc;
    uint32_t registers_per_block;
    uint32_t max_threads_per_multiprocessor;
    uint32_t memory_bus_width_bits;
    uint32_t memory_clock_mhz;
    char pci_bus_id[32]; /* "0000:1b:00.0": the same GPU reached through two APIs; "" if unknown */
} duet_device_properties;

typedef void (*duet_property_sink)(void* context, const char* key, const char* value);

typedef enum duet_host_memory_kind {
    DUET_HOST_PINNED = 1,         /* page-locked, DMA-capable */
    DUET_HOST_WRITE_COMBINED = 2, /* pinned, uncached for the CPU, fast host->device */
    DUET_HOST_MAPPED = 3          /* pinned and visible to kernels (zero-copy) */
} duet_host_memory_kind;

/* One side of a rectangular copy, in the layout of cudaMemcpy3D: the origin in bytes and rows,
 * rows of row_pitch bytes, slices of rows_per_slice rows. */
typedef struct duet_rect_side {
    size_t origin_bytes;
    size_t origin_row;
    size_t origin_slice;
    size_t row_pitch;
    size_t rows_per_slice;
} duet_rect_side;

typedef struct duet_extent {
    size_t width_bytes;
    size_t height;
    size_t depth;
} duet_extent;

typedef enum duet_arg_kind {
    DUET_ARG_BUFFER = 1, /* a device buffer, passed as a pointer */
    DUET_ARG_VALUE = 2,  /* bytes copied by value */
    DUET_ARG_LOCAL = 3   /* dynamic local (shared) memory of the given size; at most one */
} duet_arg_kind;

typedef struct duet_kernel_arg {
    duet_arg_kind kind;
    duet_buffer buffer;
    const void* value;
    size_t size;
} duet_kernel_arg;

typedef struct duet_launch_range {
    uint32_t dims;
    size_t grid[3];
    size_t block[3];
} duet_launch_range;

/* The preferred split between L1 cache and shared memory (cuFuncSetCacheConfig); a CUDA extension. */
typedef enum duet_cache_preference {
    DUET_CACHE_PREFER_NONE = 0,
    DUET_CACHE_PREFER_SHARED = 1,
    DUET_CACHE_PREFER_L1 = 2,
    DUET_CACHE_PREFER_EQUAL = 3
} duet_cache_preference;

/* Program formats a backend may take; the core picks the first one a program ships. */
typedef enum duet_program_format {
    DUET_FORMAT_NONE = 0,     /* past the end of a device's list */
    DUET_FORMAT_OPENCL_C = 1, /* OpenCL C source */
    DUET_FORMAT_CUDA_C = 2,   /* CUDA C++ source, compiled at run time */
    DUET_FORMAT_FATBIN = 3,   /* CUDA fatbin (SASS and PTX) */
    DUET_FORMAT_NATIVE = 4,   /* what duet_backend_v1.program_binary returned, for the cache */
    DUET_FORMAT_PTX = 5       /* PTX text that nvcc compiled a fatbin from: shipped to be read, not built */
} duet_program_format;

typedef void (*duet_program_sink)(void* context, const void* data, size_t size);

/* What sets a kernel's largest block on a device, so that the core can tell a launch the caller
 * got wrong (a block the kernel itself rules out) from one this device and driver cannot run. */
typedef enum duet_block_limit {
    DUET_BLOCK_LIMIT_DEVICE = 0,    /* nothing beyond the device's own maximum */
    DUET_BLOCK_LIMIT_DECLARED = 1,  /* the kernel's declaration: reqd_work_group_size, __launch_bounds__ */
    DUET_BLOCK_LIMIT_REGISTERS = 2, /* its registers a work-item times the block exceed the register file */
    DUET_BLOCK_LIMIT_DRIVER = 3     /* the driver's figure, with no cause given (CL_KERNEL_WORK_GROUP_SIZE) */
} duet_block_limit;

/* One kernel on its device. Zero means "not known on this backend". */
typedef struct duet_kernel_properties {
    size_t size;             /* see "Structs that a backend fills" above */
    uint64_t max_block_size; /* the most work-items a block of this kernel can have here */
    duet_block_limit max_block_limit;
    uint64_t required_block[3];     /* reqd_work_group_size; zeros when the kernel declares none */
    uint64_t static_local_memory;   /* CL_KERNEL_LOCAL_MEM_SIZE / CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */
    uint64_t private_memory;        /* per work-item, spills and stack: CL_KERNEL_PRIVATE_MEM_SIZE / LOCAL_SIZE_BYTES */
    uint32_t registers;             /* per work-item: CU_FUNC_ATTRIBUTE_NUM_REGS; NVIDIA's OpenCL build log */
    uint64_t driver_max_block_size; /* what the API's own query answers, where it differs in meaning */
} duet_kernel_properties;
typedef void (*duet_function)(void);

/* How a backend replays what a queue recorded. */
typedef enum duet_replay_method {
    DUET_REPLAY_GRAPH = 1,         /* CUDA graph: stream capture, instantiated, cuGraphLaunch */
    DUET_REPLAY_COMMAND_BUFFER = 2 /* OpenCL cl_khr_command_buffer, clEnqueueCommandBufferKHR */
} duet_replay_method;

/* Every slot of the function table, written once: X(name, required, parameters). Each slot is a
 * function returning duet_status; on failure the detail is available from last_error on the same
 * thread. A NULL slot means "not supported by this backend", except for a required one (1): the
 * core calls those without asking, and refuses a table that leaves one NULL or whose size does not
 * reach the last of them. New slots go at the end, with a minor version. */
#define DUET_BACKEND_SLOTS(X)                                                                                          \
    /* Backend life: initialize once before anything else; it fails with DUET_ERROR_UNAVAILABLE and */                 \
    /* a reason when the backend cannot run on this machine. */                                                        \
    X(initialize, 1, (void))                                                                                           \
    X(version, 0, (const char** text)) /* driver / runtime / compiler versions */                                      \
                                                                                                                       \
    X(device_count, 1, (uint32_t * count))                                                                             \
    X(device_get, 1, (uint32_t index, duet_device * device))                                                           \
    X(device_properties, 1, (duet_device device, duet_device_properties * properties))                                 \
    X(device_raw_properties, 0, (duet_device device, duet_property_sink sink, void* context))                          \
    /* cl_device_id and cl_context, or CUdevice (widened to a pointer) and CUcontext. */                               \
    X(device_native, 0, (duet_device device, void** native_device, void** native_context))                             \
    /* A program format the device accepts, in order of preference; DUET_FORMAT_NONE past the end. */                  \
    X(device_program_format, 1, (duet_device device, uint32_t index, duet_program_format * format))                    \
                                                                                                                       \
    X(queue_create, 0, (duet_device device, duet_queue * queue))                                                       \
    X(queue_release, 1, (duet_queue queue))                                                                            \
    X(queue_finish, 1, (duet_queue queue))                                                                             \
    X(queue_write, 1, (duet_queue queue, duet_buffer dst, size_t offset, const void* src, size_t bytes))               \
    X(queue_read, 1, (duet_queue queue, void* dst, duet_buffer src, size_t offset, size_t bytes))                      \
    X(queue_copy, 1,                                                                                                   \
      (duet_queue queue, duet_buffer dst, size_t dst_offset, duet_buffer src, size_t src_offset, size_t bytes))        \
    X(queue_fill, 0,                                                                                                   \
      (duet_queue queue, duet_buffer dst, size_t offset, size_t bytes, const void* pattern, size_t pattern_size))      \
    X(queue_write_rect, 0,                                                                                             \
      (duet_queue queue, duet_buffer dst, const duet_rect_side* dst_side, const void* src,                             \
       const duet_rect_side* src_side, const duet_extent* extent))                                                     \
    X(queue_read_rect, 0,                                                                                              \
      (duet_queue queue, void* dst, const duet_rect_side* dst_side, duet_buffer src, const duet_rect_side* src_side,   \
       const duet_extent* extent))                                                                                     \
    X(queue_copy_rect, 0,                                                                                              \
      (duet_queue queue, duet_buffer dst, const duet_rect_side* dst_side, duet_buffer src,                             \
       const duet_rect_side* src_side, const duet_extent* extent))                                                     \
    /* The core has checked the range against the device's and the kernel's limits; the backend */                     \
    /* checks the argument count against what the kernel declares, where it can introspect. */                         \
    X(queue_launch, 1,                                                                                                 \
      (duet_queue queue, duet_kernel kernel, const duet_launch_range* range, const duet_kernel_arg* args,              \
       uint32_t arg_count))                                                                                            \
    X(queue_record, 1, (duet_queue queue, duet_event * event))                                                         \
    /* The event may come from another device of the same backend (3.2): cuStreamWaitEvent takes one of */             \
    /* another context; OpenCL, whose wait lists name events of one context, waits on the host. */                     \
    X(queue_wait, 1, (duet_queue queue, duet_event event))                                                             \
    X(queue_native, 0, (duet_queue queue, void** native))                                                              \
                                                                                                                       \
    X(buffer_create, 0, (duet_device device, size_t bytes, duet_buffer * buffer))                                      \
    /* Rows of width_bytes, padded to a pitch the backend chooses. */                                                  \
    X(buffer_create_pitched, 0,                                                                                        \
      (duet_device device, size_t width_bytes, size_t rows, duet_buffer * buffer, size_t * pitch))                     \
    X(buffer_release, 1, (duet_buffer buffer))                                                                         \
    X(buffer_native, 0, (duet_buffer buffer, void** native))                                                           \
                                                                                                                       \
    X(host_alloc, 0,                                                                                                   \
      (duet_device device, size_t bytes, duet_host_memory_kind kind, duet_host_memory * memory, void** pointer))       \
    X(host_register, 0, (duet_device device, void* pointer, size_t bytes, duet_host_memory* memory))                   \
    X(host_release, 1, (duet_host_memory memory))                                                                      \
    /* A device-side buffer aliasing the host memory (mapped and registered memory). */                                \
    X(host_device_buffer, 0, (duet_host_memory memory, duet_buffer * buffer))                                          \
                                                                                                                       \
    X(event_release, 1, (duet_event event))                                                                            \
    X(event_wait, 1, (duet_event event))                                                                               \
    X(event_query, 1, (duet_event event, int* complete))                                                               \
    X(event_elapsed_ms, 0, (duet_event start, duet_event end, double* milliseconds))                                   \
                                                                                                                       \
    X(program_create, 1,                                                                                               \
      (duet_device device, duet_program_format format, const void* data, size_t size, const char* options,             \
       duet_program* program))                                                                                         \
    X(program_release, 1, (duet_program program))                                                                      \
    /* The built program in DUET_FORMAT_NATIVE, for the disk cache; sink gets it in one piece. */                      \
    X(program_binary, 0, (duet_program program, duet_program_sink sink, void* context))                                \
    X(program_kernel_names, 1, (duet_program program, const char** names)) /* ';'-separated */                         \
                                                                                                                       \
    X(kernel_create, 1, (duet_program program, const char* name, duet_kernel* kernel))                                 \
    X(kernel_release, 1, (duet_kernel kernel))                                                                         \
    /* The kernel's limits and resources on its device. */                                                             \
    X(kernel_properties, 1, (duet_kernel kernel, duet_kernel_properties * properties))                                 \
                                                                                                                       \
    /* What one backend has and the others lack, by name (DUET_EXTENSION_*), so that the table */                      \
    /* stays common: DUET_ERROR_NOT_FOUND, and *function NULL, for a name the backend lacks. */                        \
    X(extension, 0, (const char* name, duet_function* function))                                                       \
                                                                                                                       \
    /* Recording (3.1): between begin and end, the queue's copies, fills and launches are recorded */                  \
    /* into a sequence rather than run; meanwhile the core makes no other call on the queue, and those */              \
    /* one at a time. DUET_ERROR_UNSUPPORTED, its reason in the message, where the device cannot */                    \
    /* replay them: the core then keeps the commands and issues them again itself. */                                  \
    X(queue_begin_recording, 0, (duet_queue queue, duet_replay_method * method))                                       \
    /* With sequence NULL the recording is dropped (its commands failed), and the queue is usable. */                  \
    X(queue_end_recording, 0, (duet_queue queue, duet_sequence * sequence))                                            \
    /* Runs the sequence on a queue of the device it was recorded on, ordered like any enqueue. */                     \
    X(sequence_replay, 0, (duet_sequence sequence, duet_queue queue))                                                  \
    X(sequence_release, 0, (duet_sequence sequence))                                                                   \
                                                                                                                       \
    /* Copies between devices (3.2). *possible is whether `to` can read and write `from`'s memory */                   \
    /* directly (cuDeviceCanAccessPeer(to, from)): what a copy from `from` to `to` issued on a queue of `to` */        \
    /* needs; one issued on a queue of `from` needs the reverse pair. A NULL slot means no direct route. */            \
    X(device_peer_access, 0, (duet_device from, duet_device to, int* possible))                                        \
    /* One of dst and src is on the queue's device, the other on another device of this backend; the queue's */        \
    /* device accesses the other's memory directly (peer access, enabled on first use), ordered like any */            \
    /* enqueue on the queue. DUET_ERROR_UNSUPPORTED, with the reason, where it cannot. */                              \
    X(queue_copy_peer, 0,                                                                                              \
      (duet_queue queue, duet_buffer dst, size_t dst_offset, duet_buffer src, size_t src_offset, size_t bytes))        \
                                                                                                                       \
    /* The built program's code as text a programmer reads (3.3): PTX where the driver keeps it (NVRTC's, */           \
    /* NVIDIA's OpenCL binary); DUET_ERROR_UNSUPPORTED, the reason in the message, where it keeps none. */             \
    X(program_assembly, 0, (duet_program program, duet_program_sink sink, void* context))                              \
    /* The options the backend gave the compiler for this program, its own included (3.3): NVRTC's */                  \
    /* words, clBuildProgram's string; "" where it loaded a binary as it is (a fatbin, a cubin). */                    \
    X(program_options, 0, (duet_program program, const char** options))

/* The function table: a header the core checks, then the slots of DUET_BACKEND_SLOTS in order. */
typedef struct duet_backend_v1 {
    uint32_t abi_major;
    uint32_t abi_minor;
    size_t table_size; /* sizeof(duet_backend_v1) as the backend was built */
    const char* name;  /* "opencl", "cuda": also the prefix of device selectors */
    void (*last_error)(duet_error_detail* detail);
#define DUET_DECLARE_SLOT(name, required, parameters) duet_status(*name) parameters;
    DUET_BACKEND_SLOTS(DUET_DECLARE_SLOT)
#undef DUET_DECLARE_SLOT
} duet_backend_v1;

/* Extensions, each with its name and the type of the function the extension slot hands out. */

/* CUDA: a hint for later launches of the kernel (cuFuncSetCacheConfig). OpenCL has no such control. */
#define DUET_EXTENSION_KERNEL_SET_CACHE_PREFERENCE "kernel_set_cache_preference"
typedef duet_status (*duet_kernel_set_cache_preference_fn)(duet_kernel kernel, duet_cache_preference preference);

/* OpenCL: each parameter of the kernel as the driver reports it (clGetKernelArgInfo's address
 * qualifier, "global", "local", "constant" or "private", and type name, "float*"), in order, one
 * call of `sink` each; recorded with a program's binary, so a cached program answers too.
 * DUET_ERROR_UNSUPPORTED where the driver kept no argument info for the kernel. CUDA's drivers
 * report no parameter types. */
#define DUET_EXTENSION_KERNEL_PARAMETERS "kernel_parameters"
typedef duet_status (*duet_kernel_parameters_fn)(
    duet_kernel kernel, void (*sink)(void* context, const char* address, const char* type_name), void* context);

/* CUDA: the blocks of `block_threads` threads, with `dynamic_local` bytes of dynamic shared memory
 * each, that one multiprocessor holds at once (cuOccupancyMaxActiveBlocksPerMultiprocessor). OpenCL
 * has no such query. */
#define DUET_EXTENSION_KERNEL_OCCUPANCY "kernel_occupancy"
typedef duet_status (*duet_kernel_occupancy_fn)(duet_kernel kernel, uint32_t block_threads, size_t dynamic_local,
                                                uint32_t* blocks_per_multiprocessor);

/* The one exported symbol, declared by each backend as
 *     extern "C" DUET_BACKEND_EXPORT duet_status duet_backend_entry(uint32_t, uint32_t, const duet_backend_v1**);
 * It fills *table when abi_major matches its own; otherwise it returns DUET_ERROR_ABI_MISMATCH
 * and still fills *table, so the core can name both versions. */
typedef duet_status (*duet_backend_entry_fn)(uint32_t abi_major, uint32_t abi_minor, const duet_backend_v1** table);

#ifdef __cplusplus
}
#endif

#endif /* DUET_ABI_BACKEND_H */
