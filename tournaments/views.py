"""Tournament pages: the list (with my events and my next tables), creating an event, an
event's page (registration, rounds, standings, the organiser's controls) and exports."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_POST

from games.models import Hand, Table
from games.records import disclosure
from tournaments import checkin, refusal_words, round_view, services
from tournaments.forms import TournamentForm
from tournaments.models import Registration, Tournament
from tournaments.templatetags.tournament_words import TIE_BREAKS


def me(request: HttpRequest) -> User:
    return cast(User, request.user)


def may_see_standings(user: Any, t: Tournament) -> bool:
    return t.published or (user.is_authenticated and user.pk == t.organiser_id)


def index(request: HttpRequest) -> HttpResponse:
    events = Tournament.objects.exclude(status=Tournament.DRAFT)
    mine: list[dict[str, Any]] = []
    organised = Tournament.objects.none()
    if request.user.is_authenticated:
        organised = Tournament.objects.filter(organiser=request.user)
        for reg in Registration.objects.filter(user=request.user).exclude(status=Registration.WITHDRAWN):
            t = services.sync_status(reg.tournament)
            mine.append({"event": t, "status": reg.status, "table": services.next_table(t, me(request))})
    return render(
        request, "tournaments/index.html", {"events": events[:200], "mine": mine, "organised": organised[:100]}
    )


@login_required
def create(request: HttpRequest) -> HttpResponse:
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        try:
            t = services.create_tournament(me(request), data.pop("name"), data.pop("variant"), {}, **data)
        except services.Refused as exc:
            form.add_error(None, str(exc))
        else:
            return redirect("tournaments:detail", pk=t.pk)
    return render(request, "tournaments/create.html", {"form": form}, status=400 if request.method == "POST" else 200)


def detail(request: HttpRequest, pk: int) -> HttpResponse:
    t = services.sync_status(get_object_or_404(Tournament, pk=pk))
    user = request.user
    is_organiser = user.is_authenticated and user.pk == t.organiser_id
    if t.status == Tournament.DRAFT and not is_organiser:
        raise Http404("no such event")
    reg = t.registrations.filter(user=user).first() if user.is_authenticated else None
    rounds = []
    for rnd in t.round_set.prefetch_related("tables__seats__user", "tables__table", "seats__user"):
        over = services.round_over(rnd)
        rounds.append(
            {
                "round": rnd,
                "over": over,
                "tables": [
                    {"link": link, "hands": _replay_links(link.table, withholding=t.duplicate and not over)}
                    for link in rnd.tables.all()
                ],
                "byes": [s.user for s in rnd.seats.all() if s.round_table_id is None and s.user and not s.absent],
                "absent": [s.user for s in rnd.seats.all() if s.absent and s.user],
            }
        )
    context = {
        "event": t,
        "is_organiser": is_organiser,
        "can_run": round_view.may_run(user, t),  # the live round page: organiser and staff
        "registration": reg,
        "registered": t.registrations.filter(status=Registration.REGISTERED).select_related("user"),
        "waiting": t.registrations.filter(status=Registration.WAITING).select_related("user"),
        "rounds": rounds,
        "next_table": services.next_table(t, me(request)) if user.is_authenticated else None,
        "check_in": checkin.window(t),
        "checked_in": user.is_authenticated and checkin.checked_in(t, me(request)),
        "standings": _with_round_columns(t) if may_see_standings(user, t) else None,
        "round_numbers": list(range(1, t.rounds + 1)),
        "tie_breaks": TIE_BREAKS,  # services.TIE_BREAKS in the reader's language
    }
    return render(request, "tournaments/detail.html", context)


def _replay_links(table: Table, withholding: bool) -> list[dict[str, Any]]:
    """The table's finished hands for the page, each with whether its replay may be linked: in a
    duplicate round still being played, a hand opens only once every table has finished it
    (``games.records.disclosure``; over rounds and other events have nothing to hold back)."""
    hands = table.hands.filter(status=Hand.FINISHED).order_by("number")
    return [{"hand": h, "open": not withholding or disclosure.may_disclose(h)} for h in hands]


def _with_round_columns(t: Tournament) -> list[Any]:
    rows = services.standings(t).rows
    for r in rows:
        r.round_list = [r.rounds.get(n, "") for n in range(1, t.rounds + 1)]  # type: ignore[attr-defined]
    return rows


def _act(request: HttpRequest, pk: int, fn: Any) -> HttpResponse:
    try:
        fn()
    except services.Refused as exc:
        messages.error(request, refusal_words.in_words(exc))
    return redirect("tournaments:detail", pk=pk)


@login_required
@require_POST
def register(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, lambda: services.register(pk, me(request)))


@login_required
@require_POST
def check_in(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, lambda: checkin.check_in(pk, me(request)))


@login_required
@require_POST
def withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, lambda: services.withdraw(pk, me(request)))


@login_required
@require_POST
def manage(request: HttpRequest, pk: int) -> HttpResponse:
    """The organiser's controls: open/close registration, start a round, substitute, publish."""
    do = request.POST.get("do")
    user = me(request)
    User = get_user_model()

    def substitute() -> None:
        absent = User.objects.filter(username=request.POST.get("absent", "")).first()
        name = request.POST.get("replacement", "").strip()
        replacement = User.objects.filter(username=name).first() if name else None
        if absent is None or (name and replacement is None):
            raise services.Refused("no such player")
        services.substitute(pk, user, absent, replacement)

    def schedule() -> None:
        checkin.schedule(pk, user, announced_start(request.POST.get("at", "")))

    actions = {
        "schedule": schedule,
        "open": lambda: services.open_registration(pk, user),
        "close": lambda: services.close_registration(pk, user),
        "start_round": lambda: services.start_round(pk, user),
        "publish": lambda: services.publish(pk, user, True),
        "unpublish": lambda: services.publish(pk, user, False),
        "substitute": substitute,
        "open_check_in": lambda: checkin.open_window(pk, user),
    }
    if do not in actions:
        messages.error(request, refusal_words.in_words("unknown action"))
        return redirect("tournaments:detail", pk=pk)
    return _act(request, pk, actions[do])


