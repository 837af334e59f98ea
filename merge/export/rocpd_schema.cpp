#include "merge/export/rocpd_schema.hpp"

#include <string_view>

namespace rocprof::merge {
namespace {

// "@S" stands for the tables' suffix, "@G" for the guid. Each table's columns, their order and
// types are rocpd's (schema version 3): tools select them by name and merge databases by
// position.
constexpr std::string_view kTables = R"SQL(
CREATE TABLE "rocpd_metadata@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "tag" TEXT NOT NULL, "value" TEXT NOT NULL);
CREATE TABLE "rocpd_string@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "string" TEXT NOT NULL UNIQUE ON CONFLICT ABORT);
CREATE TABLE "rocpd_info_node@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "hash" BIGINT NOT NULL UNIQUE, "machine_id" TEXT NOT NULL UNIQUE, "system_name" TEXT,
  "hostname" TEXT, "release" TEXT, "version" TEXT, "hardware_name" TEXT, "domain_name" TEXT);
CREATE TABLE "rocpd_info_process@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "ppid" INTEGER, "pid" INTEGER NOT NULL, "init" BIGINT, "fini" BIGINT,
  "start" BIGINT, "end" BIGINT, "command" TEXT, "environment" JSONB DEFAULT '{}' NOT NULL,
  "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_info_thread@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "ppid" INTEGER, "pid" INTEGER NOT NULL, "tid" INTEGER NOT NULL,
  "name" TEXT, "start" BIGINT, "end" BIGINT, "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_info_agent@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "type" TEXT CHECK ("type" IN ('CPU', 'GPU')),
  "absolute_index" INTEGER, "logical_index" INTEGER, "type_index" INTEGER, "uuid" INTEGER,
  "name" TEXT, "model_name" TEXT, "vendor_name" TEXT, "product_name" TEXT, "user_name" TEXT,
  "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_info_queue@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "name" TEXT,
  "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_info_stream@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "name" TEXT,
  "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_info_pmc@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "agent_id" INTEGER,
  "target_arch" TEXT CHECK ("target_arch" IN ('CPU', 'GPU')), "event_code" INT,
  "instance_id" INTEGER, "name" TEXT NOT NULL, "symbol" TEXT NOT NULL, "description" TEXT,
  "long_description" TEXT DEFAULT '', "component" TEXT, "units" TEXT DEFAULT '',
  "value_type" TEXT CHECK ("value_type" IN ('ABS', 'ACCUM', 'RELATIVE')), "block" TEXT,
  "expression" TEXT, "is_constant" INTEGER, "is_derived" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("agent_id") REFERENCES "rocpd_info_agent@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_info_code_object@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "agent_id" INTEGER, "uri" TEXT,
  "load_base" BIGINT, "load_size" BIGINT, "load_delta" BIGINT,
  "storage_type" TEXT CHECK ("storage_type" IN ('FILE', 'MEMORY')),
  "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("agent_id") REFERENCES "rocpd_info_agent@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_info_kernel_symbol@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "code_object_id" INTEGER NOT NULL,
  "kernel_name" TEXT, "display_name" TEXT, "kernel_object" INTEGER,
  "kernarg_segment_size" INTEGER, "kernarg_segment_alignment" INTEGER,
  "group_segment_size" INTEGER, "private_segment_size" INTEGER, "sgpr_count" INTEGER,
  "arch_vgpr_count" INTEGER, "accum_vgpr_count" INTEGER, "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("code_object_id") REFERENCES "rocpd_info_code_object@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_track@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER, "tid" INTEGER, "name_id" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("tid") REFERENCES "rocpd_info_thread@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("name_id") REFERENCES "rocpd_string@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_event@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "category_id" INTEGER, "stack_id" INTEGER, "parent_stack_id" INTEGER,
  "correlation_id" INTEGER, "call_stack" JSONB DEFAULT '{}' NOT NULL,
  "line_info" JSONB DEFAULT '{}' NOT NULL, "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("category_id") REFERENCES "rocpd_string@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_arg@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "event_id" INTEGER NOT NULL, "position" INTEGER NOT NULL, "type" TEXT NOT NULL,
  "name" TEXT NOT NULL, "value" TEXT, "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("event_id") REFERENCES "rocpd_event@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_pmc_event@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "event_id" INTEGER, "pmc_id" INTEGER NOT NULL, "value" REAL DEFAULT 0.0,
  "extdata" JSONB DEFAULT '{}',
  FOREIGN KEY ("pmc_id") REFERENCES "rocpd_info_pmc@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("event_id") REFERENCES "rocpd_event@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_region@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "tid" INTEGER NOT NULL,
  "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "name_id" INTEGER NOT NULL,
  "event_id" INTEGER, "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("tid") REFERENCES "rocpd_info_thread@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("name_id") REFERENCES "rocpd_string@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("event_id") REFERENCES "rocpd_event@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_sample@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "track_id" INTEGER NOT NULL, "timestamp" BIGINT NOT NULL, "event_id" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("track_id") REFERENCES "rocpd_track@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("event_id") REFERENCES "rocpd_event@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_kernel_dispatch@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "tid" INTEGER, "agent_id" INTEGER NOT NULL,
  "kernel_id" INTEGER NOT NULL, "dispatch_id" INTEGER NOT NULL, "queue_id" INTEGER NOT NULL,
  "stream_id" INTEGER NOT NULL, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL,
  "private_segment_size" INTEGER, "group_segment_size" INTEGER,
  "workgroup_size_x" INTEGER NOT NULL, "workgroup_size_y" INTEGER NOT NULL,
  "workgroup_size_z" INTEGER NOT NULL, "grid_size_x" INTEGER NOT NULL,
  "grid_size_y" INTEGER NOT NULL, "grid_size_z" INTEGER NOT NULL, "region_name_id" INTEGER,
  "event_id" INTEGER, "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("tid") REFERENCES "rocpd_info_thread@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("agent_id") REFERENCES "rocpd_info_agent@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("kernel_id") REFERENCES "rocpd_info_kernel_symbol@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("queue_id") REFERENCES "rocpd_info_queue@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("stream_id") REFERENCES "rocpd_info_stream@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("region_name_id") REFERENCES "rocpd_string@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("event_id") REFERENCES "rocpd_event@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_memory_copy@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "tid" INTEGER, "start" BIGINT NOT NULL,
  "end" BIGINT NOT NULL, "name_id" INTEGER NOT NULL, "dst_agent_id" INTEGER,
  "dst_address" INTEGER, "src_agent_id" INTEGER, "src_address" INTEGER,
  "size" INTEGER NOT NULL, "queue_id" INTEGER, "stream_id" INTEGER, "region_name_id" INTEGER,
  "event_id" INTEGER, "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("tid") REFERENCES "rocpd_info_thread@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("name_id") REFERENCES "rocpd_string@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("dst_agent_id") REFERENCES "rocpd_info_agent@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("src_agent_id") REFERENCES "rocpd_info_agent@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("stream_id") REFERENCES "rocpd_info_stream@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("queue_id") REFERENCES "rocpd_info_queue@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("region_name_id") REFERENCES "rocpd_string@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("event_id") REFERENCES "rocpd_event@S" ("id") ON UPDATE CASCADE);
