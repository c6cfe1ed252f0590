"""Every ``CAISHEN_*`` environment variable, read once into one frozen, typed object.

``CaishenConfig`` has one field per variable (``bot_delay`` is ``CAISHEN_BOT_DELAY``) with its
default, its type (bool, int, float, str; the collector's thresholds a triple of integers), its
bounds or allowed values and a one-line meaning.  ``CaishenConfig.from_environment(os.environ)``
is the only reader of those variables: settings.py calls it once (``CAISHEN``) and builds the
Django settings that derive from it (the channel layer, the cache, the logging).  A malformed or
out-of-range value stops start-up with an ``ImproperlyConfigured`` that names each bad variable.

How the rest of the code reads a value:

* what is read while the server runs (a bot's delay, a rate limit, the timers' backend) is a
  flat Django setting of the same name, ``settings.CAISHEN_BOT_DELAY``: settings.py sets each of
  those fields (``runtime=True`` below) from ``CAISHEN`` and nothing else, and call sites read
  the setting with no default of their own.  Tests keep overriding one value with
  pytest-django's ``settings`` fixture (``settings.CAISHEN_BOT_DELAY = 0``), which is why these
  stay flat names rather than attributes of the object: one override, one name, as before;
* what is read once at start-up (the overload thresholds, the collector, the switch interval,
  the log line's process name) is read from the object itself, ``settings.CAISHEN``.

games/checks.py validates the flat settings against the same rules (``problems``), so a value set
by a test or another settings module is held to them too; tests/platform/test_config.py checks
that docs/operations.md's tables list exactly these fields with these defaults.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, get_type_hints

from django.core.exceptions import ImproperlyConfigured

PREFIX = "CAISHEN_"
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})

GcThreshold = tuple[int, int, int] | None


@dataclass(frozen=True)
class Spec:
    """How one variable is read and what it means (a field's metadata)."""

    meaning: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    clamp: bool = False  # out of bounds: the nearest bound (instead of an error)
    runtime: bool = False  # also a flat Django setting, read at each use (overridable in tests)
    shown: str | None = None  # the default as docs/operations.md shows it, when not the value itself


def _spec(default: Any, meaning: str, **how: Any) -> Any:
    return field(default=default, metadata={"caishen": Spec(meaning, **how)})


def _parse_gc_threshold(raw: str) -> GcThreshold:
    """Three integers, the first above 0 (``gc.set_threshold``), or ``default``: CPython's own."""
    if raw.lower() == "default":
        return None
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"must be three non-negative integers or 'default', not {raw!r}")
    first, second, third = (int(p) for p in parts)
    if first == 0:
        # gc.set_threshold(0, ...) disables collection altogether: cyclic garbage would pile up.
        raise ValueError(f"must have a first threshold above 0 (0 disables the collector), not {raw!r}")
    return first, second, third


