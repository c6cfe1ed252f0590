"""The scaled configuration without the services: settings from the environment, the Procfile,
structured logs, /healthz's checks.  Fast; runs everywhere (no `integration` mark)."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from mahjong_platform.logging import JsonFormatter, KeyValueFormatter, _scalar

ROOT = Path(__file__).resolve().parents[2]

SCALED_ENV = {
    "DATABASE_URL": "postgres://caishen:secret@127.0.0.1:5432/caishen",
    "REDIS_URL": "redis://127.0.0.1:6379/3",
    "CELERY_BROKER_URL": "amqp://guest:guest@127.0.0.1:5672//",
    "CAISHEN_TIMERS": "celery",
    "CAISHEN_SETTLEMENT": "celery",
    "CAISHEN_PROCESSES": "2",
    "CAISHEN_LOG_FORMAT": "json",
    "DJANGO_SECRET_KEY": "scaled-test-key",
    "DJANGO_ALLOWED_HOSTS": "mahjong.example,127.0.0.1",
}

PRINT_SETTINGS = """
import json, django
django.setup()
from django.conf import settings
from django.core import checks
layer = settings.CHANNEL_LAYERS["default"]
print(json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "layer": layer["BACKEND"], "layer_config": layer.get("CONFIG", {}),
    "cache": settings.CACHES["default"]["BACKEND"], "broker": settings.CELERY_BROKER_URL,
    "hosts": settings.ALLOWED_HOSTS, "formatter": settings.LOGGING["handlers"]["stdout"]["formatter"],
    "levels": {name: conf["level"] for name, conf in settings.LOGGING["loggers"].items()},
    "db_options": settings.DATABASES["default"].get("OPTIONS", {}),
    "local_timers_upto": settings.CAISHEN_LOCAL_TIMERS_UPTO,
    "errors": [e.id for e in checks.run_checks() if e.is_serious()],
}))
"""


def run_under(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CAISHEN_", "DJANGO_", "REDIS_", "CELERY_"))}
    clean.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-c", PRINT_SETTINGS],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "mahjong_platform.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def settings_under(env: dict[str, str]) -> dict[str, Any]:
    done = run_under(env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_scaled_mode_is_configured_by_the_environment_alone() -> None:
    got = settings_under(SCALED_ENV)
    assert got["engine"] == "django.db.backends.postgresql"
    # The layer that measured better (docs/performance.md, "The scaled mode"); the queue-per-socket
    # one is an option.
    assert got["layer"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert got["layer_config"]["hosts"] == ["redis://127.0.0.1:6379/3"]
    assert got["local_timers_upto"] == 2.0  # short deadlines fire in the web process
    assert got["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert got["broker"].startswith("amqp://")
    assert got["hosts"] == ["mahjong.example", "127.0.0.1"]
    assert got["formatter"] == "json"
    assert got["errors"] == []


def test_the_core_layer_is_an_option() -> None:
    got = settings_under({**SCALED_ENV, "CAISHEN_CHANNEL_LAYER": "core"})
    assert got["layer"] == "channels_redis.core.RedisChannelLayer"
    assert got["layer_config"]["capacity"] >= 500 and got["layer_config"]["expiry"] <= 30
    assert got["errors"] == []


def test_a_negative_local_timer_horizon_is_refused() -> None:
    # From the environment: start-up stops, naming the variable (core/config.py).
    done = run_under({**SCALED_ENV, "CAISHEN_LOCAL_TIMERS_UPTO": "-1"})
    assert done.returncode != 0
    assert "CAISHEN_LOCAL_TIMERS_UPTO must be at least 0" in done.stderr


def test_a_negative_local_timer_horizon_set_by_the_settings_fails_the_system_check(settings: Any) -> None:
    from django.core.checks import run_checks

    settings.CAISHEN_LOCAL_TIMERS_UPTO = -1
    assert "caishen.E005" in {e.id for e in run_checks()}


def test_embedded_mode_is_the_default() -> None:
    got = settings_under({})
    assert got["engine"] == "django.db.backends.sqlite3"
    assert got["layer"] == "games.runtime.layers.EmbeddedChannelLayer"  # Channels' in-memory layer, swept less often
    assert got["cache"] == "django.core.cache.backends.locmem.LocMemCache"
    assert got["formatter"] == "plain"
    assert got["errors"] == []


def test_the_system_check_refuses_inprocess_timers_on_several_processes() -> None:
    got = settings_under({**SCALED_ENV, "CAISHEN_TIMERS": "inprocess"})
    assert "caishen.E003" in got["errors"]


def test_procfile_starts_two_daphnes_on_two_ports_a_worker_and_beat() -> None:
    entries = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, command = line.partition(":")
            entries[name] = command
    assert set(entries) == {"web1", "web2", "worker", "beat"}
    assert "daphne" in entries["web1"] and "WEB1_PORT" in entries["web1"]
    assert "daphne" in entries["web2"] and "WEB2_PORT" in entries["web2"]
    assert "celery -A mahjong_platform worker" in entries["worker"]
    assert "celery -A mahjong_platform beat" in entries["beat"]


def test_the_celery_loggers_take_celery_log_level_and_otherwise_the_django_level() -> None:
    # The worker keeps this project's logging (it does not hijack the root logger), so the
    # Procfile's `-l $CELERY_LOG_LEVEL` works only through the settings.
    quiet = settings_under(SCALED_ENV | {"CELERY_LOG_LEVEL": "warning"})["levels"]
    assert quiet["celery"] == "WARNING" and quiet["django"] == "INFO"
    assert settings_under(SCALED_ENV | {"DJANGO_LOG_LEVEL": "debug"})["levels"]["celery"] == "DEBUG"


@pytest.mark.slow
def test_server_side_binding_and_prepared_statements_are_an_option_of_postgresql() -> None:
    assert "server_side_binding" not in settings_under(SCALED_ENV)["db_options"]
    on = settings_under(SCALED_ENV | {"DJANGO_DB_SERVER_SIDE_BINDING": "1"})["db_options"]
    assert on["server_side_binding"] is True and on["prepare_threshold"] == 5
    embedded = {k: v for k, v in SCALED_ENV.items() if k != "DATABASE_URL"}
    assert "server_side_binding" not in settings_under(embedded | {"DJANGO_DB_SERVER_SIDE_BINDING": "1"})["db_options"]


def record(**extra: Any) -> logging.LogRecord:
    rec = logging.LogRecord("caishen.table", logging.INFO, __file__, 1, "hand step", None, None)
    for key, value in extra.items():
        setattr(rec, key, value)
    return rec


def test_json_logs_carry_table_hand_seat_and_seq() -> None:
    line = json.loads(JsonFormatter(process_name="web2").format(record(table=7, hand=42, seat=2, seq=18, events=3)))
    assert line["message"] == "hand step" and line["level"] == "INFO" and line["process"] == "web2"
    assert (line["table"], line["hand"], line["seat"], line["seq"], line["events"]) == (7, 42, 2, 18, 3)


def test_plain_logs_append_the_fields_as_key_value_pairs() -> None:
    text = KeyValueFormatter().format(record(seq=18, table=7, hand=42))
    assert text.endswith("caishen.table: hand step table=7 hand=42 seq=18")
    assert KeyValueFormatter().format(record()).endswith("hand step")


def test_plain_lines_are_logging_s_own_time_and_json_values_whatever_the_value_and_the_moment() -> None:
    """The plain formatter's quick ways (the time's seconds formatted once a second, ints as they
    are) write what logging's own Formatter and json.dumps write."""
    plain = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    values = [0, -7, 2**70, True, None, 1.5, float("inf"), '中文 "q" \\ \n', "", ["a", 1], {"k": 2}]
    formatter = KeyValueFormatter()
    for moment in (1_765_000_000.0, 1_765_000_000.999, 1_765_000_001.0005, 1_765_000_000.5):
        for value in values:
            entry = record(table=7, extra_field=value)
            entry.created, entry.msecs = moment, (moment - int(moment)) * 1000
            expected = f"{plain.format(entry)} table=7 extra_field={json.dumps(_scalar(value), ensure_ascii=False)}"
            assert formatter.format(entry) == expected


