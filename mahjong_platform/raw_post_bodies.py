"""daphne hands POST bodies to Django as they are: Twisted's form parsing switched off.

Twisted's ``http.Request`` parses every POST body with a ``Content-Type`` on the event loop, for
its own ``request.args`` (URL-encoded forms and multipart bodies), which daphne never reads: the
ASGI application gets the raw body and Django parses it again.  That parse is worse than wasted.
It reads the ``Content-Type`` through the standard library's ``email`` package with its default
policy, whose header registry builds a new class for every header it parses: one class per POST,
garbage in a reference cycle, and a class is the costliest object to build and to free.  On a busy
evening a few dozen ready-ups a second made daphne's young collections come every 2–3 s
(docs/performance.md, "A busy evening"); with the parse off, every 6–9 s, and the running tables'
p99 fell from 381 to 328 ms.  And a multipart body would be parsed on the loop itself.

Twisted offers the switch (``Request(parsePOSTFormSubmission=False)``); daphne offers no option to
pass it, so ``install()`` points ``daphne.http_protocol.WebRequest`` — the class daphne's
``HTTPFactory.buildProtocol`` gives each connection as its request factory — at a subclass that
passes it.  ``install()`` checks daphne still looks as expected and raises at start-up if not.
"""

from __future__ import annotations

from typing import Any

from daphne import http_protocol  # importing it starts no reactor (daphne.server does)
from daphne.http_protocol import WebRequest


class RawBodyWebRequest(WebRequest):  # type: ignore[misc]  # daphne is untyped
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("parsePOSTFormSubmission", False)
        super().__init__(*args, **kwargs)


def install() -> None:
    """Use :class:`RawBodyWebRequest` for every HTTP request daphne accepts from now on (call once,
    when daphne imports the ASGI application, before it serves)."""
    current = http_protocol.WebRequest
    if current is RawBodyWebRequest:
        return
    if current is not WebRequest or "requestFactory = WebRequest" not in _build_protocol_source():
        raise RuntimeError(
            f"daphne's http_protocol.WebRequest is {current!r} and HTTPFactory.buildProtocol no longer sets it "
            "as the request factory: daphne changed; mahjong_platform/raw_post_bodies.py must be revisited"
        )
    http_protocol.WebRequest = RawBodyWebRequest


def _build_protocol_source() -> str:
    import inspect

    return inspect.getsource(http_protocol.HTTPFactory.buildProtocol)
