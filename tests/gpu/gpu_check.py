"""What the GPU test scripts share: the skip rule (exit 77 with the reason where no NVIDIA GPU
is) and the way a check is reported (one line each, a summary at the end)."""

import os
import shutil
import subprocess

SKIP = 77
# The rank file's memory kinds of copies and memsets (docs/FORMAT.md, activities).
PAGEABLE, PINNED, DEVICE = 1, 2, 3


def no_gpu_reason():
    """Why these tests cannot run here, or None when an NVIDIA GPU answers."""
    if shutil.which("nvidia-smi") is None or subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True).returncode != 0:
        return "no NVIDIA GPU on this machine (nvidia-smi -L fails)"
    return None


def ready(work, commands=()):
    """True with `work` made empty, where a GPU answers and each of `commands` is on the PATH;
    else False, with the reason printed as the skip line (the caller returns SKIP)."""
    reason = no_gpu_reason()
    for command in commands:
        if reason is None and shutil.which(command) is None:
            reason = f"no {command} on this machine"
    if reason is not None:
        print(f"SKIPPED: {reason}")
        return False
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return True


def compare_durations(traced, events):
    """(agreeing, compared, worst relative deviation) of traced kernel durations against the
    cudaEvent times of the same kernels (µs, in the same order): agreeing within 5 % or 2 µs."""
    pairs = list(zip(traced, events))
    within = sum(abs(t - e) <= max(0.05 * e, 2.0) for t, e in pairs)
    worst = max((abs(t - e) / e for t, e in pairs), default=0.0)
    return within, len(pairs), worst


class Checks:
    """Prints `ok` or `FAIL` and the description for each check; remembers the failures."""

    def __init__(self):
        self.failures = []

    def __call__(self, condition, what):
        print(("ok   " if condition else "FAIL ") + what)
        if not condition:
            self.failures.append(what)
        return condition

    def exit_code(self):
        print("PASSED" if not self.failures else f"FAILED: {len(self.failures)} checks")
        return 0 if not self.failures else 1
