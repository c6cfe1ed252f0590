"""The organiser's live round page (``/tournaments/<id>/round/``) and its actions: replace a
seated player from the next hand, abort a table.  Only the organiser and staff see it; anyone
else gets a 404, as for a page that is not there."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from tournaments import refusal_words, round_actions, round_view, services
from tournaments.models import EventLog, Tournament
from tournaments.views import me

LOG_SHOWN = 100  # the latest entries of the event's log on the page


def _runnable(request: HttpRequest, pk: int) -> Tournament:
    t = get_object_or_404(Tournament, pk=pk)
    if not round_view.may_run(request.user, t):
        raise Http404("no such page")
    return services.sync_status(t)


@login_required
@require_GET
def live_round(request: HttpRequest, pk: int) -> HttpResponse:
    t = _runnable(request, pk)
    log = list(EventLog.objects.filter(tournament=t).select_related("actor").order_by("-at", "-pk")[:LOG_SHOWN])
    context = {
        "event": t,
        "live": round_view.live_round(t),
        "log": log,
        "positions": range(4),
    }
    return render(request, "tournaments/round.html", context)


def _number(raw: str | None, what: str) -> int:
    try:
        return int(raw or "")
    except ValueError:
        raise services.Refused(f"{what} must be a number") from None  # (both listed in refusal_words)


@login_required
@require_POST
def act(request: HttpRequest, pk: int) -> HttpResponse:
    """``do=replace`` (``table``, ``position``, ``replacement``: a username, empty for a bot) or
    ``do=abort`` (``table``)."""
    t = _runnable(request, pk)
    do = request.POST.get("do")
    try:
        table = _number(request.POST.get("table"), "the table")
        if do == "replace":
            position = _number(request.POST.get("position"), "the chair")
            name = request.POST.get("replacement", "").strip()
            replacement = get_user_model().objects.filter(username=name).first() if name else None
            if name and replacement is None:
                raise services.Refused("no such player")
            round_actions.replace(t.pk, me(request), table, position, replacement)
        elif do == "abort":
            round_actions.abort(t.pk, me(request), table)
        else:
            raise services.Refused("unknown action")
    except services.Refused as exc:
        messages.error(request, refusal_words.in_words(exc))
    return redirect("tournaments:round", pk=t.pk)