@dataclass(frozen=True)
class CaishenConfig:
    """The ``CAISHEN_*`` settings (docs/operations.md, "Environment variables")."""

    # --- Processes ------------------------------------------------------------------------------
    var_dir: str = _spec("", "where the default SQLite file and the generated secret key live", shown="<repo>/var")
    switch_interval: float = _spec(
        0.0005, "daphne's GIL switch interval in seconds (sys.setswitchinterval)", minimum=1e-6
    )
    gc_freeze: bool = _spec(True, "freeze the start-up heap (gc.freeze) in daphne, the worker and the load client")
    gc_threshold: GcThreshold = _spec(
        (20_000, 50, 10), "the garbage collector's thresholds in those processes; 'default' keeps CPython's"
    )
    db_trace: str = _spec(
        "", "write each database-thread call's queue wait and run time to this file (profiling; empty: off)"
    )
    test_hold_step: str = _spec(
        "", "tests only: a folder through which a fault test holds a table step with its transaction open (empty: off)"
    )
    gc_log_ms: float = _spec(
        0.0, "log each collection that pauses the process this many ms or longer (0: none)", minimum=0
    )
    http_threads: int = _spec(
        4, "threads that run Django's HTTP views in daphne, each with its own database connection", minimum=1
    )
    log_format: str = _spec(
        "plain", "log lines as key=value pairs (plain) or one JSON object (json)", choices=("plain", "json")
    )
    process_name: str = _spec("", "the process's name on every log line (web1, worker, ...)", shown="the pid")

    # --- Topology -------------------------------------------------------------------------------
    timers: str = _spec(
        "inprocess", "timers in the daphne process or as Celery tasks", choices=("inprocess", "celery"), runtime=True
    )
    local_timers_upto: float = _spec(
        2.0, "with Celery timers, deadlines this many seconds ahead fire in the web process", minimum=0, runtime=True
    )
    settlement: str = _spec(
        "inline", "settle a hand in its transaction or as a Celery task", choices=("inline", "celery"), runtime=True
    )
    processes: int = _spec(1, "how many server processes serve the tables", minimum=1, runtime=True)
    channel_layer: str = _spec("pubsub", "the scaled mode's channels-redis layer", choices=("pubsub", "core"))
    channel_capacity: int = _spec(1000, "frames a socket's channel holds before dropping (core layer)", minimum=1)
    channel_expiry: int = _spec(10, "seconds an undelivered frame is kept (core layer)", minimum=1)
    group_expiry: int = _spec(
        86400, "seconds a socket stays in its table group without renewing (core layer)", minimum=60
    )
    cache_prefix: str = _spec("caishen", "key prefix of the Redis cache")
    sweep_seconds: float = _spec(
        2.0, "how often the sweeper wakes overdue deadlines (0: never)", minimum=0, runtime=True
    )
    sweep_stale_seconds: float = _spec(
        10.0,
        "/healthz reports the sweeper as failed when its last run is older",
        minimum=0,
        runtime=True,
        shown="max(10, 5 × CAISHEN_SWEEP_SECONDS)",
    )

    # --- Live tables ----------------------------------------------------------------------------
    bot_delay: float = _spec(0.8, "seconds a bot waits on its own turn", minimum=0, runtime=True)
    claim_protection: str = _spec(
        "uniform", "claim windows of uniform length, or the quicker pause", choices=("uniform", "pause"), runtime=True
    )
    discard_pause: float = _spec(0.6, "the pause after a discard in a window nobody answers", minimum=0, runtime=True)
    between_hands_seconds: float = _spec(6.0, "the finished hand stays on screen this long", minimum=0, runtime=True)
    snapshot_every: int = _spec(
        16, "a running hand's full engine snapshot is written every this many steps", minimum=1, runtime=True
    )
    ready_seconds: int = _spec(30, "the fourth seat's countdown to ready up", minimum=1, runtime=True)
    quick_play_wait_seconds: int = _spec(
        30, "a quick-play table waits this long for people, then bots take the empty chairs", minimum=1, runtime=True
    )
    spectator_delay: float = _spec(
        3.0, "seconds watchers of a public table are kept behind the play", minimum=0, runtime=True
    )
    watcher_sync_seconds: float = _spec(
        1.0, "a watcher socket renders at most one snapshot per this many seconds", minimum=0, runtime=True
    )

    # --- Sockets and abuse limits ---------------------------------------------------------------
    socket_rate: float = _spec(
        20.0, "socket messages per second per connection (bursts twice that)", minimum=0, runtime=True
    )
    socket_idle_seconds: float = _spec(
        45.0, "a silent table socket is closed after this long (0: never)", minimum=0, runtime=True
    )
    socket_send_buffer: int = _spec(
        1024 * 1024, "bytes a WebSocket may queue unsent before it is dropped (0: no bound)", minimum=0, runtime=True
    )
    socket_stall_bytes: int = _spec(
        64 * 1024, "unsent bytes (daphne's and the kernel's) a stalled WebSocket holds", minimum=1, runtime=True
    )
    socket_stall_seconds: float = _spec(
        20.0, "a WebSocket above the stall bytes this long is closed (0: never)", minimum=0, runtime=True
    )
    sockets_per_user: int = _spec(8, "open table sockets per signed-in user (0: no cap)", minimum=0, runtime=True)
    sockets_per_address: int = _spec(64, "open table sockets per client address (0: no cap)", minimum=0, runtime=True)
    login_attempts: int = _spec(
        10, "failed sign-ins per window on one account from one client", minimum=1, runtime=True
    )
    login_address_attempts: int = _spec(50, "failed sign-ins per window from one address", minimum=1, runtime=True)
    login_max_delay: int = _spec(
        60, "the longest wait after a failed sign-in from an address past its threshold", minimum=1, runtime=True
    )
    login_window: int = _spec(300, "seconds of the sign-in counters' window", minimum=1, runtime=True)
    mail_attempts: int = _spec(
        5, "mails asked for per window to one email address, or by one account", minimum=1, runtime=True
    )
    mail_address_attempts: int = _spec(20, "mails asked for per window from one address", minimum=1, runtime=True)
    mail_window: int = _spec(3600, "seconds of the mail counters' window", minimum=1, runtime=True)
    room_code_attempts: int = _spec(10, "wrong room codes per five minutes from one session", minimum=1, runtime=True)
    room_code_address_attempts: int = _spec(
        50, "wrong room codes per five minutes from one address", minimum=1, runtime=True
    )
    client_ip_header: str = _spec("", "the header a proxy in front writes with the client's address", runtime=True)
    trusted_proxies: str = _spec(
        "", "whose header is believed: addresses, networks, or a count of proxies", runtime=True
    )
    staff_require_2fa: bool = _spec(False, "every staff member must enrol an authenticator app", runtime=True)

    # --- Wallets --------------------------------------------------------------------------------
    starting_grant: int = _spec(1000, "units every new account receives", minimum=0, runtime=True)
    sit_multiple: int = _spec(
        20, "a player must have this many times the stake available to sit", minimum=0, runtime=True
    )
    house_float: int = _spec(
        1_000_000, "the system wallet's opening float (bots play for the house)", minimum=0, runtime=True
    )

    # --- Overload (games/services/overload.py) -----------------------------------------------------------
    # Clamped rather than refused, as the monitor always did: an out-of-range value is the bound.
    heavy_reads_per_s: float = _spec(
        1.0,
        "a client address's heavy reads per second, bursts of 20 times that, 4 times both with a session "
        "(mahjong_platform/heavy_read_gate.py; 0: not limited)",
        minimum=0,
    )
    heavy_read_hold_seconds: float = _spec(
        2.0,
        "a request over its client's heavy-read bucket waits up to this long for its 429, so a client that "
        "waits for its answers is paced to what its bucket allows (mahjong_platform/heavy_read_gate.py; 0: at once)",
        minimum=0,
        maximum=30,
        clamp=True,
    )
    anonymous_heavy_at_once: int = _spec(
        1,
        "heavy reads without a session or token served at once per process, the rest waiting their turn "
        "(mahjong_platform/heavy_read_gate.py; 0: no limit)",
        minimum=0,
    )
    overload_step_ms: float = _spec(
        20.0,
        "mean latency (ms) of the running tables' steps over the window that counts as saturated (0: ignored)",
        minimum=0,
        clamp=True,
    )
    overload_queue: float = _spec(
        100.0,
        "table steps waiting for the database thread + unsent outbox batches that count as saturated (0: ignored)",
        minimum=0,
        clamp=True,
    )
    overload_busy: float = _spec(
        0.5,
        "share of the time the database thread spends running calls (the tables' steps, their readers' "
        "snapshots) that counts as saturated, smoothed over the window (0: ignored)",
        minimum=0,
        maximum=1,
        clamp=True,
    )
    overload_window: float = _spec(2.0, "seconds: the table steps a reading looks back over", minimum=0.1, clamp=True)
    overload_onset_ms: float = _spec(
        500.0,
        "how long (ms) the signs must read saturated before new tables and matches are refused",
        minimum=0,
        clamp=True,
    )
    overload_probe_ms: float = _spec(100.0, "how often the loop probe reads the signs (ms)", minimum=10, clamp=True)
    overload_retry_after: float = _spec(10.0, "seconds, the Retry-After of a refusal", minimum=1, clamp=True)

    @classmethod
    def from_environment(cls, env: Mapping[str, str]) -> CaishenConfig:
        """The settings from ``env`` (``os.environ``): an unset or blank variable is its default.
        Every bad variable is named in one ``ImproperlyConfigured``."""
        values: dict[str, Any] = {}
        errors: list[str] = []
        for item in settings_fields():
            raw = env.get(variable(item), "").strip()
            if not raw:
                continue
            try:
                values[item.name] = _parse(item, raw)
            except ValueError as exc:
                errors.append(f"{variable(item)} {exc}")
        if "sweep_stale_seconds" not in values:
            values["sweep_stale_seconds"] = max(10.0, 5 * values.get("sweep_seconds", cls.sweep_seconds))
        config = cls(**values)
        errors += [f"{name} {problem}" for name, problem in problems(config)]
        if errors:
            raise ImproperlyConfigured("Bad environment settings: " + "; ".join(errors))
        return config


