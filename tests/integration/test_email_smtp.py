"""A password reset through a real SMTP server: aiosmtpd on 127.0.0.1 (a free port) receives the
mail that the settings read from EMAIL_URL send; the test parses it, follows its link, sets a new
password and signs in with it.  No service of the suite is needed (no `integration` mark)."""

from __future__ import annotations

import email
import email.policy
import re
from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from django.contrib.auth import get_user_model
from django.test import Client

from core.email_config import EmailSettings
from tests.daphne_process import free_port


class Inbox:
    """aiosmtpd's handler: keeps every message it is given, parsed."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd's name)
        self.messages.append(email.message_from_bytes(envelope.content, policy=email.policy.default))  # type: ignore[arg-type]
        return "250 Message accepted for delivery"


@pytest.fixture
def smtp_server(settings: Any) -> Iterator[Inbox]:
    """The SMTP server, and Django's mail settings pointing at it as EMAIL_URL would set them."""
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        parsed = EmailSettings.from_environment({"EMAIL_URL": f"smtp://127.0.0.1:{controller.port}?timeout=5"})
        settings.EMAIL_BACKEND = parsed.backend
        settings.EMAIL_HOST, settings.EMAIL_PORT = parsed.host, parsed.port
        settings.EMAIL_USE_TLS, settings.EMAIL_USE_SSL = parsed.use_tls, parsed.use_ssl
        settings.EMAIL_TIMEOUT = parsed.timeout
        settings.DEFAULT_FROM_EMAIL = "Caishen <noreply@caishen.test>"
        yield inbox
    finally:
        controller.stop()


@pytest.mark.django_db
def test_a_reset_mail_over_smtp_leads_to_a_new_password(smtp_server: Inbox) -> None:
    get_user_model().objects.create_user("mailed", email="mailed@example.com", password="old-password-123")
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    sent = browser.post("/accounts/password/reset/", {"email": "Mailed@example.com"})
    assert sent.status_code == 302

    [message] = smtp_server.messages
    assert message["To"] == "mailed@example.com"
    assert message["From"] == "Caishen <noreply@caishen.test>"
    assert message["Subject"] == "Caishen: reset your password"
    body = message.get_content()
    link = re.search(r"http://testserver(/accounts/password/reset/[^/\s]+/[^/\s]+/)", body)
    assert link, body

    form = browser.get(link.group(1), follow=True)
    new = "a-brand-new-password-9"
    done = browser.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302
    assert Client().login(username="mailed", password=new)
    assert not Client().login(username="mailed", password="old-password-123")