CREATE TABLE "rocpd_memory_allocate@S" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '@G' NOT NULL,
  "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL, "tid" INTEGER, "agent_id" INTEGER,
  "type" TEXT CHECK ("type" IN ('ALLOC', 'FREE', 'REALLOC', 'RECLAIM')),
  "level" TEXT CHECK ("level" IN ('REAL', 'VIRTUAL', 'SCRATCH')), "start" BIGINT NOT NULL,
  "end" BIGINT NOT NULL, "address" INTEGER, "size" INTEGER NOT NULL, "queue_id" INTEGER,
  "stream_id" INTEGER, "event_id" INTEGER, "extdata" JSONB DEFAULT '{}' NOT NULL,
  FOREIGN KEY ("nid") REFERENCES "rocpd_info_node@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("tid") REFERENCES "rocpd_info_thread@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("agent_id") REFERENCES "rocpd_info_agent@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("stream_id") REFERENCES "rocpd_info_stream@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("queue_id") REFERENCES "rocpd_info_queue@S" ("id") ON UPDATE CASCADE,
  FOREIGN KEY ("event_id") REFERENCES "rocpd_event@S" ("id") ON UPDATE CASCADE);

-- Ours. A message's two ends: the MPI call (its event) that sent it and the one that
-- completed its receive, under one id per message.
CREATE TABLE "rocprofmpi_message_end" (
  "id" INTEGER NOT NULL PRIMARY KEY, "message_id" INTEGER NOT NULL,
  "end" TEXT NOT NULL CHECK ("end" IN ('SEND', 'RECEIVE')),
  "event_id" INTEGER NOT NULL REFERENCES "rocpd_event@S" ("id"));