def settings_fields() -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(CaishenConfig)


def spec(item: dataclasses.Field[Any]) -> Spec:
    found: Spec = item.metadata["caishen"]
    return found


def variable(item: dataclasses.Field[Any]) -> str:
    """The environment variable (and, for runtime fields, the Django setting) of a field."""
    return PREFIX + item.name.upper()


def runtime_fields() -> tuple[dataclasses.Field[Any], ...]:
    return tuple(item for item in settings_fields() if spec(item).runtime)


_TYPES: dict[str, Any] = {}


def field_type(item: dataclasses.Field[Any]) -> Any:
    """The field's annotation as a type (``bool``, ``int``, ``float``, ``str`` or ``GcThreshold``)."""
    if not _TYPES:
        _TYPES.update(get_type_hints(CaishenConfig))  # the annotations are strings (__future__)
    return _TYPES[item.name]


def parse_bool(raw: str) -> bool:
    word = raw.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"must be 1 or 0 (true/false, yes/no, on/off), not {raw!r}")


def _parse_number(kind: Callable[[str], Any], noun: str) -> Callable[[str], Any]:
    def parse(raw: str) -> Any:
        try:
            number = kind(raw)
        except ValueError:
            raise ValueError(f"must be {noun}, not {raw!r}") from None
        if isinstance(number, float) and not math.isfinite(number):
            raise ValueError(f"must be a finite number, not {raw!r}")
        return number

    return parse


