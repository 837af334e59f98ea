#!/usr/bin/env python3
"""Flipped bytes in rank files against the merge's promise (docs/ROCPROF_MERGE.md): a damaged
rank file is named (the merge fails with a line naming it), or merges to exactly what the
undamaged job merges to (the damage hit bytes nothing reads). Never a different timeline with
exit 0, never a crash. With --skip-bad, a damaged file is left out with a warning (the merge
equals that of the job without the file) or merges identically.

Each case copies a synthetic job, flips 1 to 8 random bytes of one of its files at seeded
random places, and merges it to .pftrace. Prints one line per failure and ends with
"N passed, N failed"; exit status 1 if any case failed.

    bitflip_merge.py --merge build/bin/rocprof-merge --synthetic build/tests/synthetic_job \\
        --cases 200 --seed 1
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile


def parse():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--merge", required=True)
    parser.add_argument("--synthetic", required=True)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--keep", help="copy the job of each failed case here")
    return parser.parse_args()


def merge(args, job, output, *extra):
    # A damaged file's bytes may reach a message (a name read from it): read them as they come.
    return subprocess.run([args.merge, job, "-o", output, "-q", "--no-summary", *extra],
                          capture_output=True, text=True, errors="backslashreplace", timeout=300)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def skip_bad_problem(args, damaged, victim, output, expected, without):
    """None if `merge --skip-bad` of the damaged job kept its promise, else what went wrong;
    and the outcome's name."""
    if os.path.exists(output):
        os.remove(output)
    result = merge(args, damaged, output, "--skip-bad")
    if result.returncode < 0:
        return f"--skip-bad: the merge died of signal {-result.returncode}", None
    if result.returncode != 0:
        return f"--skip-bad: exit {result.returncode}: {result.stderr.strip()[:300]}", None
    if f"skipped {victim}" in result.stderr:
        if read(output) != without[os.path.basename(victim)]:
            return "--skip-bad: the merge differs from the job's without the skipped file", None
        return None, "skipped"
    if read(output) != expected:
        return "--skip-bad: merged with exit 0 into a timeline that differs", None
    return None, "identical"


def main():
    args = parse()
    generator = random.Random(args.seed)
    passed = failed = 0
    outcomes = {"named": 0, "identical": 0, "skipped": 0, "identical with --skip-bad": 0}
    with tempfile.TemporaryDirectory(prefix="bitflip_") as work:
        job = os.path.join(work, "job")
        subprocess.run([args.synthetic, job, str(args.ranks), str(args.events)], check=True)
        reference_path = os.path.join(work, "reference.pftrace")
        reference = merge(args, job, reference_path)
        if reference.returncode != 0:
            print(f"the undamaged job does not merge: {reference.stderr}")
            print("0 passed, 1 failed")
            return 1
        with open(reference_path, "rb") as f:
            expected = f.read()
        files = sorted(os.listdir(job))
        # The job without each of its files: what --skip-bad must give when it leaves one out.
        without = {}
        for name in files:
            partial = os.path.join(work, "without")
            shutil.rmtree(partial, ignore_errors=True)
            shutil.copytree(job, partial)
            os.remove(os.path.join(partial, name))
            path = os.path.join(work, "without.pftrace")
            if merge(args, partial, path, "--allow-missing").returncode != 0:
                print(f"the job without {name} does not merge")
                print("0 passed, 1 failed")
                return 1
            without[name] = read(path)
        for case in range(args.cases):
            damaged = os.path.join(work, "damaged")
            shutil.rmtree(damaged, ignore_errors=True)
            shutil.copytree(job, damaged)
            victim = os.path.join(damaged, generator.choice(files))
            size = os.path.getsize(victim)
            flips = [(generator.randrange(size), generator.randrange(1, 256))
                     for _ in range(generator.randint(1, 8))]
            with open(victim, "r+b") as f:
                for offset, mask in flips:
                    f.seek(offset)
                    byte = f.read(1)[0]
                    f.seek(offset)
                    f.write(bytes([byte ^ mask]))
            output = os.path.join(work, "out.pftrace")
            if os.path.exists(output):
                os.remove(output)
            result = merge(args, damaged, output)
            problem = None
            if result.returncode < 0:
                problem = f"the merge died of signal {-result.returncode}"
            elif result.returncode != 0:
                if victim not in result.stderr:
                    problem = f"exit {result.returncode} without naming {victim}: {result.stderr}"
                else:
                    outcomes["named"] += 1
            else:
                with open(output, "rb") as f:
                    same = f.read() == expected
                if not same:
                    problem = "merged with exit 0 into a timeline that differs"
                else:
                    outcomes["identical"] += 1
            if not problem:
                problem, outcome = skip_bad_problem(args, damaged, victim, output, expected,
                                                    without)
                if outcome == "identical":
                    outcomes["identical with --skip-bad"] += 1
                elif outcome:
                    outcomes[outcome] += 1
            if problem:
                failed += 1
                places = ", ".join(f"{offset:#x}" for offset, _ in flips)
                print(f"case {case}: {os.path.basename(victim)} flipped at {places}: {problem}",
                      flush=True)
                if args.keep:
                    shutil.copytree(damaged, os.path.join(args.keep, f"case{case}"))
            else:
                passed += 1
    print(", ".join(f"{name} {count}" for name, count in outcomes.items()))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
