"""A one-node Slurm cluster for the tests: munged, slurmctld and slurmd started in the
foreground from a private directory (its own munge key and socket, its own slurm.conf with this
host as the only node, free ports), and stopped afterwards. No systemd, nothing under /etc
touched: clients find the cluster through SLURM_CONF, the daemons through the config."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scontrol", "sinfo")


def missing() -> list[str]:
    """The Slurm and munge programs this machine lacks (Debian: slurm-wlm, munge)."""
    found = {n: shutil.which(n) or next((p for p in (f"/usr/sbin/{n}", f"/sbin/{n}") if os.path.exists(p)), None)
             for n in DAEMONS + CLIENTS}
    return [n for n, p in found.items() if p is None]


def _program(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpus() -> int:
    out = subprocess.run([_program("slurmd"), "-C"], capture_output=True, text=True, check=True).stdout
    for word in out.split():
        if word.startswith("CPUs="):
            return int(word[5:])
    return os.cpu_count() or 1


def _conf(d: Path, node: str, cpus: int) -> str:
    return f"""\
ClusterName=crossingstest
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge.socket
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MinJobAge=3600
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP
"""


def _wait(what: str, check, timeout: float, logs: list[Path]) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.3)
    tails = "\n".join(f"--- {p}\n{p.read_text(errors='replace')[-2000:]}" for p in logs if p.exists())
    raise RuntimeError(f"the test Slurm cluster did not come up: {what}\n{tails}")


@contextlib.contextmanager
def one_node_cluster() -> Iterator[dict[str, str]]:
    """Start munged, slurmctld and slurmd; yield the environment clients need (SLURM_CONF)."""
    d = Path(tempfile.mkdtemp(prefix="crossings-slurm-"))
    os.chmod(d, 0o700)
    for sub in ("state", "spool"):
        (d / sub).mkdir()
    key = d / "munge.key"
    key.write_bytes(os.urandom(1024))
    os.chmod(key, 0o400)
    node = socket.gethostname().split(".")[0]
    (d / "slurm.conf").write_text(_conf(d, node, _cpus()))
    env = {**os.environ, "SLURM_CONF": str(d / "slurm.conf")}
    procs: list[subprocess.Popen] = []
    try:
        procs.append(subprocess.Popen(
            [_program("munged"), "-F", "-f", f"--socket={d}/munge.socket", f"--key-file={key}",
             f"--pid-file={d}/munged.pid", f"--log-file={d}/munged.log", f"--seed-file={d}/munged.seed"],
            stdout=subprocess.DEVNULL, stderr=open(d / "munged.stderr", "wb"), start_new_session=True))
        _wait("munged", lambda: (d / "munge.socket").exists(), 20, [d / "munged.log", d / "munged.stderr"])
        procs.append(subprocess.Popen([_program("slurmctld"), "-D", "-i", "-f", str(d / "slurm.conf")], env=env,
                                      stdout=subprocess.DEVNULL, stderr=open(d / "slurmctld.stderr", "wb"),
                                      start_new_session=True))
        procs.append(subprocess.Popen([_program("slurmd"), "-D", "-N", node, "-f", str(d / "slurm.conf")], env=env,
                                      stdout=subprocess.DEVNULL, stderr=open(d / "slurmd.stderr", "wb"),
                                      start_new_session=True))

        def idle() -> bool:
            out = subprocess.run(["sinfo", "-h", "-o", "%T"], env=env, capture_output=True, text=True)
            return out.returncode == 0 and out.stdout.strip() in ("idle", "mixed", "allocated")

        _wait("node idle", idle, 60, [d / n for n in ("slurmctld.log", "slurmd.log", "slurmctld.stderr",
                                                       "slurmd.stderr")])
        yield {"SLURM_CONF": env["SLURM_CONF"], "dir": str(d)}
    finally:
        for p in reversed(procs):  # slurmd, slurmctld, munged: only the daemons started here
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        shutil.rmtree(d, ignore_errors=True)