-- Device work rocpd has no table for: memsets, barriers, synchronisations, graph launches.
CREATE TABLE "rocprofmpi_device_work" (
  "id" INTEGER NOT NULL PRIMARY KEY, "nid" INTEGER NOT NULL, "pid" INTEGER NOT NULL,
  "tid" INTEGER, "agent_id" INTEGER, "queue_id" INTEGER, "start" BIGINT NOT NULL,
  "end" BIGINT NOT NULL, "name_id" INTEGER NOT NULL, "size" INTEGER NOT NULL,
  "event_id" INTEGER,
  FOREIGN KEY ("pid") REFERENCES "rocpd_info_process@S" ("id"),
  FOREIGN KEY ("tid") REFERENCES "rocpd_info_thread@S" ("id"),
  FOREIGN KEY ("agent_id") REFERENCES "rocpd_info_agent@S" ("id"),
  FOREIGN KEY ("queue_id") REFERENCES "rocpd_info_queue@S" ("id"),
  FOREIGN KEY ("name_id") REFERENCES "rocpd_string@S" ("id"),
  FOREIGN KEY ("event_id") REFERENCES "rocpd_event@S" ("id"));

INSERT INTO "rocpd_metadata@S" ("tag", "value")
  VALUES ('schema_version', '3'), ('uuid', '@S'), ('guid', '@G');
)SQL";

// Views. The rocpd_* ones pass the suffixed tables through; the others give rocpd's columns
// under rocpd's names. Host and device work whose thread or agent rocpd would need but the
// trace lacks is still shown (left joins), unlike rocpd's own views.
constexpr std::string_view kViews = R"SQL(
CREATE VIEW "rocpd_metadata" AS SELECT * FROM "rocpd_metadata@S";
CREATE VIEW "rocpd_string" AS SELECT * FROM "rocpd_string@S";
CREATE VIEW "rocpd_info_node" AS SELECT * FROM "rocpd_info_node@S";
CREATE VIEW "rocpd_info_process" AS SELECT * FROM "rocpd_info_process@S";
CREATE VIEW "rocpd_info_thread" AS SELECT * FROM "rocpd_info_thread@S";
CREATE VIEW "rocpd_info_agent" AS SELECT * FROM "rocpd_info_agent@S";
CREATE VIEW "rocpd_info_queue" AS SELECT * FROM "rocpd_info_queue@S";
CREATE VIEW "rocpd_info_stream" AS SELECT * FROM "rocpd_info_stream@S";
CREATE VIEW "rocpd_info_pmc" AS SELECT * FROM "rocpd_info_pmc@S";
CREATE VIEW "rocpd_info_code_object" AS SELECT * FROM "rocpd_info_code_object@S";
CREATE VIEW "rocpd_info_kernel_symbol" AS SELECT * FROM "rocpd_info_kernel_symbol@S";
CREATE VIEW "rocpd_track" AS SELECT * FROM "rocpd_track@S";
CREATE VIEW "rocpd_event" AS SELECT * FROM "rocpd_event@S";
CREATE VIEW "rocpd_arg" AS SELECT * FROM "rocpd_arg@S";
CREATE VIEW "rocpd_pmc_event" AS SELECT * FROM "rocpd_pmc_event@S";
CREATE VIEW "rocpd_region" AS SELECT * FROM "rocpd_region@S";
CREATE VIEW "rocpd_sample" AS SELECT * FROM "rocpd_sample@S";
CREATE VIEW "rocpd_kernel_dispatch" AS SELECT * FROM "rocpd_kernel_dispatch@S";
CREATE VIEW "rocpd_memory_copy" AS SELECT * FROM "rocpd_memory_copy@S";
CREATE VIEW "rocpd_memory_allocate" AS SELECT * FROM "rocpd_memory_allocate@S";

