"""The tournament refusals a page shows, in the reader's language.

Services raise ``Refused`` with an English reason (the API's ``detail`` stays English, as
everywhere in the API); a page shows it through :func:`in_words`, which looks the reason up in
the catalogue.  The fixed reasons are listed here so that they are extracted for translation;
a reason that names a player or a number is shown as written.
"""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

REASONS = (
    gettext_noop("this event has no check-in"),
    gettext_noop("check-in is not open"),
    gettext_noop("you are not registered"),
    gettext_noop("only the organiser may do this"),
    gettext_noop("only the organiser or staff may do this"),
    gettext_noop("every round has been played"),
    gettext_noop("registration is not open"),
    gettext_noop("close registration first"),
    gettext_noop("the current round is still being played"),
    gettext_noop("no round is being played"),
    gettext_noop("a chair is 0 to 3"),
    gettext_noop("no such player"),
    gettext_noop("unknown action"),
    gettext_noop("players are replaced during a round only at score-only events: substitute between rounds"),
    gettext_noop("the table must be a number"),
    gettext_noop("the chair must be a number"),
    gettext_noop("the time must be a date and time, e.g. 2026-12-05 19:30"),
)


def in_words(reason: object) -> str:
    """A refusal's reason in the reader's language (as written if the catalogue lacks it)."""
    return gettext(str(reason))
