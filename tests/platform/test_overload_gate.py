"""The overload gate (mahjong_platform/overload_gate.py): while the process is saturated, new
tables and match starts are refused on the loop, before Django runs; everything else passes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from games.runtime.process import runtime
from games.services import overload
from mahjong_platform.overload_gate import refuse_while_overloaded

BUSY_EN = "The server is busy and is not starting new tables or matches for now."
BUSY_ZH = "服务器正忙，暂不开新桌、不开新局"


class Inner:
    """The application behind the gate: records what reached it, answers 200."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bytes]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.calls.append((scope["path"], body))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def call(
    path: str, body: bytes = b"", method: str = "POST", language: str = "en"
) -> tuple[Inner, list[dict[str, Any]]]:
    inner = Inner()
    gate = refuse_while_overloaded(inner)
    scope = {"type": "http", "method": method, "path": path, "headers": [(b"accept-language", language.encode())]}
    chunks = [{"type": "http.request", "body": body[:3], "more_body": True}, {"type": "http.request", "body": body[3:]}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(gate(scope, receive, send))
    return inner, sent


@pytest.fixture
def overloaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime().monitor, "refusing", lambda: True)


def test_everything_passes_while_the_process_has_room() -> None:
    inner, sent = call("/api/tables/", b'{"variant": "dongbei"}')
    assert inner.calls == [("/api/tables/", b'{"variant": "dongbei"}')] and sent[0]["status"] == 200


@pytest.mark.usefixtures("overloaded")
@pytest.mark.parametrize("path", ["/api/tables/", "/api/tables/12/ready/", "/api/tables/12/bots/"])
def test_new_tables_and_match_starts_are_refused_before_django(path: str) -> None:
    before = runtime().monitor.refusals
    inner, sent = call(path, b'{"ready": true}' if "ready" in path else b"{}")
    assert inner.calls == []  # Django never saw it
    start, body = sent
    headers = dict(start["headers"])
    retry_after = str(runtime().monitor.thresholds.retry_after_s).encode()
    assert start["status"] == 503 and headers[b"retry-after"] == retry_after
    assert json.loads(body["body"])["detail"].startswith(BUSY_EN)
    assert runtime().monitor.refusals == before + 1


@pytest.mark.usefixtures("overloaded")
def test_a_refused_ready_up_is_remembered_for_the_ready_countdown() -> None:
    """The countdown must not unseat a player whose ready-up the gate refused (as it does not
    after the view's own refusal): the gate leaves the same note, for that table only."""
    assert not overload.take_refused_start(41) and not overload.take_refused_start(42)
    call("/api/tables/41/ready/", b'{"ready": true}')
    call("/api/tables/", b"{}")
    assert overload.take_refused_start(41) and not overload.take_refused_start(42)


@pytest.mark.usefixtures("overloaded")
def test_the_refusal_is_in_the_clients_language() -> None:
    _, sent = call("/api/tables/", b"{}", language="zh-CN,zh;q=0.9")
    assert BUSY_ZH in json.loads(sent[1]["body"])["detail"]


@pytest.mark.usefixtures("overloaded")
def test_a_ready_up_without_a_body_is_a_ready_up() -> None:
    inner, sent = call("/api/tables/3/ready/", b"")
    assert inner.calls == [] and sent[0]["status"] == 503


@pytest.mark.usefixtures("overloaded")
@pytest.mark.parametrize(
    ("path", "method", "body"),
    [
        ("/api/tables/3/ready/", "POST", b'{"ready": false}'),  # taking a ready back
        ("/api/tables/3/sit/", "POST", b"{}"),
        ("/api/tables/3/stand/", "POST", b""),
        ("/api/tables/", "GET", b""),
        ("/api/tables/3/", "GET", b""),
        ("/tables/3/ready/", "POST", b"ready=true"),  # the HTML form: the view shows the reason
    ],
)
def test_everything_else_passes_with_its_body_intact(path: str, method: str, body: bytes) -> None:
    inner, sent = call(path, body, method=method)
    assert inner.calls == [(path, body)] and sent[0]["status"] == 200
