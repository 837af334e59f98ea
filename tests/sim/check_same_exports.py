#!/usr/bin/env python3
"""Fails unless two shared libraries export the same functions and data objects under the
same version nodes (a simulated runtime against the installed one it stands for).

usage: check_same_exports.py REAL SIMULATED"""

import subprocess
import sys


def exports(library):
    out = subprocess.run(["objdump", "-T", library], check=True, capture_output=True,
                         text=True).stdout
    found = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 6 or not (" DF " in line or " DO " in line) or fields[-4] in (
                "*UND*", "*ABS*"):
            continue
        version = fields[-2]
        if version not in ("Base",) and not version.startswith("("):
            found.add((fields[-1], version))
    return found


def main():
    real, simulated = (exports(path) for path in sys.argv[1:3])
    missing, extra = sorted(real - simulated), sorted(simulated - real)
    for name, version in missing:
        print(f"missing: {name}@{version}")
    for name, version in extra:
        print(f"extra: {name}@{version}")
    print(f"{len(real)} exports in the real library, {len(simulated)} in the simulated one")
    return 1 if missing or extra or not real else 0


if __name__ == "__main__":
    sys.exit(main())
