"""The socket's Origin check compares scheme, host and port.

Channels' AllowedHostsOriginValidator compares the host only: a page at http://localhost:3000
could open a signed-in socket to the server at localhost:8000.  Admitted: the socket's own origin
(its scheme and Host, the host allowed) and DJANGO_CSRF_TRUSTED_ORIGINS (mahjong_platform/origins.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client

from mahjong_platform.asgi import application
from mahjong_platform.origins import normalise, origin_allowed
from tests.platform.live_helpers import started, ws_path


def scope(origin: str | None, host: str | None = "localhost:8000", scheme: str | None = None) -> dict[str, Any]:
    headers = []
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if host is not None:
        headers.append((b"host", host.encode()))
    out: dict[str, Any] = {"type": "websocket", "path": "/ws/table/1/", "headers": headers}
    if scheme is not None:
        out["scheme"] = scheme
    return out


@pytest.fixture(autouse=True)
def hosts(settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]", "mahjong.example"]
    settings.CSRF_TRUSTED_ORIGINS = []


# ----------------------------------------------------------------------------- the decision
@pytest.mark.parametrize(
    ("case", "allowed"),
    [
        (scope("http://localhost:8000"), True),  # the page this server served
        (scope("http://LOCALHOST:8000"), True),  # host names are case-insensitive
        (scope("http://localhost:3000"), False),  # the reported hole: another port on an allowed host
        (scope("https://localhost:8000"), False),  # another scheme
        (scope("http://localhost"), False),  # port 80 is another origin than 8000
        (scope("http://localhost", host="localhost"), True),
        (scope("http://localhost:80", host="localhost"), True),  # the default port spelled out
        (scope("https://localhost", host="localhost", scheme="wss"), True),  # TLS to daphne itself
        (scope("http://localhost", host="localhost", scheme="wss"), False),
        (scope("http://127.0.0.1:8000", host="127.0.0.1:8000"), True),
        (scope("http://[::1]:8000", host="[::1]:8000"), True),
        (scope("http://127.0.0.1:8000"), False),  # an allowed host, but not the one connected to
        (scope("http://evil.example:8000", host="evil.example:8000"), False),  # Host not allowed
        (scope("http://localhost:8000", host=None), False),  # no Host: no own origin to compare
        (scope(None), False),
        (scope("null"), False),  # an opaque origin (sandboxed frame, file://)
        (scope("localhost:8000"), False),
        (scope("ftp://localhost:8000"), False),
        (scope("http://localhost:8000/path"), False),  # not a serialised origin
        (scope("http://user@localhost:8000"), False),
        (scope("http://localhost:99999"), False),
    ],
)
def test_only_the_sockets_own_origin_is_admitted(case: dict[str, Any], allowed: bool) -> None:
    assert origin_allowed(case) is allowed


def test_two_origin_headers_are_refused() -> None:
    case = scope("http://localhost:8000")
    case["headers"].append((b"origin", b"http://localhost:8000"))
    assert not origin_allowed(case)


@pytest.mark.parametrize(
    ("trusted", "origin", "allowed"),
    [
        (["https://mahjong.example"], "https://mahjong.example", True),  # TLS ends at the proxy
        (["https://mahjong.example"], "https://mahjong.example:443", True),
        (["https://mahjong.example"], "http://mahjong.example", False),
        (["https://mahjong.example"], "https://mahjong.example:8443", False),
        (["https://mahjong.example:8443"], "https://mahjong.example:8443", True),
        (["https://*.mahjong.example"], "https://play.mahjong.example", True),  # Django's wildcard
        (["https://*.mahjong.example"], "https://mahjong.example", True),
        (["https://*.mahjong.example"], "https://evilmahjong.example", False),
        (["https://*.mahjong.example"], "http://play.mahjong.example", False),
        (["https://*.mahjong.example"], "https://play.mahjong.example:8443", False),
        (["http://localhost:3000"], "http://localhost:3000", True),  # a dev server, when configured
    ],
)
def test_trusted_origins_are_admitted_whatever_the_host(
    settings: Any, trusted: list[str], origin: str, allowed: bool
) -> None:
    settings.CSRF_TRUSTED_ORIGINS = trusted
    assert origin_allowed(scope(origin, host="127.0.0.1:8001")) is allowed


def test_normalise_makes_the_default_port_explicit() -> None:
    assert normalise("HTTPS://Mahjong.Example") == ("https", "mahjong.example", 443)
    assert normalise("http://localhost:8000/") == ("http", "localhost", 8000)
    assert normalise("http://") is None and normalise("http://x:port") is None


# ---------------------------------------------------------------- the full application
def connect(table_id: int, headers: list[tuple[bytes, bytes]]) -> tuple[bool, Any]:
    async def run() -> tuple[bool, Any]:
        comm = WebsocketCommunicator(application, ws_path(table_id), headers=headers)
        connected, detail = await comm.connect(timeout=5)
        await comm.disconnect()
        return connected, detail

    return async_to_sync(run)()


def signed_in(user: Any, origin: str, host: str) -> list[tuple[bytes, bytes]]:
    client = Client()
    client.force_login(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    return [(b"origin", origin.encode()), (b"host", host.encode()), (b"cookie", cookie)]


@pytest.mark.django_db(transaction=True)
def test_a_signed_in_socket_from_another_port_is_refused_and_its_own_origin_accepted() -> None:
    table, _, users = started()

    assert connect(table.pk, signed_in(users[0], "http://localhost:3000", "localhost:8000"))[0] is False
    assert connect(table.pk, signed_in(users[0], "https://localhost:8000", "localhost:8000"))[0] is False
    assert connect(table.pk, signed_in(users[0], "http://localhost:8000", "localhost:8000"))[0] is True


@pytest.mark.django_db(transaction=True)
def test_a_configured_trusted_origin_is_accepted(settings: Any) -> None:
    # Behind a proxy that terminates TLS: the page is https://mahjong.example, daphne sees ws.
    settings.CSRF_TRUSTED_ORIGINS = ["https://mahjong.example"]
    table, _, users = started()

    assert connect(table.pk, signed_in(users[0], "https://mahjong.example", "mahjong.example"))[0] is True
    assert connect(table.pk, signed_in(users[0], "https://other.example", "mahjong.example"))[0] is False
