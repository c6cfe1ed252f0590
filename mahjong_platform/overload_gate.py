"""Refuse new work on the event loop, before Django, while the process is saturated.

The REST API refuses a new table or a match start with 503 while ``runtime().monitor`` says
the process is saturated — but only after the request has gone through Django on the process's
one database thread (session and user queries, DRF, the seat locks): 5–10 ms of the very thread
that is saturated.  At four times the knee, clients asking again every few seconds turn those
refusals into a third of the process's CPU, and the running tables' throughput falls
(docs/performance.md, "A busy evening").  So this ASGI wrapper answers the three API calls that
add load — ``POST /api/tables/`` (a new table), ``POST /api/tables/<id>/ready/`` with ``ready``
true (the default) and ``POST /api/tables/<id>/bots/`` — with the same 503, ``Retry-After`` and
translated ``{"detail": …}`` the views give, straight from the loop, while the state lasts.

The difference from the views' own refusal: every ready-up is refused while overloaded, not
only the fourth (the gate does not read the table); an earlier ready-up is taken again when the
state clears.  Taking a ready back (``ready`` false), sitting, standing and every running
match's traffic pass through.  The HTML forms keep the views' path (a person's click, with the
reason shown in the page).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from django.utils import translation
from django.utils.translation.trans_real import get_supported_language_variant, parse_accept_lang_header

from games.runtime.process import runtime
from games.services import overload

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[..., Awaitable[None]]  # an ASGI application (Django's handler types its arguments as Mappings)

_GATED = re.compile(r"^/api/tables/(?:(?P<id>\d+)/(?P<what>ready|bots)/)?$")
MAX_BODY = 4096  # a ready-up's body is a few bytes; a bigger one goes to Django as it is


def language(scope: Scope) -> str:
    """The request's language from Accept-Language, as Django's LocaleMiddleware would pick it
    without a session (English when none is supported)."""
    headers = dict(scope.get("headers") or [])
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    for code, _quality in parse_accept_lang_header(accept):
        if code == "*":
            break
        try:
            return get_supported_language_variant(code)
        except LookupError:
            continue
    return "en"


def gated(scope: Scope) -> str | None:
    """Which load-adding call this is ("create", "ready", "bots"), or None."""
    if scope.get("type") != "http" or scope.get("method") != "POST":
        return None
    match = _GATED.match(scope.get("path", ""))
    if match is None:
        return None
    return match.group("what") or "create"


def takes_back(body: bytes) -> bool:
    """A ready-up body that says ``"ready": false`` (taking it back never adds load)."""
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("ready") is False


def refuse_while_overloaded(app: App) -> App:
    async def gate(scope: Scope, receive: Receive, send: Send) -> None:
        what = gated(scope)
        if what is None or not runtime().monitor.refusing():
            await app(scope, receive, send)
            return
        replay: list[Message] = []
        if what == "ready":
            # Read the (small) body to see whether it takes a ready back; hand it on unchanged.
            size, more = 0, True
            while more and size <= MAX_BODY:
                message = await receive()
                replay.append(message)
                if message["type"] != "http.request":
                    break
                size += len(message.get("body", b""))
                more = bool(message.get("more_body"))
            body = b"".join(m.get("body", b"") for m in replay if m["type"] == "http.request")
            if more or size > MAX_BODY or takes_back(body):
                await app(scope, _replaying(replay, receive), send)
                return
        runtime().monitor.refusals += 1
        if what == "ready":
            _remember_refused_ready(scope["path"])
        with translation.override(language(scope)):
            detail = overload.message()
        payload = json.dumps({"detail": detail}, ensure_ascii=False).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 503,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"retry-after", str(runtime().monitor.thresholds.retry_after_s).encode()),
                    (b"content-length", str(len(payload)).encode()),
                    (b"vary", b"Accept-Language"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    return gate


def _remember_refused_ready(path: str) -> None:
    """As the view's own refusal does: the ready countdown must not unseat a player whose ready-up
    was refused here (games.services.wakes), even once the load has fallen by then."""
    found = _GATED.match(path)
    if found is not None and found.group("id"):
        overload.remember_refused_start(int(found.group("id")))


def _replaying(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def again() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return again
