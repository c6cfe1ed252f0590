"""The client's address for rate limits: the direct peer, or a trusted proxy's header (right-most untrusted entry)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory

from core.client_address import (
    check_configuration,
    client_address,
    parse_trusted_proxies,
    rate_limit_bucket,
)


def request(peer: str, forwarded: str | None = None, header: str = "HTTP_X_FORWARDED_FOR") -> Any:
    meta = {"REMOTE_ADDR": peer}
    if forwarded is not None:
        meta[header] = forwarded
    return RequestFactory().get("/", **meta)


def test_without_configuration_the_header_is_ignored(settings: Any) -> None:
    settings.CAISHEN_CLIENT_IP_HEADER = ""
    assert client_address(request("203.0.113.9", "198.51.100.1")) == "203.0.113.9"


def test_a_trusted_proxy_header_names_the_right_most_untrusted_entry(settings: Any) -> None:
    settings.CAISHEN_CLIENT_IP_HEADER = "X-Forwarded-For"
    settings.CAISHEN_TRUSTED_PROXIES = "10.0.0.0/8"
    # The client forged "1.1.1.1"; the outer proxy (10.0.0.7) appended what it saw, 198.51.100.4.
    assert client_address(request("10.0.0.2", "1.1.1.1, 198.51.100.4, 10.0.0.7")) == "198.51.100.4"


def test_a_header_from_an_untrusted_peer_is_not_believed(settings: Any) -> None:
    settings.CAISHEN_CLIENT_IP_HEADER = "X-Forwarded-For"
    settings.CAISHEN_TRUSTED_PROXIES = "10.0.0.2"
    assert client_address(request("203.0.113.9", "198.51.100.4")) == "203.0.113.9"


def test_garbage_where_the_proxy_wrote_falls_back_to_the_peer(settings: Any) -> None:
    settings.CAISHEN_CLIENT_IP_HEADER = "X-Forwarded-For"
    settings.CAISHEN_TRUSTED_PROXIES = "10.0.0.2"
    assert client_address(request("10.0.0.2", "198.51.100.4, not-an-address")) == "10.0.0.2"
    assert client_address(request("10.0.0.2")) == "10.0.0.2"  # no header at all


def test_a_count_of_proxies_takes_the_nth_entry_from_the_right(settings: Any) -> None:
    settings.CAISHEN_CLIENT_IP_HEADER = "X-Forwarded-For"
    settings.CAISHEN_TRUSTED_PROXIES = "2"
    assert client_address(request("10.0.0.2", "1.1.1.1, 198.51.100.4, 10.0.0.7")) == "198.51.100.4"
    assert client_address(request("10.0.0.2", "198.51.100.4")) == "10.0.0.2"  # fewer entries than proxies


def test_another_header_and_ports_and_brackets(settings: Any) -> None:
    settings.CAISHEN_CLIENT_IP_HEADER = "X-Real-IP"
    settings.CAISHEN_TRUSTED_PROXIES = "127.0.0.1"
    assert client_address(request("127.0.0.1", "198.51.100.4:5123", header="HTTP_X_REAL_IP")) == "198.51.100.4"
    assert client_address(request("127.0.0.1", "[2001:db8::5]:443", header="HTTP_X_REAL_IP")) == "2001:db8::5"


def test_ipv6_clients_share_their_64_for_rate_limits() -> None:
    assert rate_limit_bucket("2001:db8:1:2:aaaa::1") == rate_limit_bucket("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert rate_limit_bucket("2001:db8:1:3::1") != rate_limit_bucket("2001:db8:1:2::1")
    assert rate_limit_bucket("198.51.100.4") == "198.51.100.4"
    assert rate_limit_bucket("::ffff:198.51.100.4") == "198.51.100.4"


@pytest.mark.parametrize(
    ("header", "proxies", "message"),
    [
        ("X-Forwarded-For", "", "CAISHEN_TRUSTED_PROXIES is empty"),
        ("X-Forwarded-For", "0", "at least 1"),
        ("X-Forwarded-For", "10.0.0.1,proxy.example", "'proxy.example' is not an IP address"),
        ("X Forwarded For", "1", "header name"),
    ],
)
def test_bad_configuration_is_refused_with_a_clear_message(header: str, proxies: str, message: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=message):
        check_configuration(header, proxies)


def test_trusted_proxies_parse() -> None:
    assert parse_trusted_proxies("").count == 0 and not parse_trusted_proxies("").networks
    assert parse_trusted_proxies(" 2 ").count == 2
    assert len(parse_trusted_proxies("10.0.0.1, 10.1.0.0/16").networks) == 2
