"""CPU time of the server's processes, read from /proc (Linux)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")
SERVER_MARKERS = ("daphne", "celery")
# A process of the project: the platform's, or the load benchmark's reference server (issue 17).
PROJECT_MARKERS = ("mahjong_platform", "games.loadtest.reference")


@dataclass(frozen=True)
class Proc:
    pid: int
    name: str


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def server_processes(exclude: int | None = None, with_services: bool = False) -> list[Proc]:
    """Every daphne or Celery process of this project on the machine (not the load client), and
    with ``with_services`` PostgreSQL and Redis (which other programs on the machine may share)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in (exclude, os.getpid()):
            continue
        cmd = _cmdline(int(entry.name))
        if any(p in cmd for p in PROJECT_MARKERS) and any(m in cmd for m in SERVER_MARKERS) and "bash -c" not in cmd:
            name = "daphne" if "daphne" in cmd else ("beat" if " beat" in cmd else "celery")
            found.append(Proc(int(entry.name), name))
        elif with_services and cmd.startswith(("postgres", "/usr/lib/postgresql")):
            found.append(Proc(int(entry.name), "postgres"))  # the server and its backends (shared)
        elif with_services and cmd.startswith(("redis-server", "/usr/bin/redis-server")):
            found.append(Proc(int(entry.name), "redis"))
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def main_thread_seconds(pid: int) -> float:
    """User + system CPU seconds of a process's main thread alone (0 if it is gone).  In daphne
    that is the event loop (sockets, Channels); the database work runs on another thread."""
    try:
        fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    total = sum(values[:8])
    return float(total - idle), float(total)


class CpuMeter:
    """CPU used by the server processes (and by this client) between start() and stop()."""

    def __init__(self, procs: list[Proc]) -> None:
        self.procs = procs
        self.before: dict[int, float] = {}
        self.after: dict[int, float] = {}
        self.loop_before: dict[int, float] = {}
        self.loop_after: dict[int, float] = {}
        self.client_before = self.client_after = 0.0
        self.machine_before = self.machine_after = (0.0, 0.0)

    def start(self) -> None:
        self.before = {p.pid: cpu_seconds(p.pid) for p in self.procs}
        self.loop_before = {p.pid: main_thread_seconds(p.pid) for p in self.procs if p.name == "daphne"}
        self.client_before = cpu_seconds(os.getpid())
        self.machine_before = machine_busy()

    def stop(self) -> None:
        self.after = {p.pid: cpu_seconds(p.pid) for p in self.procs}
        self.loop_after = {p.pid: main_thread_seconds(p.pid) for p in self.procs if p.name == "daphne"}
        self.client_after = cpu_seconds(os.getpid())
        self.machine_after = machine_busy()

    def report(self, seconds: float) -> dict[str, float]:
        """Percent of one core: per server process kind, all servers (``server_total``), of
        daphne's share its event loops' (``daphne_loop``), this client, the machine."""
        out: dict[str, float] = {}
        for p in self.procs:
            used = max(0.0, self.after.get(p.pid, 0.0) - self.before.get(p.pid, 0.0))  # 0 once it exited
            out[p.name] = out.get(p.name, 0.0) + 100 * used / seconds
        out["server_total"] = sum(v for k, v in out.items() if k not in ("postgres", "redis"))
        if self.loop_before:
            # Of daphne's share, its event loop threads' (the rest is mostly the database thread):
            # where the next saving must come from (docs/performance.md).
            loop = sum(max(0.0, self.loop_after.get(pid, 0.0) - before) for pid, before in self.loop_before.items())
            out["daphne_loop"] = 100 * loop / seconds
        out["client"] = 100 * (self.client_after - self.client_before) / seconds
        busy = self.machine_after[0] - self.machine_before[0]
        total = self.machine_after[1] - self.machine_before[1]
        out["machine"] = 100 * busy / total if total else 0.0  # percent of all cores
        return out
