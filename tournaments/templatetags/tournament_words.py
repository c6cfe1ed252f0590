"""The tournament pages' words for stored values: a rule set's key becomes its display name,
and the status codes of events, registrations and tables become words in the reader's
language (the models keep their codes as the stored values and the API's fields)."""

from __future__ import annotations

from django import template
from django.utils.functional import Promise
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
