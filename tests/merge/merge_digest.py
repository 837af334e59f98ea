"""A digest of a merged output that is the same whenever the output says the same:
- .h5: every group's and dataset's name, attributes, type, shape and values, read with h5py
  (a parallel merge writes chunks in the order they arrive, so the file's bytes may differ);
- .otf2: every file of the archive (NAME.otf2, NAME.def, NAME/) by its name within the
  archive, the anchor's random trace identifier left out (OTF2 draws one per archive);
- .hta: the index NAME.hta (with NAME written as such) and every file of NAME/ by its name;
- .db: every table's and view's definition and every table's rows in id order, read with
  Python's sqlite3 (a parallel merge adds the processes' rows in another order, so pages differ);
- any other output: its bytes."""

import hashlib
import os
import subprocess


def _otf2_anchor_text(anchor):
    printed = subprocess.run(["otf2-print", "-A", anchor], capture_output=True, text=True,
                             check=True)
    anchor_part = printed.stdout.split("=== Global Definitions")[0]
    return "\n".join(line for line in anchor_part.splitlines()
                     if not line.startswith("Trace identifier")).encode()


def _otf2_digest(anchor, digest):
    stem = anchor[: -len(".otf2")]
    digest.update(_otf2_anchor_text(anchor))
    files = {".def": stem + ".def"}
    for directory, _, names in os.walk(stem):
        for name in names:
            path = os.path.join(directory, name)
            files[os.path.relpath(path, stem)] = path
    for name in sorted(files):
        digest.update(name.encode())
        with open(files[name], "rb") as f:
            digest.update(f.read())


def _hdf5_digest(path, digest):
    import h5py  # noqa: PLC0415 (only .h5 needs it)

    # The zstd filter: hdf5plugin's (python3-hdf5plugin), or the directory the tests name.
    try:
        import hdf5plugin  # noqa: F401,PLC0415
    except ImportError:
        pass
    if os.environ.get("ROCPROF_TEST_PLUGIN_DIR"):
        h5py.h5pl.prepend(os.environ["ROCPROF_TEST_PLUGIN_DIR"].encode())

    def attributes(item):
        for key in sorted(item.attrs):
            digest.update(key.encode() + repr(item.attrs[key]).encode())

    def visit(name, item):
        digest.update(name.encode())
        attributes(item)
        if isinstance(item, h5py.Dataset):
            digest.update(repr((item.dtype.descr, item.shape)).encode())
            values = item[()]
            # Variable-length strings are objects: their text, not their addresses.
            plain = item.shape != () and not item.dtype.hasobject
            digest.update(values.tobytes() if plain else repr(values.tolist()).encode())

    with h5py.File(path, "r") as f:
        attributes(f)
        names = []
        f.visit(names.append)
        for name in sorted(names):
            visit(name, f[name])


def _sqlite_digest(path, digest):
    import sqlite3  # noqa: PLC0415

    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        objects = db.execute("SELECT type, name, sql FROM sqlite_master "
                             "WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").fetchall()
        for kind, name, sql in objects:
            digest.update(repr((kind, name, sql)).encode())
            if kind == "table":
                for row in db.execute(f'SELECT * FROM "{name}" ORDER BY 1'):
                    digest.update(repr(row).encode())


def _per_rank_json_digest(index, digest):
    stem = index[: -len(".hta")]
    name = os.path.basename(stem)
    with open(index) as f:
        digest.update(f.read().replace(f'"{name}/', '"NAME/').encode())
    for file in sorted(os.listdir(stem)):
        digest.update(file.encode())
        with open(os.path.join(stem, file), "rb") as f:
            digest.update(f.read())


def output_digest(path):
    digest = hashlib.sha256()
    if path.endswith(".otf2"):
        _otf2_digest(path, digest)
    elif path.endswith(".h5"):
        _hdf5_digest(path, digest)
    elif path.endswith(".db"):
        _sqlite_digest(path, digest)
    elif path.endswith(".hta"):
        _per_rank_json_digest(path, digest)
    else:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()
