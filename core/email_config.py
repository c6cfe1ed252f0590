"""Outgoing mail from the environment: ``EMAIL_URL``, or Django's own ``EMAIL_HOST``/``EMAIL_PORT``/...

``EMAIL_URL`` is parsed by dj-email-url (the sibling of dj-database-url, which reads
``DATABASE_URL``): ``smtp://user:password@host:25``, ``submission://...`` (STARTTLS on 587),
``console://``, ``file:///path``, ``memory://``, ``dummy://``; ``?ssl=1``, ``?tls=1`` and
``?timeout=N`` in the query.  The separate variables are the same settings one by one, for a
host that already sets them.  Neither: the console backend, so the embedded mode prints its
mail on daphne's standard output (the terminal of ``scripts/run.sh``) and needs no server.

What the library lets through silently (an unknown scheme, a port that is not a number) stops
start-up here with an ``ImproperlyConfigured`` naming every bad variable, as core/config.py does
for the ``CAISHEN_*`` variables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import dj_email_url
from django.core.exceptions import ImproperlyConfigured

from core.config import parse_bool

CONSOLE = "django.core.mail.backends.console.EmailBackend"
SMTP = "django.core.mail.backends.smtp.EmailBackend"
# A mail is sent while its request waits: a mail server that does not answer must not hold the
# request (and its worker) for ever, which is Django's default (no timeout).
DEFAULT_TIMEOUT = 10
DEFAULT_FROM = "Caishen <webmaster@localhost>"
# The variables read one by one when EMAIL_URL is not set (Django's own setting names).
SEPARATE = (
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "EMAIL_TIMEOUT",
)


@dataclass(frozen=True)
class EmailSettings:
    """Django's ``EMAIL_*`` settings, ``DEFAULT_FROM_EMAIL`` and ``SERVER_EMAIL``."""

    backend: str = CONSOLE
    host: str = "localhost"
    port: int = 25
    user: str = ""
    password: str = ""
    use_tls: bool = False
    use_ssl: bool = False
    timeout: int = DEFAULT_TIMEOUT
    file_path: str = ""
    default_from: str = DEFAULT_FROM
    server_email: str = DEFAULT_FROM

    @classmethod
    def from_environment(cls, env: Mapping[str, str]) -> EmailSettings:
        def value(name: str) -> str:
            return env.get(name, "").strip()

        errors: list[str] = []
        url = value("EMAIL_URL")
        separate = [name for name in SEPARATE if value(name)]
        if url and separate:
            errors.append("EMAIL_URL is set together with " + ", ".join(separate) + ": set one or the other")
            fields: dict[str, object] = {}
        elif url:
            fields = _from_url(url, errors)
        elif value("EMAIL_HOST"):
            fields = _from_separate(value, errors)
        else:
            fields = {}
        sender = value("DEFAULT_FROM_EMAIL") or str(fields.pop("default_from", "") or DEFAULT_FROM)
        server = value("SERVER_EMAIL") or str(fields.pop("server_email", "") or sender)
        fields.pop("default_from", None)
        fields.pop("server_email", None)
        if not errors and fields.get("use_tls") and fields.get("use_ssl"):
            errors.append("TLS (STARTTLS) and SSL are both asked for: choose one")
        if errors:
            raise ImproperlyConfigured("Bad email settings: " + "; ".join(errors))
        return cls(**fields, default_from=sender, server_email=server)  # type: ignore[arg-type]


def _from_url(url: str, errors: list[str]) -> dict[str, object]:
    scheme = url.partition("://")[0].lower()
    if scheme not in dj_email_url.SCHEMES or "://" not in url:
        known = ", ".join(sorted(dj_email_url.SCHEMES))
        errors.append(f"EMAIL_URL must start with one of {known} followed by ://, not {url.split('://')[0]!r}")
        return {}
    try:
        parsed = dj_email_url.parse(url)
    except ValueError as exc:  # a port or a timeout that is not a number
        errors.append(f"EMAIL_URL cannot be read ({exc})")
        return {}
    fields: dict[str, object] = {
        "backend": parsed["EMAIL_BACKEND"],
        "host": parsed["EMAIL_HOST"] or "localhost",
        "port": parsed["EMAIL_PORT"] or 25,
        "user": parsed["EMAIL_HOST_USER"] or "",
        "password": parsed["EMAIL_HOST_PASSWORD"] or "",
        "use_tls": bool(parsed["EMAIL_USE_TLS"]),
        "use_ssl": bool(parsed["EMAIL_USE_SSL"]),
        "timeout": parsed["EMAIL_TIMEOUT"] or DEFAULT_TIMEOUT,
        "file_path": parsed["EMAIL_FILE_PATH"] or "",
        "default_from": parsed.get("DEFAULT_FROM_EMAIL", ""),
        "server_email": parsed.get("SERVER_EMAIL", ""),
    }
    if scheme == "file" and not fields["file_path"]:
        errors.append("EMAIL_URL file:// needs a folder, e.g. file:///var/mail/caishen")
    return fields


def _from_separate(read: Callable[[str], str], errors: list[str]) -> dict[str, object]:
    """``read``: a variable's trimmed value, "" when unset."""
    fields: dict[str, object] = {"backend": SMTP, "host": read("EMAIL_HOST")}
    fields["user"] = read("EMAIL_HOST_USER")
    fields["password"] = read("EMAIL_HOST_PASSWORD")
    for name, key in (("EMAIL_USE_TLS", "use_tls"), ("EMAIL_USE_SSL", "use_ssl")):
        if read(name):
            try:
                fields[key] = parse_bool(read(name))
            except ValueError as exc:
                errors.append(f"{name} {exc}")
    for name, key, low, high in (("EMAIL_PORT", "port", 1, 65535), ("EMAIL_TIMEOUT", "timeout", 1, 3600)):
        if read(name):
            raw = read(name)
            if not raw.isdigit() or not low <= int(raw) <= high:
                errors.append(f"{name} must be a whole number from {low} to {high}, not {raw!r}")
            else:
                fields[key] = int(raw)
    return fields
