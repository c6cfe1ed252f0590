"""Email settings from the environment (core/email_config.py): EMAIL_URL or the separate
variables, the console by default, and a clear error naming each bad variable."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from core.email_config import CONSOLE, DEFAULT_TIMEOUT, SMTP, EmailSettings


def test_no_setting_is_the_console_with_a_timeout() -> None:
    email = EmailSettings.from_environment({})
    assert (email.backend, email.timeout) == (CONSOLE, DEFAULT_TIMEOUT)


def test_an_email_url_gives_every_setting() -> None:
    email = EmailSettings.from_environment(
        {"EMAIL_URL": "submission://bot%40mail.example:s%3Acret@mail.example?timeout=5", "DEFAULT_FROM_EMAIL": "x@y.z"}
    )
    assert email == EmailSettings(
        backend=SMTP,
        host="mail.example",
        port=587,
        user="bot@mail.example",
        password="s:cret",
        use_tls=True,
        timeout=5,
        default_from="x@y.z",
        server_email="x@y.z",
    )


def test_the_separate_variables_give_the_same() -> None:
    email = EmailSettings.from_environment(
        {"EMAIL_HOST": "mx.example", "EMAIL_PORT": "465", "EMAIL_USE_SSL": "yes", "EMAIL_HOST_USER": "u"}
    )
    assert (email.backend, email.host, email.port, email.use_ssl, email.use_tls, email.user) == (
        SMTP,
        "mx.example",
        465,
        True,
        False,
        "u",
    )


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"EMAIL_URL": "smtps2://mx"}, "EMAIL_URL must start with one of"),
        ({"EMAIL_URL": "smtp://mx:99999"}, "EMAIL_URL cannot be read"),
        ({"EMAIL_URL": "smtp://mx", "EMAIL_HOST": "mx"}, "set one or the other"),
        ({"EMAIL_URL": "file://"}, "file:// needs a folder"),
        ({"EMAIL_HOST": "mx", "EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1"}, "choose one"),
    ],
)
def test_a_bad_setting_stops_start_up_naming_it(env: dict[str, str], named: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=named):
        EmailSettings.from_environment(env)


def test_every_bad_variable_is_named_at_once_and_no_password_is_echoed() -> None:
    with pytest.raises(ImproperlyConfigured) as caught:
        EmailSettings.from_environment(
            {"EMAIL_HOST": "mx", "EMAIL_PORT": "port", "EMAIL_TIMEOUT": "0", "EMAIL_USE_TLS": "maybe"}
        )
    message = str(caught.value)
    assert "EMAIL_PORT" in message and "EMAIL_TIMEOUT" in message and "EMAIL_USE_TLS" in message
    with pytest.raises(ImproperlyConfigured) as caught:
        EmailSettings.from_environment({"EMAIL_URL": "bogus://user:hunter2@mx"})
    assert "hunter2" not in str(caught.value)
