"""A real daphne process for tests: a free port, its start, and its stop (killed if it hangs).

Shared by the browser tests (tests/e2e/browser.py) and the platform tests that need a real
server (the socket send bound, timers after a restart).
"""

from __future__ import annotations

import fcntl
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def isolated_env(db: Path, var: Path, **settings: str) -> dict[str, str]:
    """The environment of a server (and its manage.py commands) on its own SQLite file ``db``:
    this process's environment without any project setting (CAISHEN_*, DJANGO_*, DATABASE_*,
    REDIS_*), then the few a test server needs, then ``settings``."""
    inherited = {
        k: v for k, v in os.environ.items() if not k.startswith(("CAISHEN_", "DJANGO_", "DATABASE_", "REDIS_"))
    }
    return {
        **inherited,
        "DATABASE_URL": f"sqlite:///{db}",
        "DJANGO_SETTINGS_MODULE": "mahjong_platform.settings",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(40),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_LOG_LEVEL": "WARNING",
        "CAISHEN_VAR_DIR": str(var),
        **settings,
    }


def run_folder(base: Path) -> Path:
    """A folder that every xdist worker of this run shares, given this worker's ``getbasetemp()``
    (a worker's own temporary folders sit in the run's; without xdist it is the run's)."""
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(folder: Path, name: str, make: Callable[[Path], None]) -> Path:
    """``folder / name``, made by ``make(path)`` for the first worker of the run that asks for it;
    the others wait on a lock and reuse it (a migrated database, the collected static files)."""
    target = folder / name
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not target.exists():
                partial = folder / f"{name}.partial"
                make(partial)
                partial.rename(target)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return target


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"daphne exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as res:
                if res.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"daphne did not answer {url} within {timeout} s:\n{log.read_text()[-3000:]}")


@contextmanager
def running_daphne(env: dict[str, str], port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """daphne serving the project on 127.0.0.1:``port`` with ``env``, its output in ``log``.
    Nothing waits for it to answer (a test may need it to see no request): callers do.  It is
    terminated on the way out, and killed if it does not stop within 10 s."""
    daphne = Path(sys.executable).with_name("daphne")
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(daphne), "-b", "127.0.0.1", "-p", str(port), "mahjong_platform.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
