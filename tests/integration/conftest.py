"""The scaled topology, for real: PostgreSQL, Redis, a Celery worker and beat, two daphne processes.

Every run keeps to itself: the fixtures make a fresh PostgreSQL database, start a ``redis-server``
of their own on a free port (stopped at the end) and, where RabbitMQ is the broker, make a virtual
host of their own (deleted at the end), so two runs on one machine never see each other's data,
frames or tasks (test_isolation.py).  They migrate, then start the ``Procfile``'s processes as
subprocesses (each in its own process group, stopped at the end) with the scaled environment:
``CAISHEN_TIMERS=celery``, ``CAISHEN_SETTLEMENT=celery``, the Redis channel layer and broker.
They wait on ``/healthz`` of both daphne processes, which is only green once the sweeper has run
(beat and the worker are up).

``topology`` is shared by the session (its Redis is the broker too).  ``private_topology`` is a
module's own (a fresh database, the module's ``redis-server``, a RabbitMQ virtual host as the
broker) for tests that kill processes or restart Redis (test_faults_processes.py);
``running_topology`` builds either.

A service that does not answer fails these tests, saying how to start it (scripts/services.sh,
which ``.ci/run`` runs first); they are skipped only when the runner asks for it with
``CAISHEN_SKIP_SERVICES=1``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PG_ADMIN_URL = os.environ.get("CAISHEN_IT_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
START_TIMEOUT = 60.0
REDIS_SERVER = os.environ.get("CAISHEN_IT_REDIS_SERVER", "/usr/bin/redis-server")
# The broker's server; each topology on it gets a virtual host of its own (``private_vhost``).
AMQP_URL = os.environ.get("CAISHEN_IT_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672//")
RABBITMQCTL = os.environ.get("CAISHEN_IT_RABBITMQCTL", "") or shutil.which("rabbitmqctl") or "/usr/sbin/rabbitmqctl"


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


# Set to 1 by a runner that means to skip the integration tests (README.md, "Test it").
SKIP_SERVICES = "CAISHEN_SKIP_SERVICES"


def _unavailable(what: str) -> None:
    """Fail, saying how to start the service; skip only when the runner asked for it: a run
    without the services must not pass for one that tested against them."""
    message = f"{what} does not answer on 127.0.0.1 (scripts/services.sh starts it)"
    if os.environ.get(SKIP_SERVICES, "") == "1":
        pytest.skip(f"{SKIP_SERVICES}=1: {message}")
    pytest.fail(f"{message}; or set {SKIP_SERVICES}=1 to skip the integration tests", pytrace=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def services_up() -> None:
    """PostgreSQL answers, and Redis's server can be started here (each run starts its own;
    the machine's Redis on 6379 is never used)."""
    if not _answers(5432):
        _unavailable("PostgreSQL")
    if not Path(REDIS_SERVER).exists():
        _unavailable(f"redis-server ({REDIS_SERVER}: apt-get install redis-server)")


@pytest.fixture(scope="session")
def rabbitmq_up() -> str:
    """RabbitMQ, the other broker the scaled mode supports (CELERY_BROKER_URL=amqp://...), and
    ``rabbitmqctl`` to make the run's virtual hosts with.  Yields the server's URL (its default
    virtual host: for connection checks only; a topology's broker is ``private_vhost``'s)."""
    if not _answers(5672):
        _unavailable("RabbitMQ")
    if not Path(RABBITMQCTL).exists():
        _unavailable(f"rabbitmqctl ({RABBITMQCTL})")
    return AMQP_URL


