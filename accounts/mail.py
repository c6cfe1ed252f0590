"""Mail to a player: a subject and a plain-text body from two templates, in the reader's language.

The request's language is active while its view runs (LocaleMiddleware), so the templates'
translations follow the page the player was reading.  Where the mail goes is the email settings'
business (core/email_config.py): the console in the embedded mode, an SMTP server when set.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string

log = logging.getLogger(__name__)


def send(to: str, template: str, context: dict[str, Any]) -> bool:
    """Send ``accounts/email/<template>_subject.txt`` and ``<template>.txt`` to ``to``; False
    (and a logged error) when the mail server refused it or could not be reached."""
    # A header is one line: a subject template's trailing newline (or a translation's) must not
    # start a second one.
    subject = " ".join(render_to_string(f"accounts/email/{template}_subject.txt", context).split())
    body = render_to_string(f"accounts/email/{template}.txt", context)
    try:
        EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [to]).send()
    except OSError:  # smtplib's errors are OSErrors too: refused, unreachable, timed out
        log.exception("mail not sent", extra={"template": template})
        return False
    return True
