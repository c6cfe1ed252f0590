"""A refused request (PermissionDenied and other 4xx from django.request) logs one line, no traceback;
server errors keep theirs (mahjong_platform/logging.py, ClientErrorsOnOneLine)."""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from mahjong_platform.logging import ClientErrorsOnOneLine, JsonFormatter


@pytest.fixture
def stdout_log() -> Iterator[io.StringIO]:
    """What the project's stdout handler writes, captured."""
    handler = next(h for h in logging.getLogger("django").handlers if isinstance(h, logging.StreamHandler))
    buffer = io.StringIO()
    previous = handler.setStream(buffer)
    try:
        yield buffer
    finally:
        handler.setStream(previous)


@pytest.mark.django_db
def test_a_refused_permission_logs_one_line(client: Any, stdout_log: io.StringIO) -> None:
    client.force_login(get_user_model().objects.create_user("player", password="pw-123456"))

    assert client.get(reverse("accounts:staff_wallets")).status_code == 403

    lines = [line for line in stdout_log.getvalue().splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "WARNING django.request: Forbidden (Permission denied): /accounts/staff/wallets/" in lines[0]
    assert "status_code=403" in lines[0]
    assert "Traceback" not in stdout_log.getvalue()


def record(status: int, exc: BaseException, name: str = "django.request") -> logging.LogRecord:
    try:
        raise exc
    except BaseException:
        info = sys.exc_info()
    entry = logging.LogRecord(name, logging.WARNING, __file__, 1, "Refused: %s", ("/x/",), info)
    entry.status_code = status
    return entry


def test_the_reason_stays_and_the_traceback_goes_in_json_too() -> None:
    entry = record(403, PermissionDenied("not staff"))
    assert ClientErrorsOnOneLine().filter(entry)

    line = JsonFormatter().format(entry)
    assert "\n" not in line
    data = json.loads(line)
    assert data["reason"] == "PermissionDenied: not staff"
    assert "exception" not in data


def test_server_errors_and_other_loggers_keep_their_traceback() -> None:
    server = record(500, RuntimeError("boom"))
    other = record(403, PermissionDenied(), name="caishen.table")
    for entry in (server, other):
        ClientErrorsOnOneLine().filter(entry)
        assert entry.exc_info is not None