def test_plain_lines_put_game_fields_first_an_unset_one_in_its_place_and_a_traceback_below() -> None:
    formatter = KeyValueFormatter()
    for _ in range(2):  # the second record of the same shape takes the remembered names
        assert formatter.format(record(do="discard", seq=4, seat=None, table=7)).endswith(
            'hand step table=7 seq=4 do="discard" seat=null'
        )
    try:
        raise ValueError("boom")
    except ValueError:
        failed = logging.LogRecord("caishen.table", logging.ERROR, __file__, 1, "step failed", None, sys.exc_info())
    failed.table = 7
    head, _, rest = formatter.format(failed).partition("\n")
    assert head.endswith("ERROR caishen.table: step failed table=7")
    assert rest.startswith("Traceback") and rest.endswith("ValueError: boom")


def test_a_service_logs_its_game_fields(caplog: pytest.LogCaptureFixture) -> None:
    logging.getLogger("caishen.table").info("hand step", extra={"table": 1, "hand": 2, "seq": 3})
    assert "table=1 hand=2 seq=3" in KeyValueFormatter().format(caplog.records[-1])


@pytest.mark.django_db
def test_healthz_checks_redis_the_layer_and_the_sweeper_when_scaled(client: Any, settings: Any) -> None:
    from games import services

    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    settings.CAISHEN_TIMERS = "celery"
    settings.CAISHEN_SWEEP_STALE_SECONDS = 10
    services.record_sweep()
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert (body["database"], body["redis"], body["sweeper"], body["status"]) == ("ok", "error", "ok", "error")
    assert body["channel_layer"] == "ok"  # the in-memory layer of the test settings answers


@pytest.mark.django_db
def test_healthz_reports_a_stale_sweeper(client: Any, settings: Any) -> None:
    from django.core.cache import cache

    settings.CAISHEN_TIMERS = "celery"
    settings.CAISHEN_SWEEP_STALE_SECONDS = 10
    ran = timezone.now() - timedelta(seconds=60)
    cache.set("caishen:last_sweep", ran.isoformat(), timeout=None)
    body = client.get("/healthz").json()
    # The age as of the request: 60 s, and a second or so more where the machine is busy.
    reported = re.fullmatch(r"the sweeper last ran (\d+) s ago", body["details"]["sweeper"])
    assert body["sweeper"] == "error" and reported
    assert 60 <= int(reported[1]) <= round((timezone.now() - ran).total_seconds())
    cache.delete("caishen:last_sweep")
    body = client.get("/healthz").json()
    assert body["sweeper"] == "error" and "has not run" in body["details"]["sweeper"]
