"""Rating pages: a rule set's leaderboard, a player's page (ratings, history graph, statistics)
and a tournament organiser's statistics export."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from games.engine import all_variants, get_variant
from ratings import bot_ladder, services
from ratings.chart import history_chart
from ratings.elo import INITIAL
from ratings.event_stats import event_stats_csv
from ratings.stats import player_stats, variants_played
from tournaments.models import Tournament


def variant_keys() -> list[str]:
    return [v.key for v in all_variants()]


def rule_set(key: str) -> Any:
    if key not in variant_keys():
        raise Http404("no such rule set")
    return get_variant(key)


@require_safe  # read-only pages: a POST is refused (405), never taken as a read
def index(request: HttpRequest) -> HttpResponse:
    return redirect("ratings:leaderboard", variant=variant_keys()[0])


@require_safe  # read-only pages: a POST is refused (405), never taken as a read
def leaderboard(request: HttpRequest, variant: str) -> HttpResponse:
    rules = rule_set(variant)
    page = services.leaderboard_page(variant, request.GET.get("page"))
    offset = (page.number - 1) * page.paginator.per_page
    return render(
        request,
        "ratings/leaderboard.html",
        {"rules": rules, "rule_sets": all_variants(), "page": page, "offset": offset},
    )


@require_safe  # read-only pages: a POST is refused (405), never taken as a read
def bot_leaderboard(request: HttpRequest, variant: str) -> HttpResponse:
    """A rule set's vs-bots ladder: matches against bots, apart from the people's leaderboard."""
    rules = rule_set(variant)
    page = bot_ladder.ladder_page(variant, request.GET.get("page"))
    offset = (page.number - 1) * page.paginator.per_page
    return render(
        request,
        "ratings/bot_leaderboard.html",
        {"rules": rules, "rule_sets": all_variants(), "page": page, "offset": offset},
    )


def bot_ladder_panels(user: Any) -> list[dict[str, Any]]:
    """Per rule set played against bots: the ladder rating, matches, first places, last result."""
    panels = []
    for entry in bot_ladder.entries(user):
        panels.append(
            {
                "rules": get_variant(entry.variant),
                "rating": round(entry.value),
                "matches": entry.matches,
                "firsts": entry.firsts,
                "last": bot_ladder.latest(user, entry.variant),
            }
        )
    return panels


def rating_panels(user: Any) -> list[dict[str, Any]]:
    """Per rated rule set: the current rating, its match count and the history chart."""
    panels = []
    for key in services.rated_variants(user):
        changes = services.history(user, key)
        panels.append(
            {
                "rules": get_variant(key),
                "rating": round(changes[-1].after) if changes else round(INITIAL),
                "matches": len(changes),
                "chart": history_chart(changes[0].before if changes else INITIAL, [c.after for c in changes]),
            }
        )
    return panels


@require_safe  # read-only pages: a POST is refused (405), never taken as a read
def player(request: HttpRequest, username: str) -> HttpResponse:
    who = get_object_or_404(get_user_model(), username=username)
    played = variants_played(who)
    chosen = request.GET.get("variant") or (played[0] if played else variant_keys()[0])
    rules = rule_set(chosen)
    return render(
        request,
        "ratings/player.html",
        {
            "who": who,
            "panels": rating_panels(who),
            "bot_panels": bot_ladder_panels(who),
            # The biggest hands listed are those this reader may open (the replay's rule).
            "stats": player_stats(who, chosen, reader=request.user, session=request.session),
            "rules": rules,
            "played": [get_variant(k) for k in played],
        },
    )


@require_safe  # read-only pages: a POST is refused (405), never taken as a read
def tournament_stats_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The event's players' statistics as CSV: its organiser only (others: 403, or 404 for a
    draft event they cannot see)."""
    t = get_object_or_404(Tournament, pk=pk)
    if not request.user.is_authenticated or request.user.pk != t.organiser_id:
        if t.status == Tournament.DRAFT:
            raise Http404("no such event")
        return HttpResponse(_("Only the organiser may export the players' statistics."), status=403)
    res = HttpResponse(event_stats_csv(t), content_type="text/csv; charset=utf-8")
    res["Content-Disposition"] = f'attachment; filename="event-{t.pk}-player-stats.csv"'
    return res