CREATE VIEW "processes" AS
SELECT node.id AS nid, node.machine_id, node.system_name, node.hostname,
       node.release AS system_release, node.version AS system_version, process.guid,
       process.ppid, process.pid, process.init, process.start, process.end, process.fini,
       process.command
FROM rocpd_info_process process JOIN rocpd_info_node node ON node.id = process.nid;

CREATE VIEW "threads" AS
SELECT node.id AS nid, node.machine_id, node.system_name, node.hostname,
       node.release AS system_release, node.version AS system_version, process.guid,
       process.ppid, process.pid, thread.tid, thread.start, thread.end, thread.name
FROM rocpd_info_thread thread JOIN rocpd_info_process process ON process.id = thread.pid
     JOIN rocpd_info_node node ON node.id = thread.nid;

CREATE VIEW "regions" AS
SELECT region.id, region.guid, category.string AS category, name.string AS name, region.nid,
       process.pid, thread.tid, region.start, region.end, region.end - region.start AS duration,
       region.event_id, event.stack_id, event.parent_stack_id, event.correlation_id AS corr_id,
       event.extdata, event.call_stack, event.line_info
FROM rocpd_region region JOIN rocpd_event event ON event.id = region.event_id
     LEFT JOIN rocpd_string category ON category.id = event.category_id
     JOIN rocpd_string name ON name.id = region.name_id
     JOIN rocpd_info_process process ON process.id = region.pid
     LEFT JOIN rocpd_info_thread thread ON thread.id = region.tid;

CREATE VIEW "region_args" AS
SELECT region.id, region.guid, region.nid, process.pid, arg.type, arg.name, arg.value
FROM rocpd_region region JOIN rocpd_arg arg ON arg.event_id = region.event_id
     JOIN rocpd_info_process process ON process.id = region.pid;

CREATE VIEW "samples" AS
SELECT sample.id, sample.guid, category.string AS category, name.string AS name, track.nid,
       process.pid, thread.tid, sample.timestamp, sample.event_id, event.stack_id,
       event.parent_stack_id, event.correlation_id AS corr_id, event.extdata, event.call_stack,
       event.line_info
FROM rocpd_sample sample JOIN rocpd_track track ON track.id = sample.track_id
     JOIN rocpd_event event ON event.id = sample.event_id
     LEFT JOIN rocpd_string category ON category.id = event.category_id
     LEFT JOIN rocpd_string name ON name.id = track.name_id
     JOIN rocpd_info_process process ON process.id = track.pid
     LEFT JOIN rocpd_info_thread thread ON thread.id = track.tid;

CREATE VIEW "sample_regions" AS
SELECT id, guid, category, name, nid, pid, tid, timestamp AS start, timestamp AS "END",
       0 AS duration, event_id, stack_id, parent_stack_id, corr_id, extdata, call_stack,
       line_info
FROM samples;

CREATE VIEW "regions_and_samples" AS
SELECT * FROM regions UNION ALL SELECT * FROM sample_regions;

CREATE VIEW "kernel_symbols" AS
SELECT symbol.id, symbol.guid, symbol.nid, process.pid, symbol.code_object_id,
       symbol.kernel_name, symbol.display_name, symbol.kernel_object,
       symbol.kernarg_segment_size, symbol.kernarg_segment_alignment,
       symbol.group_segment_size, symbol.private_segment_size, symbol.sgpr_count,
       symbol.arch_vgpr_count, symbol.accum_vgpr_count,
       JSON_EXTRACT(symbol.extdata, '$.size') AS kernel_symbol_size,
       JSON_EXTRACT(symbol.extdata, '$.kernel_id') AS kernel_id,
       JSON_EXTRACT(symbol.extdata, '$.kernel_code_entry_byte_offset')
         AS kernel_code_entry_byte_offset,
       JSON_EXTRACT(symbol.extdata, '$.formatted_kernel_name') AS formatted_kernel_name,
       JSON_EXTRACT(symbol.extdata, '$.demangled_kernel_name') AS demangled_kernel_name,
       JSON_EXTRACT(symbol.extdata, '$.truncated_kernel_name') AS truncated_kernel_name,
       JSON_EXTRACT(symbol.extdata, '$.kernel_address.handle') AS kernel_address
