// The record model of a rank file: one plain row type per record kind. The writer (the
// recorder in every traced process) and every reader (tests, the merge tool) use these types
// and the table descriptions in schema.hpp; docs/FORMAT.md is their normative description.
#pragma once

#include <cstdint>

namespace rocprof::format {

// Version of the rank-file layout written. Readers accept files of a major version they know
// and any minor version (a minor bump only adds tables, columns or attributes). Version 2
// stores a table as one dataset of packed rows; version 1 (a group of column datasets,
// minor versions up to 2) is still read.
inline constexpr std::uint32_t kFormatVersionMajor = 2;
// 2.1: traced_ranks; 2.2: kernel resources; 2.3: memory kinds and context of device work;
// 2.4: timestamp_source and tick_calibration; 2.5: what a counter session sampled;
// 2.6: code_objects and kernel_symbols; 2.7: checksums of chunks and strings
inline constexpr std::uint32_t kFormatVersionMinor = 7;
inline constexpr std::uint32_t kColumnGroupsVersionMajor = 1;
inline constexpr std::uint32_t kColumnGroupsVersionMinor = 2;  // the last 1.x
// `request` of an MPI-call row that is part of a call (the receive half of MPI_Sendrecv, since
// 1.1); the same value as ROCPROF_MPI_CALL_PART of the recorder API.
inline constexpr std::uint64_t kCallPartRequest = 1;
// The external correlation id a user region (rocprofsys_user_push_region) pushes while it is
// open: this bit, then the region's marker id. Records made inside the region carry it.
inline constexpr std::uint64_t kRegionExternalBit = std::uint64_t{1} << 43;
inline constexpr const char* kFormatName = "rocprof-mpi rank file";
// rocprof-merge's .h5 output says this instead: a reader knows it for what it is (a merged
// trace written into the rank files' directory is not a bad rank file), with this problem.
inline constexpr const char* kMergedTraceFormatName = "rocprof-mpi merged trace";
inline constexpr const char* kMergedTraceProblem = "a merged trace (rocprof-merge's output)";

// String ids index the file's string table; id 0 is the empty string ("none").
using StringId = std::uint32_t;

// Direction of a memory copy, decoded from the API call's arguments.
enum class CopyDirection : std::uint8_t {
  kNone = 0,
  kHostToHost = 1,
  kHostToDevice = 2,
  kDeviceToHost = 3,
  kDeviceToDevice = 4,
  kDefault = 5,  // the runtime infers it (hipMemcpyDefault)
};

// A synchronous host API call (HIP_API, HSA_API domains).
struct ApiCallRow {
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  std::uint64_t correlation_id;
  std::uint64_t external_id;  // innermost external id when the call began, 0 if none
  std::uint64_t stream;       // stream / queue handle argument, 0 if none
  std::uint64_t bytes;        // bytes of a copy or allocation argument, 0 if none
  std::uint32_t thread_id;    // Linux thread id
  std::uint32_t op;           // operation id inside the domain
  StringId kernel_name;       // launched kernel, 0 if none
  std::uint32_t grid[3];      // launch grid, zeros if none
  std::uint32_t block[3];     // launch block, zeros if none
  std::uint8_t domain;        // activity_domain_t
  CopyDirection copy_direction;
};

// The memory a copy or memset touches (ActivityRow::src_kind, dst_kind).
enum class MemoryKind : std::uint8_t {
  kUnknown = 0,
  kPageable = 1,       // ordinary host memory
  kPinned = 2,         // page-locked host memory
  kDevice = 3,         // device memory
  kArray = 4,          // a device array (texture layout)
  kManaged = 5,        // managed (unified) memory
  kDeviceStatic = 6,   // a device-side global variable
  kManagedStatic = 7,  // a managed global variable
};

// Asynchronous device work (HIP_OPS, HSA_OPS): dispatches, copies, barriers.
struct ActivityRow {
  std::uint64_t begin_ns;  // host clock
  std::uint64_t end_ns;
  std::uint64_t correlation_id;  // the API call that issued it
  std::uint64_t queue_id;
  std::uint64_t bytes;  // bytes of a copy, 0 otherwise
  std::uint32_t op;     // DISPATCH / COPY / BARRIER
  std::uint32_t kind;   // runtime command kind
  std::int32_t device_id;
  StringId kernel_name;  // 0 if none
  // What a kernel asked of the GPU (since 2.2; zeros for other work and in older files).
  std::uint32_t grid[3];       // blocks in the grid
  std::uint32_t block[3];      // threads per block
  std::uint32_t shared_bytes;  // shared memory per block, static and dynamic
  std::uint32_t registers;     // registers per thread
  std::uint32_t context_id;    // since 2.3: the runtime's context of the work, 0 if none
  std::uint8_t domain;
  // Since 2.3: where a copy reads and writes; a memset has dst_kind only.
  MemoryKind src_kind;
  MemoryKind dst_kind;
};

// correlation id -> external id (the ACTIVITY_DOMAIN_EXT_API records).
struct ExternalCorrelationRow {
  std::uint64_t correlation_id;
  std::uint64_t external_id;
};

enum class MarkerOp : std::uint8_t {
  kMark = 0,        // roctxMarkA
  kPush = 1,        // roctxRangePushA
  kPop = 2,         // roctxRangePop
  kStart = 3,       // roctxRangeStartA
  kStop = 4,        // roctxRangeStop
  kRegionPush = 5,  // user-API region begin
  kRegionPop = 6,   // user-API region end
};

// Markers and ranges: one row per call; a push and its pop (or start and stop) share `id`.
struct MarkerRow {
  std::uint64_t timestamp_ns;
  std::uint64_t id;
  std::uint32_t thread_id;
  std::uint32_t level;  // nesting level of a push / pop, else 0
  StringId message;     // 0 for pop and stop
  MarkerOp op;
};

// One MPI call of this rank.
struct MpiCallRow {
  std::uint64_t begin_ns;
  std::uint64_t end_ns;
  std::uint64_t external_id;   // the id the call pushed (rank-qualified by the reader)
  std::uint64_t communicator;  // job-wide communicator id, 0 if none
  std::uint64_t request;       // request of a non-blocking call or its completion, 0 if none
  std::uint64_t bytes_sent;
  std::uint64_t bytes_received;
  std::uint32_t thread_id;
  StringId function;  // "MPI_Send", ...
  std::int32_t peer;  // world rank of the partner or root; -1 if none
  std::int32_t tag;   // -1 if none
};

// A device or host counter value.
struct CounterSampleRow {
  std::uint64_t timestamp_ns;
  double value;
  std::uint32_t session;  // counter_sessions.session
  StringId counter;       // counter name
};

// A counter collection session (device profiling session, sampler).
struct CounterSessionRow {
  std::uint64_t start_ns;
  std::uint64_t interval_ns;  // since 2.5: time between samples, 0 if not periodic
  std::uint32_t session;
  std::int32_t device_id;  // -1 for host counters
  StringId name;           // the device sampled: "host", "GPU 0 (NVIDIA H100 80GB HBM3)"
  StringId backend;        // since 2.5: what read it: "host", "nvml", "rocm_smi"
  StringId counters;       // since 2.5: the counters asked of it, comma-separated
};

// One clock-synchronisation measurement against the reference rank.
struct ClockSampleRow {
  std::uint64_t local_ns;  // this rank's clock at the measurement's midpoint
  std::int64_t offset_ns;  // reference clock minus local clock
  std::uint64_t round_trip_ns;
  std::uint64_t uncertainty_ns;
  std::int32_t reference_rank;
};

// A TSC tick and the trace clock read at the same moment (since 2.4): the pairs by which the
// recorder converted the ticks it stamped MPI calls and ROC-TX records with into nanoseconds.
struct TickCalibrationRow {
  std::uint64_t tick;
  std::uint64_t boottime_ns;
};

// A communicator this rank belonged to, with its job-wide id.
struct CommunicatorRow {
  std::uint64_t created_ns;
  std::uint64_t communicator;  // job-wide id (MPI_COMM_WORLD is 1)
  std::uint64_t parent;        // id of the communicator it was made from, 0 if none
  std::int32_t size;           // local group size
  std::int32_t remote_size;    // remote group size of an intercommunicator, else 0
  std::int32_t rank;           // this process's rank in it
  StringId creator;            // "MPI_Comm_split", "MPI_COMM_WORLD", ...
};

// A GPU code object the process had loaded (since 2.6), as its runtime's loader reported it.
struct CodeObjectRow {
  std::uint64_t load_base;      // where it is loaded on the GPU
  std::uint64_t load_size;      // bytes from load_base
  std::int64_t load_delta;      // load address minus the code object's own addresses
  std::uint64_t first_seen_ns;  // when the recorder first saw it loaded
  StringId uri;                 // "file://PATH#offset=N&size=N", "memory://PID#offset=0xA&size=N"
};

// The name of a dispatch whose kernel the tracer could not name: this prefix, then its kernel
// object in hexadecimal ("kernel object 0x7f3a00001100"); readers name it from kernel_symbols.
inline constexpr const char* kKernelObjectNamePrefix = "kernel object 0x";

// A kernel of a loaded code object (since 2.6): the kernel object address a dispatch packet
// names it by, and its name.
struct KernelSymbolRow {
  std::uint64_t kernel_object;
  std::uint64_t load_base;  // of its code object
  StringId name;            // demangled
};

// Name of an operation id seen in the file, so readers need no roctracer to label ops.
struct OpNameRow {
  std::uint32_t op;
  StringId name;
  std::uint8_t domain;
};

// Name of a host thread seen in the file (from /proc at first sight; may be empty).
struct ThreadRow {
  std::uint64_t first_seen_ns;
  std::uint32_t thread_id;
  StringId name;
};

// A named value attached to a user region's begin or end, or to a progress point
// (rocprofsys_user_push_annotated_region and kin; since format 1.2).
enum class AnnotationType : std::uint8_t {
  kNone = 0,
  kString = 1,  // `text`
  kSize = 2,    // the rest in `value`: unsigned ones zero-extended, signed ones as int64,
  kInt64 = 3,   // floating-point ones as the bits of a double, a pointer as its address
  kUint64 = 4,
  kFloat64 = 5,
  kPointer = 6,
  kInt32 = 7,
  kUint32 = 8,
  kFloat32 = 9,
  kInt16 = 10,
  kUint16 = 11,
};

struct AnnotationRow {
  std::uint64_t timestamp_ns;  // the marker's
  std::uint64_t marker_id;     // the `id` of the marker row it belongs to
  std::uint64_t value;
  std::uint32_t thread_id;
  StringId name;
  StringId text;  // string values, else 0
  AnnotationType type;
};

}  // namespace rocprof::format
