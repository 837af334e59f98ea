#!/usr/bin/env python3
"""Compares the dynamic symbols (with versions) two libraries define against a list.

Usage: check_exports.py EXPECTED LIB [LIB...]
Reads each library with `readelf --dyn-syms --wide`; prints the difference and exits 1 on
any symbol missing, extra, or in the wrong version node, and checks each soname.
"""
import pathlib
import subprocess
import sys


def defined_symbols(library):
    out = subprocess.run(["readelf", "--dyn-syms", "--wide", library], check=True,
                         capture_output=True, text=True).stdout
    symbols = set()
    for line in out.splitlines():
        fields = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(fields) < 8 or not fields[0].rstrip(":").isdigit():
            continue
        kind, ndx, name = fields[3], fields[6], fields[7]
        if ndx == "UND" or kind == "SECTION" or "@" not in name:
            continue
        if name.split("@")[0] == name.split("@")[-1]:
            continue  # the version node's own definition symbol
        symbols.add(name)
    return symbols


def soname(library):
    out = subprocess.run(["readelf", "--dynamic", "--wide", library], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "(SONAME)" in line:
            return line.split("[")[1].rstrip("]")
    return None


# The soname each library has in ROCm, where it is not NAME.so.4: ROCm 5.6's
# librocprofiler64v2.so links to librocprofiler64.so.2.
SONAMES = {"librocprofiler64v2.so": "librocprofiler64.so.2"}


def main(argv):
    expected_file, libraries = argv[1], argv[2:]
    expected = {}
    for line in pathlib.Path(expected_file).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            lib, symbol = line.split()
            expected.setdefault(lib, set()).add(symbol)
    failed = False
    for library in libraries:
        base = pathlib.Path(library).name.split(".so")[0] + ".so"
        got = defined_symbols(library)
        want = expected.get(base, set())
        for symbol in sorted(want - got):
            print(f"{base}: missing {symbol}")
            failed = True
        for symbol in sorted(got - want):
            print(f"{base}: unexpected {symbol}")
            failed = True
        name = soname(library)
        if name != SONAMES.get(base, base + ".4"):
            print(f"{base}: soname is {name}, expected {SONAMES.get(base, base + '.4')}")
            failed = True
        print(f"{base}: {len(got)} exported symbols checked, soname {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