FROM rocpd_info_kernel_symbol symbol JOIN rocpd_info_process process ON process.id = symbol.pid;

CREATE VIEW "code_objects" AS
SELECT code.id, code.guid, code.nid, process.pid, agent.absolute_index AS agent_abs_index,
       code.uri, code.load_base, code.load_size, code.load_delta,
       code.storage_type AS storage_type_str,
       JSON_EXTRACT(code.extdata, '$.size') AS code_object_size,
       JSON_EXTRACT(code.extdata, '$.storage_type') AS storage_type,
       JSON_EXTRACT(code.extdata, '$.memory_base') AS memory_base,
       JSON_EXTRACT(code.extdata, '$.memory_size') AS memory_size
FROM rocpd_info_code_object code LEFT JOIN rocpd_info_agent agent ON agent.id = code.agent_id
     JOIN rocpd_info_process process ON process.id = code.pid;

CREATE VIEW "kernels" AS
SELECT dispatch.id, dispatch.guid, thread.tid, category.string AS category,
       region.string AS region, symbol.display_name AS name, dispatch.nid, process.pid,
       agent.absolute_index AS agent_abs_index, agent.logical_index AS agent_log_index,
       agent.type_index AS agent_type_index, agent.type AS agent_type,
       symbol.code_object_id AS code_object_id, dispatch.kernel_id, dispatch.dispatch_id,
       dispatch.stream_id, dispatch.queue_id, queue.name AS queue, stream.name AS stream,
       dispatch.start, dispatch.end, dispatch.end - dispatch.start AS duration,
       dispatch.grid_size_x AS grid_x, dispatch.grid_size_y AS grid_y,
       dispatch.grid_size_z AS grid_z, dispatch.workgroup_size_x AS workgroup_x,
       dispatch.workgroup_size_y AS workgroup_y, dispatch.workgroup_size_z AS workgroup_z,
       dispatch.group_segment_size AS lds_size, dispatch.private_segment_size AS scratch_size,
       symbol.arch_vgpr_count AS vgpr_count, symbol.accum_vgpr_count, symbol.sgpr_count,
       symbol.group_segment_size AS static_lds_size,
       symbol.private_segment_size AS static_scratch_size, event.stack_id,
       event.parent_stack_id, event.correlation_id AS corr_id
FROM rocpd_kernel_dispatch dispatch JOIN rocpd_info_agent agent ON agent.id = dispatch.agent_id
     JOIN rocpd_event event ON event.id = dispatch.event_id
     LEFT JOIN rocpd_string category ON category.id = event.category_id
     LEFT JOIN rocpd_string region ON region.id = dispatch.region_name_id
     JOIN rocpd_info_kernel_symbol symbol ON symbol.id = dispatch.kernel_id
     LEFT JOIN rocpd_info_stream stream ON stream.id = dispatch.stream_id
     LEFT JOIN rocpd_info_queue queue ON queue.id = dispatch.queue_id
     JOIN rocpd_info_process process ON process.id = dispatch.pid
     LEFT JOIN rocpd_info_thread thread ON thread.id = dispatch.tid;

CREATE VIEW "memory_copies" AS
SELECT copy.id, copy.guid, category.string AS category, copy.nid, process.pid, thread.tid,
       copy.start, copy.end, copy.end - copy.start AS duration, name.string AS name,
       region.string AS region_name, copy.stream_id, copy.queue_id, stream.name AS stream_name,
       queue.name AS queue_name, copy.size, destination.name AS dst_device,
       destination.absolute_index AS dst_agent_abs_index,
       destination.logical_index AS dst_agent_log_index,
       destination.type_index AS dst_agent_type_index, destination.type AS dst_agent_type,
       copy.dst_address, source.name AS src_device, source.absolute_index AS src_agent_abs_index,
       source.logical_index AS src_agent_log_index, source.type_index AS src_agent_type_index,
       source.type AS src_agent_type, copy.src_address, event.stack_id, event.parent_stack_id,
       event.correlation_id AS corr_id
