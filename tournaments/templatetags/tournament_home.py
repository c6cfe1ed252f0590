"""What the site's other pages show of tournaments: the home page's check-in prompts (a
button for each event whose check-in window is open for the signed-in player, who has not
checked in yet).  A template tag, so the games app's pages need not import tournaments."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments import checkin
from tournaments.models import Registration, Tournament

register = template.Library()


def open_check_ins(user: Any) -> list[dict[str, Any]]:
    """The player's events with an open check-in window they have not answered: one query for
    the entries, then one per event with check-in (a player is in few events at a time)."""
    if not user.is_authenticated:
        return []
    entries = Registration.objects.filter(
        user=user,
        status__in=(Registration.REGISTERED, Registration.WAITING),
        tournament__check_in=True,
        tournament__status__in=(Tournament.CLOSED, Tournament.RUNNING),
    ).select_related("tournament")
    out = []
    for reg in entries[:20]:
        t = reg.tournament
        window = checkin.window(t)
        if window.open and not checkin.checked_in(t, user):
            out.append({"event": t, "round": window.round_number})
    return out


@register.inclusion_tag("tournaments/_check_in_prompts.html", takes_context=True)
def check_in_prompts(context: dict[str, Any]) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    return {"prompts": open_check_ins(user) if user is not None else [], "csrf_token": context.get("csrf_token")}
