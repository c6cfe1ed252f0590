"""daphne's requests leave POST bodies to Django (mahjong_platform/raw_post_bodies.py): Twisted does
not parse them on the loop, and so builds no class per request; the body reaches the ASGI
application whole."""

from __future__ import annotations

import gc
import io
from types import SimpleNamespace
from typing import Any

from daphne import http_protocol
from twisted.web.test.requesthelper import DummyChannel

from mahjong_platform import asgi  # noqa: F401  (installs it, as daphne importing the application does)
from mahjong_platform.raw_post_bodies import RawBodyWebRequest, install

FORM = b"name=value&other=2"
DAPHNES = RawBodyWebRequest.__mro__[1]  # daphne's own WebRequest


def received(request_class: type) -> tuple[object, int]:
    """A urlencoded POST handed to a request of ``request_class`` the way Twisted's channel does
    (daphne's hand-off to the application left out); its ``args``, and the number of classes the
    collector then finds as garbage."""
    channel: Any = DummyChannel()
    channel.factory = SimpleNamespace(server=SimpleNamespace(protocol_connected=lambda request: None))
    gc.collect()
    request = request_class(channel)
    request.requestHeaders.setRawHeaders(b"content-type", [b"application/x-www-form-urlencoded; charset=utf-8"])
    request.requestHeaders.setRawHeaders(b"content-length", [str(len(FORM)).encode()])
    request.content = io.BytesIO()
    request.content.write(FORM)  # as the channel writes it: positioned after the body
    request.process = lambda: None
    request.requestReceived(b"POST", b"/accounts/login/", b"HTTP/1.1")
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        classes = sum(1 for o in gc.garbage if isinstance(o, type))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return request.args, classes


def test_daphne_builds_its_requests_from_the_raw_body_class() -> None:
    install()  # again: idempotent
    assert http_protocol.WebRequest is RawBodyWebRequest
    factory = http_protocol.HTTPFactory(server=None)
    protocol = factory.buildProtocol(("127.0.0.1", 1234))
    assert protocol.requestFactory is RawBodyWebRequest


def test_twisted_parses_a_form_body_with_a_new_class_and_the_raw_request_does_not() -> None:
    parsed_args, parsed_classes = received(DAPHNES)
    assert parsed_args == {b"name": [b"value"], b"other": [b"2"]} and parsed_classes >= 1
    raw_args, raw_classes = received(RawBodyWebRequest)
    assert raw_args == {} and raw_classes == 0
