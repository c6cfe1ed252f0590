"""CPU time of the server's processes, read from /proc (Linux)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

TICKS = os.sysconf("SC_CLK_TCK")
SERVER_MARKERS = ("daphne", "celery")
# A process of the project: the platform's, or the load benchmark's reference server.
PROJECT_MARKERS = ("mahjong_platform", "games.tools.loadtest.reference")


@dataclass(frozen=True)
class Proc:
    pid: int
    name: str


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _environ(pid: int, name: str) -> str | None:
    """One variable of a process's environment as it started (None if unreadable or unset)."""
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    prefix = name.encode() + b"="
    for item in raw.split(b"\0"):
        if item.startswith(prefix):
            return item[len(prefix) :].decode(errors="replace")
    return None


def _database_name(database_url: str) -> str:
    return urlsplit(database_url).path.lstrip("/")


def backend_database(title: str) -> str | None:
    """The database a PostgreSQL backend serves, from its process title — "postgres: [CLUSTER:]
    USER DATABASE HOST(PORT)|[local] STATE" — or None for a background process (checkpointer,
    walwriter, ...), which names none."""
    words = title.split()
    for i, word in enumerate(words):
        if i >= 2 and ("(" in word or word == "[local]"):
            return words[i - 1]
    return None


def server_processes(
    exclude: int | None = None, with_services: bool = False, database_url: str | None = None
) -> list[Proc]:
    """The daphne and Celery processes of this project on the machine (not the load client),
    and with ``with_services`` PostgreSQL and Redis.

    With ``database_url`` only the servers started with that very ``DATABASE_URL`` count, and
    of PostgreSQL only the backends connected to that database (plus its shared background
    processes): other people's servers and test runs on the machine use other databases and are
    not metered.  Redis is one process for everyone: it is counted whole."""
    wanted_db = _database_name(database_url) if database_url and database_url.startswith("postgres") else None
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in (exclude, os.getpid()):
            continue
        pid = int(entry.name)
        cmd = _cmdline(pid)
        if any(p in cmd for p in PROJECT_MARKERS) and any(m in cmd for m in SERVER_MARKERS) and "bash -c" not in cmd:
            if database_url is not None and _environ(pid, "DATABASE_URL") != database_url:
                continue  # somebody else's server
            name = "daphne" if "daphne" in cmd else ("beat" if " beat" in cmd else "celery")
            found.append(Proc(pid, name))
        elif with_services and cmd.startswith(("postgres", "/usr/lib/postgresql")):
            if wanted_db is not None and backend_database(cmd) not in (None, wanted_db):
                continue
            found.append(Proc(pid, "postgres"))
        elif with_services and cmd.startswith(("redis-server", "/usr/bin/redis-server")):
            found.append(Proc(pid, "redis"))
    return found


def cpu_seconds(pid: int, with_children: bool = False) -> float:
    """User + system CPU seconds of one process (0 if it is gone); ``with_children`` adds what
    its children that have exited used (cutime + cstime: the kernel adds a child's time there
    when the parent reaps it)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    used = int(fields[11]) + int(fields[12])
    if with_children:
        used += int(fields[13]) + int(fields[14])
    return used / TICKS


def is_postmaster(proc: Proc) -> bool:
    """PostgreSQL's main process: its command line is the server binary's path, not a title."""
    return proc.name == "postgres" and _cmdline(proc.pid).startswith("/usr/lib/postgresql")


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
    """CPU used by the server processes (and by this client) between start() and stop().

    Processes come and go during a run — PostgreSQL starts a backend per connection and Django
    closes its connections after ``DJANGO_CONN_MAX_AGE`` — so with ``rescan`` the list is read
    again at stop() and a process that appeared meanwhile counts whole; a backend that exited
    meanwhile is counted through the postmaster's children time (``cpu_seconds(with_children)``;
    of any database, as the kernel does not say which)."""

    def __init__(self, procs: list[Proc], rescan: Callable[[], list[Proc]] | None = None) -> None:
        self.procs = procs
        self.rescan = rescan
        self._postmasters = {p.pid for p in procs if is_postmaster(p)}
        self.before: dict[int, float] = {}
        self.after: dict[int, float] = {}
        self.loop_before: dict[int, float] = {}
        self.loop_after: dict[int, float] = {}
        self.client_before = self.client_after = 0.0
        self.machine_before = self.machine_after = (0.0, 0.0)

    def _seconds(self, pid: int) -> float:
        return cpu_seconds(pid, with_children=pid in self._postmasters)

    def start(self) -> None:
        self.before = {p.pid: self._seconds(p.pid) for p in self.procs}
        self.loop_before = {p.pid: main_thread_seconds(p.pid) for p in self.procs if p.name == "daphne"}
        self.client_before = cpu_seconds(os.getpid())
        self.machine_before = machine_busy()

    def stop(self) -> None:
        if self.rescan is not None:
            known = {p.pid for p in self.procs}
            for p in self.rescan():
                if p.pid not in known:  # appeared during the run: all its time is the run's
                    self.procs.append(p)
                    self.before[p.pid] = 0.0
        self.after = {p.pid: self._seconds(p.pid) for p in self.procs}
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
