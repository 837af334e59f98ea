#!/usr/bin/env python3
"""The include graph between the project's folders, checked against its layering.

A folder is a top-level layer and its first sub-folder (`merge/events`, `lib/core`); an edge
A -> B means a file in A includes a file in B (`#include "B/..."`). The rules:
  - the layers only look down: `lib/` includes nothing of `mpi/`, `merge/` or `cli/`;
    `mpi/` and `merge/` include nothing of each other or of `cli/`;
  - no loop between folders: a folder that needs another must not be needed by it, directly
    or through others.

Usage: folder_graph.py [ROOT]   (default: the repository this file is in)
Exit 0 when the graph keeps the rules, else 1 with one line per broken rule.
"""
import os
import re
import sys

LAYERS = ("lib", "mpi", "merge", "cli")
# What each layer may include besides itself.
ALLOWED_BELOW = {"lib": set(), "mpi": {"lib"}, "merge": {"lib"}, "cli": {"lib", "mpi", "merge"}}
SOURCE_SUFFIXES = (".c", ".cpp", ".h", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def folder_of(relative_path):
    """`merge/events/x.hpp` -> `merge/events`; a file directly in a layer -> the layer."""
    parts = relative_path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def include_graph(root):
    """{folder: {included folder: an example 'file -> include'}} for the project's layers."""
    graph = {}
    for layer in LAYERS:
        for directory, _, files in os.walk(os.path.join(root, layer)):
            for name in files:
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, root).replace(os.sep, "/")
                source = folder_of(relative)
                edges = graph.setdefault(source, {})
                with open(path, encoding="utf-8", errors="replace") as f:
                    for included in INCLUDE.findall(f.read()):
                        if included.split("/")[0] not in LAYERS or "/" not in included:
                            continue
                        target = folder_of(included)
                        if target != source:
                            edges.setdefault(target, f"{relative} -> {included}")
    return graph


def layer_violations(graph):
    problems = []
    for source, edges in sorted(graph.items()):
        layer = source.split("/")[0]
        for target, example in sorted(edges.items()):
            other = target.split("/")[0]
            if other != layer and other not in ALLOWED_BELOW[layer]:
                problems.append(f"{layer}/ must not include {other}/: {example}")
    return problems


def loops(graph):
    """Each loop once, as the list of folders around it (Tarjan's strongly connected parts,
    then one cycle through each part of more than one folder)."""
    index = {}
    low = {}
    stack = []
    on_stack = set()
    parts = []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, {})):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                parts.append(set(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    cycles = []
    for part in parts:
        start = min(part)
        # Breadth-first inside the part, back to the start: the shortest loop through it.
        previous = {start: None}
        queue = [start]
        found = None
        while queue and found is None:
            node = queue.pop(0)
            for target in sorted(graph.get(node, {})):
                if target not in part:
                    continue
                if target == start:
                    found = node
                    break
                if target not in previous:
                    previous[target] = node
                    queue.append(target)
        path = [found]
        while previous[path[-1]] is not None:
            path.append(previous[path[-1]])
        cycles.append(list(reversed(path)))
    return cycles


def check(root):
    graph = include_graph(root)
    problems = layer_violations(graph)
    for cycle in loops(graph):
        steps = [f"{a} -> {b} ({graph[a][b]})" for a, b in zip(cycle, cycle[1:] + cycle[:1])]
        problems.append("folders include each other in a loop: " + "; ".join(steps))
    return problems


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    problems = check(root)
    for problem in problems:
        print(problem)
    if not problems:
        print(f"folder graph of {root}: layered, no loops")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
