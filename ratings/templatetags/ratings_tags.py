"""Template tags that put ratings on other apps' pages without those apps importing this one:
the rating panels on the player's own profile, and the players' statistics on a tournament's
page for its organiser."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.inclusion_tag("ratings/_rating_panels.html")
def rating_panels(user: Any) -> dict[str, Any]:
    from ratings.views import rating_panels as panels

    return {"panels": panels(user)}


@register.inclusion_tag("ratings/_bot_ladder_panels.html")
def bot_ladder_panels(user: Any) -> dict[str, Any]:
    from ratings.views import bot_ladder_panels as panels

    return {"bot_panels": panels(user)}


@register.inclusion_tag("ratings/_event_stats.html")
def event_player_stats(event: Any) -> dict[str, Any]:
    from ratings.event_stats import event_stats

    return {"event": event, "rows": event_stats(event)}