FROM rocpd_memory_copy copy JOIN rocpd_string name ON name.id = copy.name_id
     LEFT JOIN rocpd_string region ON region.id = copy.region_name_id
     LEFT JOIN rocpd_info_agent destination ON destination.id = copy.dst_agent_id
     LEFT JOIN rocpd_info_agent source ON source.id = copy.src_agent_id
     LEFT JOIN rocpd_info_queue queue ON queue.id = copy.queue_id
     LEFT JOIN rocpd_info_stream stream ON stream.id = copy.stream_id
     JOIN rocpd_event event ON event.id = copy.event_id
     LEFT JOIN rocpd_string category ON category.id = event.category_id
     JOIN rocpd_info_process process ON process.id = copy.pid
     LEFT JOIN rocpd_info_thread thread ON thread.id = copy.tid;

CREATE VIEW "memory_allocations" AS
SELECT allocation.id, allocation.guid, category.string AS category, allocation.nid,
       process.pid, thread.tid, allocation.start, allocation.end,
       allocation.end - allocation.start AS duration, allocation.type, allocation.level,
       agent.name AS agent_name, agent.absolute_index AS agent_abs_index,
       agent.logical_index AS agent_log_index, agent.type_index AS agent_type_index,
       agent.type AS agent_type, allocation.address, allocation.size, allocation.queue_id,
       queue.name AS queue_name, allocation.stream_id, stream.name AS stream_name,
       event.stack_id, event.parent_stack_id, event.correlation_id AS corr_id
FROM rocpd_memory_allocate allocation
     LEFT JOIN rocpd_info_agent agent ON agent.id = allocation.agent_id
     LEFT JOIN rocpd_info_queue queue ON queue.id = allocation.queue_id
     LEFT JOIN rocpd_info_stream stream ON stream.id = allocation.stream_id
     JOIN rocpd_event event ON event.id = allocation.event_id
     LEFT JOIN rocpd_string category ON category.id = event.category_id
     JOIN rocpd_info_process process ON process.id = allocation.pid
     LEFT JOIN rocpd_info_thread thread ON thread.id = allocation.tid;

CREATE VIEW "pmc_info" AS
SELECT pmc.id, pmc.guid, pmc.nid, process.pid, agent.absolute_index AS agent_abs_index,
       pmc.is_constant, pmc.is_derived, pmc.name, pmc.description, pmc.block, pmc.expression
FROM rocpd_info_pmc pmc LEFT JOIN rocpd_info_agent agent ON agent.id = pmc.agent_id
     JOIN rocpd_info_process process ON process.id = pmc.pid;

CREATE VIEW "events_args" AS
SELECT event.id AS event_id, category.string AS category, event.stack_id,
       event.parent_stack_id, event.correlation_id, arg.position AS arg_position,
       arg.type AS arg_type, arg.name AS arg_name, arg.value AS arg_value, event.call_stack,
       event.line_info, arg.extdata
FROM rocpd_event event JOIN rocpd_arg arg ON arg.event_id = event.id
     LEFT JOIN rocpd_string category ON category.id = event.category_id;

CREATE VIEW "top_kernels" AS
SELECT symbol.display_name AS name, COUNT(dispatch.kernel_id) AS total_calls,
       SUM(dispatch.end - dispatch.start) / 1000.0 AS total_duration,
       (SUM(dispatch.end - dispatch.start) / COUNT(dispatch.kernel_id)) / 1000.0 AS average,
       SUM(dispatch.end - dispatch.start) * 100.0
         / (SELECT SUM(every.end - every.start) FROM rocpd_kernel_dispatch every) AS percentage
FROM rocpd_kernel_dispatch dispatch
     JOIN rocpd_info_kernel_symbol symbol ON symbol.id = dispatch.kernel_id
GROUP BY name ORDER BY total_duration DESC;

CREATE VIEW "busy" AS
SELECT work.agent_id, agent.type, work.GpuTime, span.WallTime,
       work.GpuTime * 1.0 / span.WallTime AS Busy
