#!/usr/bin/env python3
"""Reads a rocpd database that rocprof-merge wrote with AMD's own rocpd Python package (query,
summary and the time window of rocprofiler-sdk's source/lib/python/rocpd), and checks that the
counts it reports equal the merge's own summary of the same job.

    rocpd_tools_check.py --rocpd-source CHECKOUT --db job.db --summary-csv PREFIX [--h5 job.h5]

CHECKOUT is a checkout of ROCm/rocprofiler-sdk or of ROCm/rocm-systems. Without one, the
check says why it skipped and exits 77 (ctest's skip code).

The package's modules are plain Python over sqlite3, but they import a C++ extension
(libpyrocpd) that cannot be built without ROCm. Four things of it are used on the paths run
here, and this script stands in for those only: opening the database (sqlite3.connect), the
base class that holds the connection, reading the package's own schema files (with the uuid
and guid put in, as the extension does), and naming output files. Every query, view and
summary is the package's own."""

import argparse
import csv
import glob
import os
import shutil
import sqlite3
import sys
import tempfile
from collections import Counter

SKIP = 77

SHIM = '''
"""Stand-in for rocpd's C++ extension: only what the plain-Python paths need."""
import os
import sqlite3

SCHEMA_DIR = {schema_dir!r}


def connect(path):
    return sqlite3.connect(path)


def format_path(path, tag=""):
    return path


class RocpdImportData:
    def __init__(self, connection, filenames=None):
        if isinstance(connection, RocpdImportData):
            self.connection = connection.connection
            self.filenames = connection.filenames
        else:
            self.connection = connection
            self.filenames = filenames or []


class schema_jinja_variables:
    uuid = ""
    guid = ""


class _Names:
    def __init__(self, *names):
        for name in names:
            setattr(self, name, name)


sql_engine = _Names("sqlite3")
sql_option = _Names("none", "sqlite3_pragma_foreign_keys")
sql_schema = _Names("rocpd_tables", "rocpd_indexes", "rocpd_views", "data_views",
                    "summary_views", "marker_views")


def load_schema(engine, kind, options, variables):
    with open(os.path.join(SCHEMA_DIR, kind + ".sql")) as f:
        text = f.read()
    uuid = "_" + variables.uuid if variables.uuid else ""
    return text.replace("{{{{uuid}}}}", uuid).replace("{{{{guid}}}}", variables.guid)


class output_config:
    pass


class agent_indexing:
    node = 0
    logical_node = 1
    logical_node_type = 2
'''


def find_package(checkout):
    for base in (checkout, os.path.join(checkout, "projects", "rocprofiler-sdk")):
        package = os.path.join(base, "source", "lib", "python", "rocpd")
        schema = os.path.join(base, "source", "share", "rocprofiler-sdk-rocpd")
        if os.path.isfile(os.path.join(package, "summary.py")) and os.path.isdir(schema):
            return package, schema
    return None, None


def install_package(package, schema, into):
    """The package as its build installs it (version placeholders filled), plus the shim."""
    target = os.path.join(into, "rocpd")
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("source", "*.cpp", "*.hpp"))
    init = os.path.join(target, "__init__.py")
    with open(init) as f:
        text = f.read()
    for placeholder in ("PROJECT_VERSION_MAJOR", "PROJECT_VERSION_MINOR", "PROJECT_VERSION_PATCH"):
        text = text.replace(f"@{placeholder}@", "0")
    with open(init, "w") as f:
        f.write(text)
    with open(os.path.join(target, "libpyrocpd.py"), "w") as f:
        f.write(SHIM.format(schema_dir=schema))
    sys.path.insert(0, into)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def rocpd_calls(directory, view):
    """Calls by name from one of rocpd summary's CSV files, or {} when it wrote none."""
    path = os.path.join(directory, f"{view}.csv")
    if not os.path.exists(path):
        return {}
    return {row["Name"]: int(row["Calls"]) for row in read_csv(path)}