def rabbitmqctl(*args: str) -> None:
    done = subprocess.run([RABBITMQCTL, "-q", *args], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise AssertionError(f"rabbitmqctl {' '.join(args)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


@contextlib.contextmanager
def private_vhost(server_url: str) -> Iterator[str]:
    """A new RabbitMQ virtual host on ``server_url``'s server, open to its user; yields the
    broker URL for it and deletes it (with its queues) afterwards.  Two runs' Celery workers on
    one virtual host would take each other's tasks from the default queue."""
    parts = urllib.parse.urlsplit(server_url)
    name = f"caishen_it_{uuid.uuid4().hex[:10]}"
    rabbitmqctl("add_vhost", name)
    try:
        rabbitmqctl("set_permissions", "-p", name, parts.username or "guest", ".*", ".*", ".*")
        yield urllib.parse.urlunsplit(parts._replace(path="/" + name))
    finally:
        rabbitmqctl("delete_vhost", name)


@contextlib.contextmanager
def fresh_database() -> Iterator[str]:
    """A new, empty PostgreSQL database (its URL); dropped afterwards."""
    import psycopg

    name = f"caishen_it_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def pg_database(services_up: None) -> Iterator[str]:
    """A fresh PostgreSQL database for this run; dropped afterwards."""
    with fresh_database() as url:
        yield url


@pytest.fixture
def own_pg_database(services_up: None) -> Iterator[str]:
    """A fresh PostgreSQL database for this test alone: the stress tests count every row and
    balance, which the session's topology (its sweeper settling finished hands) must not touch."""
    with fresh_database() as url:
        yield url


@pytest.fixture(scope="session")
def redis_url(services_up: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The session topology's Redis: a ``redis-server`` of this run's own, on a free port (its
    pub/sub, which the channel layer uses, has no databases to keep runs apart)."""
    with running_redis(tmp_path_factory.mktemp("redis") / "redis.log") as server:
        yield server.url


def procfile() -> dict[str, str]:
    entries = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, command = line.partition(":")
            entries[name.strip()] = command.strip()
    return entries


@dataclass
class Process:
    name: str
    command: str
    env: dict[str, str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        handle = self.log.open("ab")
        self.proc = subprocess.Popen(
            ["bash", "-c", self.command],
            cwd=ROOT,
            env=self.env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() reaches Celery's children too
        )
        handle.close()

    def signal(self, sig: int) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)

    def stop(self, timeout: float = 15.0) -> None:
        if self.proc is None:
            return
        self.signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.proc.wait(5)
        # Celery's pool children share the group; make sure none outlives the test.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc = None

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@dataclass
class Topology:
    env: dict[str, str]
    ports: dict[str, int]
    processes: dict[str, Process] = field(default_factory=dict)

    def url(self, web: str, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.ports[web]}{path}"

    def ws_url(self, web: str, path: str) -> str:
        return f"ws://127.0.0.1:{self.ports[web]}{path}"

    def healthz(self, web: str) -> tuple[int, dict[str, Any]]:
        try:
            with urllib.request.urlopen(self.url(web, "/healthz"), timeout=5) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")
        except (OSError, ValueError):
            return 0, {}

    def wait_healthy(self, webs: tuple[str, ...] = ("web1", "web2"), timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        last: dict[str, Any] = {}
        while time.monotonic() < deadline:
            results = {web: self.healthz(web) for web in webs}
            if all(status == 200 for status, _ in results.values()):
                return
            last = {web: body for web, (_, body) in results.items()}
            for p in self.processes.values():
                if p.proc is not None and p.proc.poll() is not None:
                    pytest.fail(f"{p.name} exited ({p.proc.returncode}):\n{p.tail()}", pytrace=False)
            time.sleep(0.2)
        logs = "\n".join(f"--- {p.name}\n{p.tail()}" for p in self.processes.values())
        pytest.fail(f"not healthy within {timeout} s: {last}\n{logs}", pytrace=False)

    def manage(self, code: str, timeout: float = 60) -> Any:
        """Run Python inside Django with the topology's settings; returns what it prints as JSON."""
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", code],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise AssertionError(f"manage.py shell failed:\n{done.stdout}\n{done.stderr}")
        lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        return json.loads(lines[-1][len("RESULT ") :]) if lines else None


def scaled_env(
    database_url: str, redis_url: str, var: Path, ports: dict[str, int], broker_url: str = ""
) -> dict[str, str]:
    """The scaled environment of the Procfile's processes (docs/operations.md, "Scaled mode")."""
    env = {
        **os.environ,
        "PYTHON": sys.executable,
        "DJANGO_SETTINGS_MODULE": "mahjong_platform.settings",
        "DJANGO_SECRET_KEY": "integration-" + uuid.uuid4().hex,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": broker_url or redis_url,
        "CAISHEN_TIMERS": "celery",
        "CAISHEN_SETTLEMENT": "celery",
        "CAISHEN_PROCESSES": "2",
        "CAISHEN_VAR_DIR": str(var),
        "CAISHEN_LOG_FORMAT": "json",
        "CAISHEN_BOT_DELAY": "0.05",
        "CAISHEN_DISCARD_PAUSE": "0.05",
        # Quick claim windows: the uniform one (claim_seconds per discard) is tested in
        # tests/platform/test_claim_protection.py; here hands run at ~20x a human pace.
        "CAISHEN_CLAIM_PROTECTION": "pause",
        "CAISHEN_BETWEEN_HANDS_SECONDS": "0.3",
        "CAISHEN_SWEEP_SECONDS": "1",
        # As the browser tests' server: the suite's own load slows the steps of this server's tables
        # without being players' (overload has its own tests); the queue sign stays on.
        "CAISHEN_OVERLOAD_STEP_MS": "0",
        "CAISHEN_OVERLOAD_BUSY": "0",
        # The hands here run at ~20× a human pace (the delays above): a client answers a claim
        # window or a turn every few tens of milliseconds, past the human-pace socket limit
        # (20 messages/s), which would answer "slow down" and drop the command.
        "CAISHEN_SOCKET_RATE": "400",
        "CAISHEN_STARTING_GRANT": "1000",
        "CELERY_CONCURRENCY": "2",
        "WEB1_PORT": str(ports["web1"]),
        "WEB2_PORT": str(ports["web2"]),
        "HOST": "127.0.0.1",
    }
    env.pop("PYTEST_CURRENT_TEST", None)
    return env


@contextlib.contextmanager
def running_topology(
    database_url: str, redis_url: str, var: Path, broker_url: str = "", **extra_env: str
) -> Iterator[Topology]:
    """Migrate ``database_url`` and run the Procfile's processes on it until the block ends.

    The broker is ``broker_url``, else Redis (``redis_url``) as in the docs' default.
    """
    ports = {"web1": free_port(), "web2": free_port()}
    env = {**scaled_env(database_url, redis_url, var, ports, broker_url), **extra_env}
    topo = Topology(env=env, ports=ports)
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, capture_output=True
    )
    assert migrate.returncode == 0, migrate.stderr.decode()
    for name, command in procfile().items():
        topo.processes[name] = Process(name, command, env, var / f"{name}.log")
    try:
        for p in topo.processes.values():
            p.start()
        topo.wait_healthy()
        yield topo
    finally:
        for p in topo.processes.values():
            p.stop()


@pytest.fixture(scope="session")
def topology(pg_database: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Topology]:
    with running_topology(pg_database, redis_url, tmp_path_factory.mktemp("scaled")) as topo:
        yield topo


@dataclass
class RedisServer:
    """A private ``redis-server`` (no persistence) that a test may stop and start again.

    Never the shared Redis on 6379: other work on the machine uses it.
    """

    port: int
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        handle = self.log.open("ab")
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        handle.close()
        deadline = time.monotonic() + timeout
        while not _answers(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"redis-server on {self.port} did not start:\n{self.log.read_text()}")
            time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM (redis saves nothing: ``--save ''``) and wait until the port is closed."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None


@contextlib.contextmanager
def running_redis(log: Path) -> Iterator[RedisServer]:
    """A private ``redis-server`` on a free port until the block ends."""
    server = RedisServer(free_port(), log)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def private_redis(services_up: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A Redis of this test module's own, on a free port, stopped at the module's end."""
    with running_redis(tmp_path_factory.mktemp("redis") / "redis.log") as server:
        yield server


@pytest.fixture
def spare_redis(services_up: None, tmp_path: Path) -> Iterator[RedisServer]:
    """One more private Redis, for one test."""
    with running_redis(tmp_path / "spare-redis.log") as server:
        yield server


@pytest.fixture(scope="module")
def private_topology(
    private_redis: RedisServer, rabbitmq_up: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Topology]:
    """The Procfile topology on a fresh PostgreSQL database and the module's private Redis.

    Module-scoped and isolated from ``topology`` (another database, another Redis): its tests
    may kill processes and restart Redis without touching the session's topology.  Redis carries
    the channel layer and the cache; the Celery broker is RabbitMQ, the other broker the scaled
    mode supports (on a virtual host of its own), so that a Redis restart is a channel-layer and
    cache fault only.
    """
    var = tmp_path_factory.mktemp("private")
    with (
        fresh_database() as database_url,
        private_vhost(rabbitmq_up) as broker_url,
        running_topology(database_url, private_redis.url, var, broker_url=broker_url) as topo,
    ):
        yield topo
