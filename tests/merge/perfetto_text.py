"""A Perfetto trace as text, for tests: decoded by protoc with the merge's proto subset
(Perfetto's own field numbers), parsed into dicts, and its track events with their interned
names resolved."""

import json
import os
import subprocess

PROTO = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "merge", "export", "proto")


def decode_trace(path):
    """protoc's text form of the .pftrace at `path` (raises when protoc cannot decode it)."""
    with open(path, "rb") as data:
        return subprocess.run(
            ["protoc", "--decode=rocprof.perfetto.Trace", f"-I{PROTO}",
             os.path.join(PROTO, "perfetto_trace_subset.proto")],
            stdin=data, capture_output=True, text=True, check=True).stdout


def parse_text_format(text):
    """protoc's text output as nested dicts: each field -> list of values (dicts for messages)."""
    root, stack = {}, []
    node = root
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            node = stack.pop()
        elif line.endswith("{"):
            child = {}
            node.setdefault(line[:-1].strip(), []).append(child)
            stack.append(node)
            node = child
        else:
            key, value = line.split(": ", 1)
            # protoc escapes a single quote, which JSON strings do not.
            node.setdefault(key, []).append(
                json.loads(value.replace("\\'", "'")) if value.startswith('"') else value)
    return root


def perfetto_events(text):
    """The track events of a decoded trace with interned names resolved per packet sequence:
    dicts of type, name, category, annotations (name -> int), flows, terminating, and track
    (the event's track uuid, or its sequence's default track when it names none)."""
    interned, defaults, events = {}, {}, []
    for packet in parse_text_format(text).get("packet", []):
        sequence = packet["trusted_packet_sequence_id"][0]
        if "1" == packet.get("sequence_flags", ["0"])[0]:
            interned[sequence] = {}
            defaults.pop(sequence, None)  # defaults are incremental state too
        for packet_defaults in packet.get("trace_packet_defaults", []):
            for event_defaults in packet_defaults.get("track_event_defaults", []):
                defaults[sequence] = event_defaults["track_uuid"][0]
        tables = interned.setdefault(sequence, {})
        for data in packet.get("interned_data", []):
            for field, entries in data.items():
                for entry in entries:
                    tables[(field, entry["iid"][0])] = entry["name"][0]
        for event in packet.get("track_event", []):
            def name_of(field, iid):
                return tables[(field, iid)]  # a KeyError is an iid sent before its name
            events.append({
                "type": event["type"][0],
                "timestamp": int(packet["timestamp"][0]),
                "name": name_of("event_names", event["name_iid"][0]) if "name_iid" in event else None,
                "category": [name_of("event_categories", i) for i in event.get("category_iids", [])],
                "annotations": {name_of("debug_annotation_names", a["name_iid"][0]):
                                int(a["int_value"][0]) for a in event.get("debug_annotations", [])},
                "flows": event.get("flow_ids", []),
                "terminating": event.get("terminating_flow_ids", []),
                "track": event["track_uuid"][0] if "track_uuid" in event
                         else defaults.get(sequence),
                "sequence": sequence,
            })
    return events