def ours(prefix):
    """What the merge's summary (--summary-csv PREFIX) counted, summed over ranks."""
    mpi, kernels, copies, regions = Counter(), Counter(), Counter(), Counter()
    for row in read_csv(prefix + "_mpi.csv"):
        mpi[row["function"]] += int(row["calls"])
    for row in read_csv(prefix + "_kernels.csv"):
        (kernels if row["kind"] == "kernel" else copies)[row["name"]] += int(row["count"])
    for row in read_csv(prefix + "_regions.csv"):
        regions[row["name"]] += int(row["count"])
    return mpi, kernels, copies, regions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rocpd-source", default=os.environ.get("ROCPD_SOURCE", ""))
    parser.add_argument("--db", required=True)
    parser.add_argument("--summary-csv", required=True, help="PREFIX of rocprof-merge --summary-csv")
    parser.add_argument("--h5", help="the same job merged to .h5 (its API calls are counted)")
    parser.add_argument("--show", action="store_true",
                        help="print the first rows of every summary rocpd wrote")
    args = parser.parse_args()
    if not args.rocpd_source:
        print("skipped: no rocpd source given (--rocpd-source or ROCPD_SOURCE)")
        return SKIP
    package, schema = find_package(args.rocpd_source)
    if package is None:
        print(f"skipped: {args.rocpd_source} holds no rocpd package (source/lib/python/rocpd)")
        return SKIP
    try:
        import pandas  # noqa: F401 (rocpd's query exports through it)
    except ImportError:
        print("skipped: rocpd's query needs pandas (python3-pandas)")
        return SKIP

    work = tempfile.mkdtemp(prefix="rocpd-check-")
    try:
        install_package(package, schema, work)
        from rocpd import query, summary, time_window  # noqa: PLC0415
        from rocpd.importer import RocpdImportData  # noqa: PLC0415

        failures = []

        def expect(what, theirs, mine):
            status = "ok" if theirs == mine else "DIFFERS"
            print(f"{what}: rocpd {theirs}, rocprof-merge {mine} {status}")
            if theirs != mine:
                failures.append(what)

        data = RocpdImportData([args.db])
        # The whole run as the time window (rocpd's own bounds from its views).
        time_window.apply_time_window(data, start="0%", end="100%")
        out = os.path.join(work, "summary")
        summary.generate_all_summaries(data, format="csv", output_path=out, domain_summary=True)
        print("rocpd summary wrote:", " ".join(sorted(
            os.path.basename(p) for p in glob.glob(os.path.join(out, "*.csv")))))
        if args.show:
            for path in sorted(glob.glob(os.path.join(out, "*.csv"))):
                with open(path) as f:
                    print(f"--- {os.path.basename(path)}\n" + "".join(f.readlines()[:6]), end="")

        mpi, kernels, copies, regions = ours(args.summary_csv)
        expect("MPI calls by function", rocpd_calls(out, "mpi_summary"), dict(mpi))
        expect("kernel dispatches by name", rocpd_calls(out, "kernels_summary"), dict(kernels))
        expect("memory copies", sum(rocpd_calls(out, "memory_copies_summary").values()),
               sum(copies.values()))
        markers = rocpd_calls(out, "markers_summary")
        user = rocpd_calls(out, "user_summary")
        ranges = Counter(markers) + Counter(user)
        expect("ROC-TX ranges and user regions by name", dict(ranges), dict(regions))

        # rocpd query: the same counts through its query path.
        counted = os.path.join(work, "counts")
        query.export_sqlite_query(
            data,
            "SELECT (SELECT COUNT(*) FROM kernels) AS kernels, "
            "(SELECT COUNT(*) FROM memory_copies) AS copies, "
            "(SELECT COUNT(*) FROM regions WHERE category = 'MPI_API') AS mpi, "
            "(SELECT COUNT(*) FROM regions WHERE category LIKE '%_API' "
            "AND category NOT IN ('MPI_API', 'MARKER_CORE_RANGE_API')) AS api",
            export_format="csv", export_path=counted)
        row = read_csv(counted + ".csv")[0]
        expect("kernels (query)", int(row["kernels"]), sum(kernels.values()))
        expect("MPI calls (query)", int(row["mpi"]), sum(mpi.values()))
        if args.h5:
            import h5py  # noqa: PLC0415
            try:
                import hdf5plugin  # noqa: F401,PLC0415
            except ImportError:
                pass
            with h5py.File(args.h5, "r") as f:
                api_calls = f["api_calls/begin_ns"].shape[0] if "api_calls" in f else 0
            expect("API calls (query)", int(row["api"]), api_calls)
        if failures:
            print("FAILED:", ", ".join(failures))
            return 1
        print("rocpd's tools read the database; every count equals rocprof-merge's")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