FROM (SELECT agent_id, SUM(busy_end - busy_start) AS GpuTime
      FROM (SELECT agent_id, start AS busy_start, "end" AS busy_end FROM rocpd_kernel_dispatch
            UNION ALL
            SELECT dst_agent_id, start, "end" FROM rocpd_memory_copy)
      GROUP BY agent_id) work
     JOIN (SELECT MAX(busy_end) - MIN(busy_start) AS WallTime
           FROM (SELECT start AS busy_start, "end" AS busy_end FROM rocpd_kernel_dispatch
                 UNION ALL
                 SELECT start, "end" FROM rocpd_memory_copy)) span
     JOIN rocpd_info_agent agent ON agent.id = work.agent_id;

CREATE VIEW "top" AS
SELECT name, COUNT(*) AS total_calls, SUM(duration) / 1000.0 AS total_duration,
       (SUM(duration) / COUNT(*)) / 1000.0 AS average,
       SUM(duration) * 100.0 / (SELECT SUM(duration) FROM (
           SELECT "end" - start AS duration FROM rocpd_kernel_dispatch
           UNION ALL SELECT "end" - start FROM rocpd_memory_copy
           UNION ALL SELECT "end" - start FROM rocpd_region)) AS percentage
FROM (SELECT symbol.display_name AS name, dispatch.end - dispatch.start AS duration
      FROM rocpd_kernel_dispatch dispatch
           JOIN rocpd_info_kernel_symbol symbol ON symbol.id = dispatch.kernel_id
      UNION ALL
      SELECT name.string, copy.end - copy.start FROM rocpd_memory_copy copy
           JOIN rocpd_string name ON name.id = copy.name_id
      UNION ALL
      SELECT name.string, region.end - region.start FROM rocpd_region region
           JOIN rocpd_string name ON name.id = region.name_id)
GROUP BY name ORDER BY total_duration DESC;

-- Ours: each message with the events of its send and of its completed receive.
CREATE VIEW "rocprofmpi_messages" AS
SELECT send.message_id, send.event_id AS send_event_id, receive.event_id AS receive_event_id
FROM rocprofmpi_message_end send
     JOIN rocprofmpi_message_end receive
       ON receive.message_id = send.message_id AND receive."end" = 'RECEIVE'
WHERE send."end" = 'SEND';
)SQL";

std::string with(std::string_view sql, std::string_view placeholder, const std::string& value) {
  std::string out;
  out.reserve(sql.size());
  for (std::size_t at = 0;;) {
    const std::size_t found = sql.find(placeholder, at);
    out.append(sql.substr(at, found - at));
    if (found == std::string_view::npos) return out;
    out += value;
    at = found + placeholder.size();
  }
}

}  // namespace

const std::vector<std::string>& rocpd_table_names() {
  static const std::vector<std::string> names = {"rocpd_metadata",
                                                 "rocpd_string",
                                                 "rocpd_info_node",
                                                 "rocpd_info_process",
                                                 "rocpd_info_thread",
                                                 "rocpd_info_agent",
                                                 "rocpd_info_queue",
                                                 "rocpd_info_stream",
                                                 "rocpd_info_pmc",
                                                 "rocpd_info_code_object",
                                                 "rocpd_info_kernel_symbol",
                                                 "rocpd_track",
                                                 "rocpd_event",
                                                 "rocpd_arg",
                                                 "rocpd_pmc_event",
                                                 "rocpd_region",
                                                 "rocpd_sample",
                                                 "rocpd_kernel_dispatch",
                                                 "rocpd_memory_copy",
                                                 "rocpd_memory_allocate"};
  return names;
}

const std::vector<std::string>& rocprofmpi_table_names() {
  static const std::vector<std::string> names = {"rocprofmpi_message_end",
                                                 "rocprofmpi_device_work"};
  return names;
}

std::string rocpd_tables_sql(const std::string& suffix, const std::string& guid) {
  return with(with(kTables, "@S", suffix), "@G", guid);
}

std::string rocpd_views_sql(const std::string& suffix) { return with(kViews, "@S", suffix); }

}  // namespace rocprof::merge
