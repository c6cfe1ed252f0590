"""The tournament pages' words for stored values: a rule set's key becomes its display name,
and the status codes of events, registrations and tables become words in the reader's
language (the models keep their codes as the stored values and the API's fields)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.functional import Promise
from django.utils.translation import gettext as gettext_now
from django.utils.translation import gettext_lazy as _

from games.rules import rule_set_names as names

register = template.Library()

EVENT_STATUS: dict[str, Promise] = {
    "draft": _("Draft"),
    "registration": _("Registration open"),
    "closed": _("Registration closed"),
    "running": _("Running"),
    "finished": _("Finished"),
}
REGISTRATION_STATUS: dict[str, Promise] = {
    "registered": _("Registered"),
    "waiting": _("On the waiting list"),
    "withdrawn": _("Withdrawn"),
}
TABLE_STATUS: dict[str, Promise] = {
    "waiting": _("Waiting for players"),
    "playing": _("Playing"),
    "finished": _("Finished"),
    "aborted": _("Cancelled"),
}
# A chair's state on the organiser's round page (tournaments.round_view).
CHAIR_STATES: dict[str, Promise] = {
    "connected": _("Connected"),
    "offline": _("Offline"),
    "absent": _("Absent, on auto-play"),
    "auto_play": _("Auto-play"),
    "bot": _("Bot"),
    "left": _("Left the match"),
}
# The event log's actions (tournaments.checkin.log); the entries' details stay as written.
LOG_ACTIONS: dict[str, Promise] = {
    "check_in_opened": _("Check-in opened"),
    "round_scheduled": _("Round announced"),
    "absent": _("Absent"),
    "stand_in": _("Stand-in"),
    "replace_requested": _("Replacement asked"),
    "replaced": _("Replaced"),
    "replace_failed": _("Replacement not made"),
    "table_aborted": _("Table aborted"),
}
# The tie-breaks in services.TIE_BREAKS order (the CSV and JSON exports keep the English text).
TIE_BREAKS: tuple[Promise, ...] = (
    _("total points"),
    _("sum of table placings over the rounds played (1st = 1 … 4th = 4; lower is better; a bye counts 2.5)"),
    _("hands won"),
    _("registration order (earlier first)"),
)


@register.filter
def rule_set_name(key: str) -> str:
    """A rule set's display name (its key only if no rule set has it any more)."""
    return names.rule_set_name(key)


@register.filter
def event_status(code: str) -> str:
    return str(EVENT_STATUS.get(code, code))


@register.filter
def registration_status(code: str) -> str:
    return str(REGISTRATION_STATUS.get(code, code))


@register.filter
def table_status(code: str) -> str:
    return str(TABLE_STATUS.get(code, code))


@register.filter
def chair_state(chair: Any) -> str:
    """A chair's state in words; offline within the grace: "Offline, auto-play in 1:20"."""
    if chair.state == "offline" and chair.auto_play_in is not None:
        minutes, seconds = divmod(int(chair.auto_play_in), 60)
        return gettext_now("Offline, auto-play in %(time)s") % {"time": f"{minutes}:{seconds:02d}"}
    return str(CHAIR_STATES.get(chair.state, chair.state))


@register.filter
def log_action(code: str) -> str:
    return str(LOG_ACTIONS.get(code, code))


@register.filter
def duration(seconds: int | None) -> str:
    """Seconds as m:ss (h:mm:ss beyond an hour); empty for None."""
    if seconds is None:
        return ""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
