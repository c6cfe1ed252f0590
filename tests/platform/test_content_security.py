"""Content-Security-Policy on every page (mahjong_platform/content_security.py): no inline script or
style in the templates nor in the admin, and the Swagger UI page still served (its start-up script
a file of its own)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from games import services

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_DIRS = [ROOT / "templates", ROOT / "games" / "templates", ROOT / "tournaments" / "templates"]
HOST = "127.0.0.1:8000"

pytestmark = pytest.mark.django_db


def policy(response: Any) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


def inline_code(html: str) -> list[str]:
    """Inline script, inline style and event-handler attributes in a page or template."""
    found = []
    for tag in re.findall(r"<script\b[^>]*>", html):
        if "src=" not in tag and 'type="application/json"' not in tag:  # json_script's data blocks do not run
            found.append(tag)
    found += re.findall(r"<style\b", html)
    found += re.findall(r"\sstyle\s*=", html)
    found += re.findall(r"\son[a-z]+\s*=", html)
    found += re.findall(r"javascript:", html)
    return found


@pytest.fixture
def member() -> Any:
    return get_user_model().objects.create_user("member", password="pw-123456", is_staff=True)


def test_the_templates_hold_no_inline_script_or_style() -> None:
    files = [path for folder in TEMPLATE_DIRS for path in folder.rglob("*.html")]
    assert len(files) > 20
    offenders = {str(path.relative_to(ROOT)): inline_code(path.read_text()) for path in files}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_every_page_carries_a_policy_without_inline_script_or_style(member: Any) -> None:
    client = Client(HTTP_HOST=HOST)
    client.force_login(member)
    table = services.create_table(member, "zhejiang_caishen")
    pages = [
        "/",
        reverse("games:lobby"),
        reverse("games:rules"),
        reverse("games:table", args=[table.pk]),
        reverse("accounts:profile"),
        reverse("accounts:wallet"),
        reverse("accounts:staff_wallets"),
        reverse("accounts:second_factor_setup"),
        reverse("tournaments:index"),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        directives = policy(response)
        assert directives["script-src"] == ["'self'"], url
        assert "'unsafe-inline'" not in directives["style-src"], url
        assert directives["object-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"], url
        assert inline_code(response.content.decode()) == [], url
    anonymous = Client(HTTP_HOST=HOST).get(reverse("accounts:login"))
    assert policy(anonymous)["default-src"] == ["'self'"]


def test_the_table_page_may_open_its_websocket_on_this_host(member: Any) -> None:
    client = Client(HTTP_HOST=HOST)
    table = services.create_table(member, "zhejiang_caishen")

    directives = policy(client.get(reverse("games:table", args=[table.pk])))

    assert directives["connect-src"] == ["'self'", f"ws://{HOST}", f"wss://{HOST}"]


def test_the_admin_pages_hold_no_inline_script_or_style(admin_client: Any, admin_user: Any) -> None:
    pages = [
        reverse("admin:index"),
        reverse("admin:accounts_ledgerentry_changelist"),
        reverse("admin:accounts_wallet_changelist"),
        reverse("admin:accounts_wallet_change", args=[admin_user.wallet.pk]),
        reverse("admin:accounts_profile_changelist"),
        reverse("admin:auth_user_change", args=[admin_user.pk]),
        reverse("admin:otp_totp_totpdevice_changelist"),
        reverse("admin:otp_totp_totpdevice_add"),
    ]
    for url in pages:
        response = admin_client.get(url, HTTP_HOST=HOST)
        assert response.status_code == 200, url
        assert policy(response)["style-src"] == ["'self'"], url
        assert inline_code(response.content.decode()) == [], url


def test_the_swagger_ui_page_still_loads_under_the_policy(client: Any) -> None:
    page = client.get("/api/docs/", HTTP_HOST=HOST)
    assert page.status_code == 200
    html = page.content.decode()
    directives = policy(page)
    assert directives["script-src"] == ["'self'"]  # inline styles and data: images only
    assert directives["style-src"] == ["'self'", "'unsafe-inline'"]
    assert "data:" in directives["img-src"]

    sources = re.findall(r'<script src="([^"]+)"', html)
    assert len(sources) == 3 and not re.search(r"<script>", html)
    start_up = client.get(sources[-1].replace("&amp;", "&"), HTTP_HOST=HOST)
    assert start_up.status_code == 200
    assert start_up["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle(" in start_up.content.decode()
    assert "/api/schema/" in start_up.content.decode()
    for source in sources[:2]:
        assert finders.find(source.removeprefix("/static/")), source