_PARSERS: dict[Any, Callable[[str], Any]] = {
    bool: parse_bool,
    int: _parse_number(int, "an integer"),
    float: _parse_number(float, "a number"),
    str: str,
    GcThreshold: _parse_gc_threshold,
}


def _parse(item: dataclasses.Field[Any], raw: str) -> Any:
    value = _PARSERS[field_type(item)](raw)
    how = spec(item)
    if how.choices:
        value = value.lower()
    if how.clamp:
        if how.minimum is not None:
            value = max(type(value)(how.minimum), value)
        if how.maximum is not None:
            value = min(type(value)(how.maximum), value)
    return value


def problem(item: dataclasses.Field[Any], value: Any) -> str | None:
    """What is wrong with ``value`` for this field (its type, bounds, choices), or ``None``."""
    kind = field_type(item)
    how = spec(item)
    if kind is float:
        ok_type = isinstance(value, int | float) and not isinstance(value, bool)
    elif kind is int:
        ok_type = isinstance(value, int) and not isinstance(value, bool)
    elif kind is GcThreshold:
        ok_type = value is None or (isinstance(value, tuple) and len(value) == 3)
    else:
        ok_type = isinstance(value, kind)
    if not ok_type:
        return f"must be {getattr(kind, '__name__', kind)}, not {value!r}"
    if how.choices and value not in how.choices:
        return "must be " + " or ".join(repr(c) for c in how.choices) + f", not {value!r}"
    if how.minimum is not None and value < how.minimum:
        return f"must be at least {how.minimum:g}, not {value!r}"
    if how.maximum is not None and value > how.maximum:
        return f"must be at most {how.maximum:g}, not {value!r}"
    return None


def problems(config: CaishenConfig) -> list[tuple[str, str]]:
    """Each field of ``config`` that breaks its rules: (variable, what is wrong)."""
    found = []
    for item in settings_fields():
        wrong = problem(item, getattr(config, item.name))
        if wrong is not None:
            found.append((variable(item), wrong))
    return found


def shown_default(item: dataclasses.Field[Any]) -> str:
    """The default as docs/operations.md's tables show it."""
    how = spec(item)
    if how.shown is not None:
        return how.shown
    value = item.default
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, tuple):
        return ",".join(str(part) for part in value)
    if value == "":
        return "empty"
    return str(value)
