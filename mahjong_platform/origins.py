"""Which pages may open a WebSocket: the Origin check of the socket router (mahjong_platform/asgi.py).

A browser sends its session cookie with a WebSocket to our host from any page, so the Origin
header is what stops another site from playing as the signed-in user.  Channels'
AllowedHostsOriginValidator compares the Origin's *host* with ALLOWED_HOSTS only: a page at
``http://localhost:3000`` (any other program on the machine) was admitted to a server at
``localhost:8000``.  An origin is scheme, host and port together, so this validator admits exactly:

* the socket's own origin: its scheme (``ws`` → ``http``, ``wss`` → ``https``) and its Host
  header, when that host is one of ALLOWED_HOSTS — a page served by this site, as Django's CSRF
  check counts it (``request.is_secure()`` and ``get_host()``);
* the origins in CSRF_TRUSTED_ORIGINS (DJANGO_CSRF_TRUSTED_ORIGINS), with Django's meaning,
  ``https://*.example.com`` included — the public origin behind a proxy that terminates TLS, where
  the socket itself arrives as plain ``ws``.

Anything else is refused before the consumer runs (closed at the handshake): a missing, ``null``,
repeated or malformed Origin too.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

logger = logging.getLogger(__name__)

DEFAULT_PORTS = {"http": 80, "https": 443}
# What the page's origin is for the socket's scheme (ASGI: "ws" when the server does not say).
PAGE_SCHEME = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def normalise(origin: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of a serialised origin, the port made explicit; None if it is not one."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:  # a port that is not a number, or out of range
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/") or parts.query:
        return None
    if parts.username is not None or parts.password is not None:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else DEFAULT_PORTS[scheme]


def _header(scope: dict[str, Any], name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope.get("headers", []) if key.lower() == name]


def _allowed_hosts() -> list[str]:
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:  # as Django's own get_host() in DEBUG
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


def own_origin(scope: dict[str, Any]) -> tuple[str, str, int] | None:
    """The origin of a page served where this socket arrived: its scheme and Host, if allowed."""
    hosts = _header(scope, b"host")
    if len(hosts) != 1:
        return None
    domain, _ = split_domain_port(hosts[0])
    if not domain or not validate_host(domain, _allowed_hosts()):
        return None
    scheme = PAGE_SCHEME.get(str(scope.get("scheme", "ws")).lower())
    return normalise(f"{scheme}://{hosts[0]}") if scheme else None


def trusted(origin: tuple[str, str, int]) -> bool:
    """Is ``origin`` one of CSRF_TRUSTED_ORIGINS (``scheme://*.domain`` patterns as Django reads them)?"""
    scheme, host, port = origin
    for entry in settings.CSRF_TRUSTED_ORIGINS:
        if "*" in entry:
            parts = urlsplit(entry.lower())
            pattern = parts.netloc.lstrip("*")  # "*.example.com[:port]" -> ".example.com[:port]"
            netloc = host if port == DEFAULT_PORTS[scheme] and ":" not in pattern else f"{host}:{port}"
            if parts.scheme == scheme and is_same_domain(netloc, pattern):
                return True
        elif normalise(entry) == origin:
            return True
    return False


def origin_allowed(scope: dict[str, Any]) -> bool:
    origins = _header(scope, b"origin")
    if len(origins) != 1:
        return False
    origin = normalise(origins[0])
    if origin is None:
        return False
    return origin == own_origin(scope) or trusted(origin)


class SameOriginValidator:
    """ASGI middleware for the websocket router: admits only the allowed origins (module docstring)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            raise ValueError("SameOriginValidator guards WebSocket connections only")
        # Settings are read per connection (a few string comparisons): tests that change them, and
        # the test client's settings fixture, see the change.
        if origin_allowed(scope):
            return await self.application(scope, receive, send)
        logger.info(
            "socket refused: its Origin is neither this site's nor a trusted one",
            extra={
                "origin": ",".join(_header(scope, b"origin")) or "(none)",
                "host": ",".join(_header(scope, b"host")) or "(none)",
                "path": scope.get("path"),
            },
        )
        return await WebsocketDenier()(scope, receive, send)