def announced_start(raw: str) -> datetime | None:
    """The organiser's next-round time from the page's ``datetime-local`` field (the reader's
    time zone, the site's); empty clears it."""
    raw = raw.strip()
    if not raw:
        return None
    at = parse_datetime(raw.replace(" ", "T"))
    if at is None:
        raise services.Refused("the time must be a date and time, e.g. 2026-12-05 19:30")
    return timezone.make_aware(at) if timezone.is_naive(at) else at


def _visible(request: HttpRequest, pk: int) -> Tournament:
    t = get_object_or_404(Tournament, pk=pk)
    if not may_see_standings(request.user, t):
        raise Http404("the standings are not published")
    return t


def standings_csv(request: HttpRequest, pk: int) -> HttpResponse:
    t = _visible(request, pk)
    res = HttpResponse(services.standings_csv(t), content_type="text/csv; charset=utf-8")
    res["Content-Disposition"] = f'attachment; filename="event-{t.pk}-standings.csv"'
    return res


def results_csv(request: HttpRequest, pk: int) -> HttpResponse:
    t = _visible(request, pk)
    res = HttpResponse(services.results_csv(t), content_type="text/csv; charset=utf-8")
    res["Content-Disposition"] = f'attachment; filename="event-{t.pk}-results.csv"'
    return res


def standings_json(request: HttpRequest, pk: int) -> HttpResponse:
    t = _visible(request, pk)
    res = JsonResponse(services.standings_json(t), json_dumps_params={"ensure_ascii": False})
    res["Content-Disposition"] = f'attachment; filename="event-{t.pk}-standings.json"'
    return res
