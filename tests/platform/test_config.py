"""core.config: every CAISHEN_* variable read once, into one frozen object.

What it reads and refuses, that the flat settings are exactly its run-time fields, that the
system check holds overridden settings to the same rules, that no other module reads the
variables, and that docs/operations.md's tables list exactly its fields with its defaults.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.checks import run_checks
from django.core.exceptions import ImproperlyConfigured

from core.config import CaishenConfig, runtime_fields, settings_fields, shown_default, spec, variable

ROOT = Path(__file__).resolve().parents[2]

# Variables of the shell scripts alone (no Python reads them): the docs list them too.
SCRIPT_ONLY = {"CAISHEN_DEMO_USER": "scripts/run.sh"}


def test_no_environment_gives_the_defaults() -> None:
    config = CaishenConfig.from_environment({})
    assert config == CaishenConfig()
    # The values the running product always used (settings.py's), where modules had drifted.
    assert config.local_timers_upto == 2.0
    assert config.sweep_stale_seconds == 10.0  # max(10, 5 x the 2 s sweep)
    assert config.gc_threshold == (20_000, 50, 10) and config.gc_freeze


def test_the_environment_is_parsed_by_each_fields_type() -> None:
    config = CaishenConfig.from_environment(
        {
            "CAISHEN_BOT_DELAY": " 0.25 ",
            "CAISHEN_READY_SECONDS": "8",
            "CAISHEN_STAFF_REQUIRE_2FA": "yes",
            "CAISHEN_GC_FREEZE": "0",
            "CAISHEN_TIMERS": "Celery",
            "CAISHEN_GC_THRESHOLD": "5000, 20, 5",
            "CAISHEN_SWEEP_SECONDS": "4",
            "CAISHEN_CLIENT_IP_HEADER": "X-Forwarded-For",
            "CAISHEN_SETTLEMENT": "",  # blank: the default
            "OTHER": "ignored",
        }
    )
    assert (config.bot_delay, config.ready_seconds) == (0.25, 8)
    assert config.staff_require_2fa is True and config.gc_freeze is False
    assert config.timers == "celery" and config.settlement == "inline"
    assert config.gc_threshold == (5000, 20, 5)
    assert config.sweep_stale_seconds == 20.0  # derived from the sweep when not set itself
    assert config.client_ip_header == "X-Forwarded-For"
    assert CaishenConfig.from_environment({"CAISHEN_GC_THRESHOLD": "default"}).gc_threshold is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.bot_delay = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"CAISHEN_BOT_DELAY": "slow"}, "CAISHEN_BOT_DELAY must be a number, not 'slow'"),
        ({"CAISHEN_READY_SECONDS": "2.5"}, "CAISHEN_READY_SECONDS must be an integer, not '2.5'"),
        ({"CAISHEN_READY_SECONDS": "0"}, "CAISHEN_READY_SECONDS must be at least 1, not 0"),
        ({"CAISHEN_STAFF_REQUIRE_2FA": "maybe"}, "CAISHEN_STAFF_REQUIRE_2FA must be 1 or 0"),
        ({"CAISHEN_CLAIM_PROTECTION": "none"}, "CAISHEN_CLAIM_PROTECTION must be 'uniform' or 'pause', not 'none'"),
        ({"CAISHEN_GC_THRESHOLD": "0,10,10"}, "CAISHEN_GC_THRESHOLD must have a first threshold above 0"),
        ({"CAISHEN_SWITCH_INTERVAL": "nan"}, "CAISHEN_SWITCH_INTERVAL must be a finite number"),
    ],
)
def test_a_bad_value_stops_start_up_naming_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=re.escape(message)):
        CaishenConfig.from_environment(env)


def test_every_bad_variable_is_named_at_once() -> None:
    with pytest.raises(ImproperlyConfigured) as refused:
        CaishenConfig.from_environment(
            {"CAISHEN_LOG_FORMAT": "xml", "CAISHEN_PROCESSES": "0", "CAISHEN_BOT_DELAY": "1"}
        )
    assert "CAISHEN_LOG_FORMAT" in str(refused.value) and "CAISHEN_PROCESSES" in str(refused.value)
    assert "CAISHEN_BOT_DELAY" not in str(refused.value)


def test_every_field_has_a_meaning() -> None:
    for item in settings_fields():
        assert spec(item).meaning.strip(), item.name


def test_the_flat_settings_are_exactly_the_run_time_fields_of_the_one_object() -> None:
    config = django_settings.CAISHEN
    assert isinstance(config, CaishenConfig)
    flat = {name for name in dir(django_settings) if name.startswith("CAISHEN_")}
    assert flat == {variable(item) for item in runtime_fields()}
    from mahjong_platform import settings as module  # unaffected by the tests' overrides

    for item in runtime_fields():
        assert getattr(module, variable(item)) == getattr(module.CAISHEN, item.name), item.name


def test_the_system_check_holds_overridden_settings_to_the_same_rules(settings: Any) -> None:
    assert not [e for e in run_checks() if e.id == "caishen.E006"]
    settings.CAISHEN_BOT_DELAY = "slow"
    settings.CAISHEN_LOGIN_WINDOW = 0
    settings.CAISHEN = dataclasses.replace(settings.CAISHEN, gc_log_ms=-1)
    messages = [e.msg for e in run_checks() if e.id == "caishen.E006"]
    assert any(m.startswith("CAISHEN_BOT_DELAY must be float") for m in messages)
    assert "CAISHEN_LOGIN_WINDOW must be at least 1, not 0" in messages
    assert "CAISHEN_GC_LOG_MS must be at least 0, not -1" in messages
    settings.CAISHEN_TIMERS = "cron"  # its own, older check
    ids = [e.id for e in run_checks() if "CAISHEN_TIMERS" in e.msg]
    assert ids == ["caishen.E001"]


def test_no_module_but_the_config_reads_the_variables_from_the_environment() -> None:
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    readers = []
    for name in tracked.stdout.split():
        if name.startswith("tests/") or name == "core/config.py":
            continue
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1):
            if "CAISHEN_" in line and re.search(r"\benviron\b|getenv", line):
                readers.append(f"{name}:{number}: {line.strip()}")
    assert readers == []


def test_no_call_site_repeats_a_default() -> None:
    """A value is read as ``settings.CAISHEN_X``; ``getattr(settings, "CAISHEN_X", default)`` would
    carry a second default that can drift from the config's."""
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    repeats = []
    for name in tracked.stdout.split():
        if name.startswith("tests/"):
            continue
        text = (ROOT / name).read_text(encoding="utf-8")
        for match in re.finditer(r"getattr\(\s*settings\s*,\s*[\"']CAISHEN_\w+[\"']\s*,", text):
            repeats.append(f"{name}:{text[: match.start()].count(chr(10)) + 1}: {match.group(0)}")
    assert repeats == []


def documented_defaults() -> dict[str, str]:
    """docs/operations.md's table rows for CAISHEN_* variables: variable -> default cell."""
    rows: dict[str, str] = {}
    for line in (ROOT / "docs" / "operations.md").read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| `(CAISHEN_[A-Z0-9_]+)` \| ([^|]+) \|", line)
        if match:
            assert match.group(1) not in rows, f"{match.group(1)} is listed twice"
            rows[match.group(1)] = match.group(2).strip().strip("`")
    return rows


def test_the_operations_doc_lists_exactly_the_fields_with_their_defaults() -> None:
    documented = documented_defaults()
    for name, script in SCRIPT_ONLY.items():
        assert name in (ROOT / script).read_text(encoding="utf-8")
        documented.pop(name)
    assert documented == {variable(item): shown_default(item) for item in settings_fields()}
