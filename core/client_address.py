"""The address of the client behind a request, for rate limits.

Without configuration it is the direct peer (``REMOTE_ADDR``).  Behind a proxy every client
shares the proxy's address, so the deployment names the header the proxy writes
(``CAISHEN_CLIENT_IP_HEADER``, e.g. ``X-Forwarded-For``) and which peers are its proxies
(``CAISHEN_TRUSTED_PROXIES``): either how many proxies stand in front (``2``), or their
addresses and networks (``10.0.0.5,10.1.0.0/16``).

The header is client-writable text: a client can put anything at its left end.  Only the
entries that trusted proxies appended (its right end) are believed:

- with addresses, the header is read only when the direct peer is one of them, and the client
  is the right-most entry that is not a trusted proxy;
- with a count N, the client is the N-th entry from the right (each of the N proxies appended
  the address it saw); use a count only when the server cannot be reached except through them.

Anything unexpected (too few entries, an entry that is not an address) falls back to the direct
peer: a forged value never becomes a fresh rate-limit key.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:  # settings.py imports this module: keep its imports light
    from django.http import HttpRequest

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_HEADER_NAME = re.compile(r"^[A-Za-z0-9-]+$")
# IPv6 clients usually hold a whole /64: counting each address apart would let one client
# rotate through billions of rate-limit keys.
IPV6_BUCKET_PREFIX = 64


@dataclass(frozen=True)
class TrustedProxies:
    """Either ``count`` proxies in front, or the ``networks`` the proxies' addresses are in."""

    count: int = 0
    networks: tuple[IPNetwork, ...] = ()

    def trusts(self, address: IPAddress) -> bool:
        return any(address in network for network in self.networks)


def parse_trusted_proxies(value: str) -> TrustedProxies:
    """``CAISHEN_TRUSTED_PROXIES``: empty, a count (``1``), or addresses/networks (``10.0.0.1,10.2.0.0/16``)."""
    value = value.strip()
    if not value:
        return TrustedProxies()
    if value.isdigit():
        count = int(value)
        if count < 1:
            raise ImproperlyConfigured("CAISHEN_TRUSTED_PROXIES must be a count of at least 1, or addresses")
        return TrustedProxies(count=count)
    networks = []
    for item in value.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"CAISHEN_TRUSTED_PROXIES: {item!r} is not an IP address or network (e.g. 10.0.0.5 or 10.0.0.0/8)"
            ) from None
    return TrustedProxies(networks=tuple(networks))


def check_configuration(header: str, proxies: str) -> None:
    """Refuse a configuration that cannot work (called from settings.py, so it fails at start-up)."""
    trusted = parse_trusted_proxies(proxies)
    if header and not _HEADER_NAME.match(header):
        raise ImproperlyConfigured(
            f"CAISHEN_CLIENT_IP_HEADER must be a header name like X-Forwarded-For, not {header!r}"
        )
    if header and not (trusted.count or trusted.networks):
        raise ImproperlyConfigured(
            "CAISHEN_CLIENT_IP_HEADER is set but CAISHEN_TRUSTED_PROXIES is empty: "
            "name the proxies (addresses, or how many stand in front) whose header is believed"
        )


@lru_cache(maxsize=8)
def _trusted(value: str) -> TrustedProxies:
    return parse_trusted_proxies(value)


def _meta_key(header: str) -> str:
    return "HTTP_" + header.upper().replace("-", "_")


def parse_address(text: str) -> IPAddress | None:
    """An address as proxies write it: ``1.2.3.4``, ``1.2.3.4:5678``, ``2001:db8::1`` or ``[2001:db8::1]:443``."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.partition(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def client_address(request: HttpRequest) -> str:
    """The client's address as text (the direct peer unless a trusted proxy's header says otherwise)."""
    return address_from_meta(request.META)


def address_from_meta(meta: Mapping[str, Any]) -> str:
    """:func:`client_address` from a request's ``META`` alone (``REMOTE_ADDR`` and the proxy's
    ``HTTP_…`` header): also for an ASGI scope read before Django (mahjong_platform/heavy_read_gate.py)."""
    peer = str(meta.get("REMOTE_ADDR") or "")
    header = str(settings.CAISHEN_CLIENT_IP_HEADER)
    if not header:
        return peer
    proxies = _trusted(str(settings.CAISHEN_TRUSTED_PROXIES))
    entries = [entry for entry in str(meta.get(_meta_key(header), "")).split(",") if entry.strip()]
    if proxies.count:
        if len(entries) < proxies.count:
            return peer
        found = parse_address(entries[-proxies.count])
        return str(found) if found is not None else peer
    peer_address = parse_address(peer)
    if peer_address is None or not proxies.trusts(peer_address):
        return peer  # a client talking to us directly: its header is its own invention
    for entry in reversed(entries):
        found = parse_address(entry)
        if found is None:
            return peer
        if not proxies.trusts(found):
            return str(found)
    # Every entry is a proxy of ours (a health check from inside): the left-most is the origin.
    first = parse_address(entries[0]) if entries else None
    return str(first) if first is not None else peer


def address_from_scope(scope: Mapping[str, Any]) -> str:
    """:func:`client_address` from an ASGI scope (a socket, or a request before Django): its
    peer and headers read as Django would put them in ``META``."""
    meta: dict[str, str] = {"REMOTE_ADDR": str((scope.get("client") or ("",))[0] or "")}
    for name, value in scope.get("headers") or []:
        meta["HTTP_" + name.decode("latin-1").upper().replace("-", "_")] = value.decode("latin-1")
    return address_from_meta(meta)


def rate_limit_bucket(address: str) -> str:
    """The key one client's counters share: the address itself, or its /64 for IPv6."""
    found = parse_address(address)
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{found}/{IPV6_BUCKET_PREFIX}", strict=False))
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return str(found.ipv4_mapped)
    return address
