"""A real single-node Slurm for tests: writes a configuration under a temporary directory,
starts slurmctld and slurmd in the foreground as children, waits until the node is idle, and
stops exactly the processes it started. Use as a context manager; `env` is the environment
for srun/sbatch/squeue (SLURM_CONF set), `run(...)` runs a Slurm command.

Also a command-line helper for the demo: local_slurm.py start DIR | stop DIR."""

import os
import signal
import subprocess
import sys
import tempfile
import time

CONFIG = """ClusterName=rocproftest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=pmix
SwitchType=switch/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MailProg=/bin/true
PlugStackConfig={dir}/plugstack.conf
SlurmdParameters=config_overrides
NodeName=localhost NodeAddr=127.0.0.1 CPUs=8 RealMemory=16000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
"""


class LocalSlurm:
    def __init__(self, directory=None, ctld_port=16817, d_port=16818):
        self._tmp = None if directory else tempfile.TemporaryDirectory(prefix="slurm_")
        self.dir = directory or self._tmp.name
        self.ctld_port, self.d_port = ctld_port, d_port
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        for name in ("LD_PRELOAD", "SLURM_JOB_ID", "SLURM_PROCID"):
            self.env.pop(name, None)
        self.processes = []

    def run(self, *command, timeout=120, check=False, **kwargs):
        return subprocess.run(list(command), env=self.env, capture_output=True, text=True,
                              timeout=timeout, check=check, **kwargs)

    def start(self, wait_s=30):
        for sub in ("state", "spool"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        open(os.path.join(self.dir, "plugstack.conf"), "w").close()
        # PMIx makes a directory per step named by job and step id, under /tmp by default; job ids
        # start at 1 in every fresh Slurm, so a directory left by an earlier run would fail the step.
        os.makedirs(os.path.join(self.dir, "pmix"), exist_ok=True)
        with open(os.path.join(self.dir, "mpi.conf"), "w") as f:
            f.write(f"PMIxCliTmpDirBase={self.dir}/pmix\n")
        with open(self.conf, "w") as f:
            f.write(CONFIG.format(dir=self.dir, ctld_port=self.ctld_port, d_port=self.d_port))
        log = open(os.path.join(self.dir, "daemons.out"), "w")
        self.processes.append(subprocess.Popen(["slurmctld", "-D", "-i", "-f", self.conf],
                                               env=self.env, stdout=log, stderr=log))
        self.processes.append(subprocess.Popen(["slurmd", "-D", "-N", "localhost", "-f", self.conf],
                                               env=self.env, stdout=log, stderr=log))
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            state = self.run("sinfo", "-h", "-o", "%T", timeout=10).stdout.strip()
            if state == "idle":
                return self
            if any(p.poll() is not None for p in self.processes):
                break
            time.sleep(0.3)
        logs = self.log_tails()
        self.stop()
        raise RuntimeError("the local Slurm did not become idle:\n" + logs)

    def log_tails(self, chars=2000):
        """The end of each daemon's log, for a failure message."""
        logs = ""
        for name in ("slurmctld.log", "slurmd.log", "daemons.out"):
            path = os.path.join(self.dir, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    logs += f"--- {name}\n" + f.read()[-chars:]
        return logs

    def stop(self):
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes = []

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()


def main(argv):
    """demo helper: start DIR (daemons keep running, PIDs written) | stop DIR."""
    action, directory = argv[1], os.path.abspath(argv[2])
    os.makedirs(directory, exist_ok=True)
    if action == "start":
        slurm = LocalSlurm(directory).start()
        with open(os.path.join(directory, "pids"), "w") as f:
            f.write(" ".join(str(p.pid) for p in slurm.processes))
        print(slurm.conf)
        return 0
    pids_file = os.path.join(directory, "pids")
    if os.path.exists(pids_file):
        for pid in open(pids_file).read().split():
            try:
                os.kill(int(pid), signal.SIGTERM)
            except ProcessLookupError:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
