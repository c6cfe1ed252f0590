"""A player adds an email address on the profile page, confirms it from the mail, forgets the
password, resets it from the mail and signs in with the new one.  The server is the embedded mode's
daphne (tests/e2e/conftest.py): its mail goes to the console, i.e. daphne's output, where the
README says to look, and the test reads the links there."""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

import pytest

from tests.e2e.browser import new_page, server_log, shot, sign_up

pytestmark = pytest.mark.e2e

PASSWORD = "Fa1r-Play-2026"  # what sign_up() types
NEW_PASSWORD = "Fresh-Start-2027"


def log_size(server: str) -> int:
    return server_log(server).stat().st_size


def mailed_link(server: str, after: int, to: str, path: str) -> str:
    """The first link to ``path`` in a mail to ``to`` that the daphne serving ``server`` printed
    past byte ``after``."""
    pattern = re.compile(rf"^To: {re.escape(to)}$.*?(http://\S+{re.escape(path)}\S+)", re.MULTILINE | re.DOTALL)
    end = time.monotonic() + 15
    while time.monotonic() < end:
        with server_log(server).open("rb") as log:
            log.seek(after)
            found = pattern.search(log.read().decode("utf-8", errors="replace"))
        if found:
            return found.group(1)
        time.sleep(0.2)
    raise AssertionError(f"no mail to {to} with a link to {path} in the server's output")


def test_a_forgotten_password_is_reset_from_the_mail(server: str, chromium: Any) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = new_page(chromium, errors, lang="en-US")
    username = f"e2e{secrets.token_hex(3)}"
    address = f"{username}@example.com"
    sign_up(page, server, username)

    page.goto(f"{server}/accounts/profile/")
    mark = log_size(server)
    page.fill("#email_change_email", address)
    page.fill("#email_change_password", PASSWORD)
    page.click("#email-change")
    expect(page.locator("#email-pending")).to_contain_text(address)
    page.goto(mailed_link(server, mark, address, "/accounts/email/confirm/"))
    page.click("#email-confirm")
    expect(page.locator("#email-current")).to_contain_text(address)

    stranger = new_page(chromium, errors, lang="en-US")  # another browser, signed out
    stranger.goto(f"{server}/accounts/login/")
    stranger.click("#forgot-password")
    mark = log_size(server)
    stranger.fill("input[name=email]", address.upper())
    stranger.locator("main form button[type=submit]").click()
    expect(stranger.locator("#reset-sent")).to_be_visible()
    stranger.goto(mailed_link(server, mark, address, "/accounts/password/reset/"))
    stranger.fill("input[name=new_password1]", NEW_PASSWORD)
    stranger.fill("input[name=new_password2]", NEW_PASSWORD)
    stranger.click("#reset-save")
    expect(stranger.locator("#reset-complete")).to_be_visible()

    stranger.locator("main a.button").click()
    stranger.fill("input[name=username]", username)
    stranger.fill("input[name=password]", NEW_PASSWORD)
    stranger.locator("main form button[type=submit]").click()
    expect(stranger.locator("#wallet-balance")).to_be_visible()
    shot(stranger, "password-reset-signed-in.png")
    # The first browser's session ended with the old password.
    page.goto(f"{server}/accounts/profile/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    assert errors == []
