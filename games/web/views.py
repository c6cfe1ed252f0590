"""Pages of the games app: home, rules, the lobby, creating and joining tables, the table page.

Tables change only through ``games.services``; these views turn its ``Refused``
messages into form errors or flash messages.  Who may open a private table is
decided by ``games.services.access.can_open``, shared with the REST API and the table socket.
"""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db.models import Count, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games import services
from games.engine import all_variants, get_variant
from games.models import Hand, PlayerTableSettings, Seat, Table
from games.rules import option_text, player_text
from games.rules.rule_set_names import rule_set_name
from games.runtime.process import runtime
from games.services import overload
from games.services.access import can_open, remember_room_code, state_for_reader
from games.web import join_limits
from games.web.forms import JoinForm, LobbyFilterForm, TableForm, option_sets, variant_or_default
from games.web.refusal_text import refusal_text

LISTED_STATUSES = (Table.WAITING, Table.PLAYING)


def table_for(request: HttpRequest, pk: int) -> Table:
    """The table ``pk`` if this request may open it; 404 otherwise (a private table is not confirmed)."""
    table = get_object_or_404(Table, pk=pk)
    if not can_open(request.user, request.session, table):
        raise Http404("no such table")
    return table


def with_seat_counts(tables: QuerySet[Table]) -> QuerySet[Table]:
    return tables.annotate(
        seats_taken=Count("seats", filter=Q(seats__user__isnull=False) | Q(seats__is_bot=True))
    ).order_by("-created_at", "-pk")


def my_tables(user: Any) -> QuerySet[Table]:
    """Unfinished tables the user owns or sits at (a subquery: a join would skew the seat counts)."""
    seated = Table.objects.filter(seats__user=user).values("pk")
    return Table.objects.filter(Q(owner=user) | Q(pk__in=seated), status__in=LISTED_STATUSES)


def rows(tables: QuerySet[Table], limit: int) -> list[Table]:
    """The lobby's rows: seat counts annotated, each with its rule set's display name."""
    out = list(with_seat_counts(tables)[:limit])
    for t in out:
        t.variant_name = rule_set_name(t.variant)  # type: ignore[attr-defined]
    return out


def mark_my_seats(tables: list[Table], user: Any) -> list[Table]:
    """Set ``my_seat`` on the tables where ``user`` holds a chair: their row offers Play, never
    Watch (a tournament seats its players without their sitting down themselves)."""
    if not tables or not user.is_authenticated:
        return tables
    held = set(Seat.objects.filter(user=user, table__in=tables).values_list("table_id", flat=True))
    for t in tables:
        t.my_seat = t.pk in held  # type: ignore[attr-defined]
    return tables


def me(request: HttpRequest) -> User:
    """The signed-in user (behind ``login_required``)."""
    return cast(User, request.user)


# ----------------------------------------------------------------------------- pages
def home(request: HttpRequest) -> HttpResponse:
    """The landing page: what the platform is, quick play, which rule sets it plays, and the
    visitor's own running or waiting tables."""
    mine = mark_my_seats(rows(my_tables(request.user), 20), request.user) if request.user.is_authenticated else []
    context = {
        "variants": all_variants(),
        "my_tables": mine,
        "quick_play_stakes": QUICK_PLAY_STAKES,
        "quick_play_wait": settings.CAISHEN_QUICK_PLAY_WAIT_SECONDS,
    }
    return render(request, "games/home.html", context)


@login_required
@require_POST
def quick_play(request: HttpRequest) -> HttpResponse:
    """The home page's quick play (services.quick_play): a seat at once, then the table page.
    ``bots`` "1": bots fill the table and the match starts; else it waits for people first.
    A refusal (a short wallet, a busy server) is a message on the home page."""
    key = request.POST.get("variant", "")
    stake = request.POST.get("stake", "1")
    try:
        table = services.quick_play(
            me(request),
            key,
            int(stake) if stake in {str(n) for n in QUICK_PLAY_STAKES} else 1,
            request.POST.get("bots") == "1",
        )
    except services.Refused as exc:
        messages.error(request, refusal_text(exc))
        return redirect("games:home")
    return redirect("games:table", pk=table.pk)


# The stakes the home page offers for quick play (the API takes any).
QUICK_PLAY_STAKES = (1, 2, 5)


def rules_index(request: HttpRequest) -> HttpResponse:
    return render(request, "games/rules_index.html", {"variants": all_variants()})


def option_rows(variant: Any) -> list[dict[str, Any]]:
    """The rules page's options table in the reader's words: label, help, default and choices."""
    rows = []
    for option in variant.options_schema.all():
        if option.choices:
            allowed = " / ".join(option_text.choice_label(variant.key, option, c) for c in option.choices)
        elif option.type is bool:
            allowed = " / ".join(option_text.choice_label(variant.key, option, c) for c in (True, False))
        elif option.minimum is not None and option.maximum is not None:
            allowed = f"{option.minimum}–{option.maximum}"
        elif option.minimum is not None:
            allowed = f"≥ {option.minimum}"
        elif option.maximum is not None:
            allowed = f"≤ {option.maximum}"
        else:
            allowed = ""
        rows.append(
            {
                "key": option.key,
                "label": option_text.label(variant.key, option),
                "help": option_text.help_text(variant.key, option),
                "default": option_text.choice_label(variant.key, option, option.default),
                "allowed": allowed,
                "house": option.house,
            }
        )
    return rows


def rules_detail(request: HttpRequest, key: str) -> HttpResponse:
    try:
        variant = get_variant(key)
    except ValueError:
        raise Http404("no such rule set") from None
    html = player_text.render(variant.key)
    return render(
        request,
        "games/rules_detail.html",
        {
            "variant": variant,
            "options": option_rows(variant),
            "rules_html": mark_safe(html) if html is not None else None,  # noqa: S308 — our own files, HTML escaped
        },
    )


def lobby(request: HttpRequest) -> HttpResponse:
    """Public tables, filtered by rule set and status; the join-by-code form; the user's own tables."""
    filters = LobbyFilterForm(request.GET or None)
    tables = Table.objects.filter(is_private=False, status__in=LISTED_STATUSES)
    # Filter on the raw values: a rule set not (yet) registered simply has no tables.
    if variant := request.GET.get("variant"):
        tables = tables.filter(variant=variant)
    if (wanted := request.GET.get("status")) in LISTED_STATUSES:
        tables = tables.filter(status=wanted)
    mine = Table.objects.none()
    if request.user.is_authenticated:
        mine = my_tables(request.user)
    return render(
        request,
        "games/lobby.html",
        {
            "tables": rows(tables, 200),
            "my_tables": mark_my_seats(rows(mine, 50), request.user),
            "filters": filters,
            "join_form": JoinForm(),
            # Saturated (games/services/overload.py): said before anyone fills in a form that would be refused.
            "busy": overload.message() if runtime().monitor.refusing() else None,
        },
    )


@login_required
def create(request: HttpRequest) -> HttpResponse:
    """Create a table: the rule set (preselected by ``?variant=``), its options and the table's terms.

    One form: the rule set's list is part of it, so the table created is the one the list shows;
    the page's script swaps in the options of the rule set picked, and without the script the
    server does (``options_for``)."""
    key = request.POST.get("variant") if request.method == "POST" else request.GET.get("variant")
    variant = variant_or_default(key)
    refused = None
    switched = False
    retry_after: int | None = None
    shown = request.POST.get("options_for") if request.method == "POST" else None
    if request.method == "POST" and shown and shown != variant.key:
        # The list was changed in a browser without JavaScript: the page showed another rule
        # set's options.  Show this one's (at their defaults, the table's terms kept) rather
        # than create a table whose options the player never saw.
        form = TableForm(variant).with_table_terms_of(request.POST)
        switched = True
    elif request.method == "POST":
        form = TableForm(variant, request.POST)
        if form.is_valid():
            try:
                table = services.create_table(me(request), seat_owner=True, **form.create_kwargs())
            except services.Refused as exc:
                refused = refusal_text(exc)
                retry_after = exc.retry_after if isinstance(exc, overload.Overloaded) else None
            else:
                if table.is_private:
                    remember_room_code(request.session, table)
                return redirect("games:table", pk=table.pk)
    else:
        form = TableForm(variant)
    response = render(
        request,
        "games/create.html",
        {
            "form": form,
            "variant": variant,
            "variants": all_variants(),
            "refused": refused,
            "switched": switched,
            # Every other rule set's options, for the page's script to swap in at once.
            "option_sets": option_sets(exclude=variant.key),
        },
        status=(503 if retry_after is not None else 400) if request.method == "POST" and not switched else 200,
    )
    if retry_after is not None:  # the form is kept filled in: the player resubmits it later
        response["Retry-After"] = str(retry_after)
    return response


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest) -> HttpResponse:
    """Join a table by its room code: remember the code in the session and open the table."""
    if request.method == "GET":
        return redirect("games:lobby")
    form = JoinForm(request.POST)
    table = None
    status = 400
    if form.is_valid():
        if join_limits.is_refused(request):
            form.add_error("room_code", str(join_limits.TOO_MANY))
            status = 429
        else:
            table = Table.objects.filter(room_code=form.cleaned_data["room_code"]).first()
            if table is None:
                join_limits.record_miss(request)
                form.add_error("room_code", _("No table has this room code."))
    if table is None:
        filters = LobbyFilterForm()
        tables = Table.objects.filter(is_private=False, status__in=LISTED_STATUSES)
        return render(
            request,
            "games/lobby.html",
            {
                "tables": rows(tables, 200),
                "my_tables": [],
                "filters": filters,
                "join_form": form,
            },
            status=status,
        )
    remember_room_code(request.session, table)
    return redirect("games:table", pk=table.pk)


def invite_url(request: HttpRequest, table: Table) -> str:
    """The link a private table's owner shares: the table's address with its room code."""
    return request.build_absolute_uri(f"{reverse('games:table', args=[table.pk])}?code={table.room_code}")


def ask_for_code(request: HttpRequest, pk: int, form: JoinForm | None = None) -> HttpResponse:
    """The page for a table this browser may not open: a private table without its code, or no
    table at all — the same page and status for both, so a private table's id is not confirmed."""
    form = form or JoinForm()
    return render(request, "games/table_code.html", {"pk": pk, "join_form": form}, status=404)


def table(request: HttpRequest, pk: int) -> HttpResponse:
    """The live table: the page the browser's table module renders into (``games/table.html``).

    ``?code=`` (the owner's invite link) enters the room code as the join form does; a table
    this browser may not open answers with a page asking for the code (``ask_for_code``)."""
    found = Table.objects.filter(pk=pk).first()
    if "code" in request.GET and found is not None and not can_open(request.user, request.session, found):
        form = JoinForm({"room_code": request.GET["code"]})
        if not form.is_valid():
            return ask_for_code(request, pk, form)
        if join_limits.is_refused(request):
            form.add_error("room_code", str(join_limits.TOO_MANY))
            return ask_for_code(request, pk, form)
        if form.cleaned_data["room_code"] != found.room_code:
            join_limits.record_miss(request)
            form.add_error("room_code", _("No table has this room code."))
            return ask_for_code(request, pk, form)
        remember_room_code(request.session, found)
        return redirect("games:table", pk=pk)
    if found is None or not can_open(request.user, request.session, found):
        return ask_for_code(request, pk)
    table = found
    user = request.user if request.user.is_authenticated else None
    seated = user is not None and table.seats.filter(user=user).exists()
    context = {
        "table": table,
        "variant": get_variant(table.variant),
        "ws_path": f"/ws/table/{table.pk}/",
        "seated": seated,
        "is_owner": user is not None and table.owner_id == user.pk,
        "initial_state": state_for_reader(table, user),  # watchers: the delayed public view
        "min_balance": services.min_balance(table),
        "room_code": table.room_code if table.is_private else None,
        # Only the owner is offered the invite link (anyone inside may still read the code).
        "invite_url": invite_url(request, table)
        if table.is_private and user is not None and table.owner_id == user.pk
        else "",
        "finished_hands": list(table.hands.filter(status=Hand.FINISHED).order_by("number")),
        "api_base": reverse("games_api:table", args=[table.pk]),
        # Known at the first frame, before the page reads the settings: with auto-pass on, a
        # claim window shows nothing, not even for a moment.
        "auto_pass": user is not None and PlayerTableSettings.objects.filter(user=user, auto_pass_claims=True).exists(),
    }
    return render(request, "games/table.html", context)


# ------------------------------------------------------------- seat actions (HTML forms)
def _table_action(request: HttpRequest, pk: int, act: Any) -> HttpResponse:
    """Run one lobby service for a form POST; a refusal becomes a flash message on the table page."""
    table = table_for(request, pk)
    if request.method == "POST":
        try:
            act(table)
        except services.Refused as exc:
            messages.error(request, refusal_text(exc))
    return redirect("games:table", pk=table.pk)


@login_required
@require_http_methods(["GET", "POST"])  # GET only lands a signed-out visitor back on the table after login
def sit(request: HttpRequest, pk: int) -> HttpResponse:
    position = request.POST.get("position")
    # Chairs are 0-3 in ASCII: str.isdigit() also takes "²" and "５", which int() then refuses.
    chair = int(position) if position in ("0", "1", "2", "3") else None
    return _table_action(request, pk, lambda t: services.sit(t.pk, me(request), chair))


@login_required
@require_POST
def stand(request: HttpRequest, pk: int) -> HttpResponse:
    return _table_action(request, pk, lambda t: services.stand(t.pk, me(request)))


@login_required
@require_POST
def ready(request: HttpRequest, pk: int) -> HttpResponse:
    flag = request.POST.get("ready", "true").lower() not in ("0", "false", "no", "")
    return _table_action(request, pk, lambda t: services.set_ready(t.pk, me(request), flag))


@login_required
@require_POST
def bots(request: HttpRequest, pk: int) -> HttpResponse:
    level = request.POST.get("level", Seat.STRONG)
    return _table_action(request, pk, lambda t: services.add_bots(t.pk, me(request), level))


# --------------------------------------------------------------------------- replays
def hand_replay(request: HttpRequest, pk: int) -> HttpResponse:
    """The replay viewer (牌谱): step through a finished hand from any seat, or all hands open."""
    from games.records import replay

    row = get_object_or_404(Hand.objects.select_related("table"), pk=pk)
    if not can_open(request.user, request.session, row.table) or row.status != Hand.FINISHED:
        raise Http404("no such hand")
    try:
        data = replay.viewer_data(row)  # the analysis cached per hand
    except replay.Withheld:  # a duplicate deal still played at another table: say so, show nothing
        return render(request, "games/replay_withheld.html", {"hand": row}, status=403)
    except replay.NotReplayable:
        raise Http404("this hand has no replay") from None
    data["header"]["variant_name"] = rule_set_name(row.table.variant)
    data["header"]["winds"] = {str(p): "ESWN"[row.engine_seat(p)] for p in range(4)}
    data["header"]["names"] = {
        str(s.position): (
            _("Bot %(n)d") % {"n": s.position + 1} if s.is_bot or s.user is None else s.user.get_username()
        )
        for s in row.table.seats.select_related("user")
    }
    # The reader's own seat of this hand, if they played it: "my mistakes" are that seat's.
    reader = request.user.pk if request.user.is_authenticated else None
    mine = next((s.position for s in row.table.seats.all() if reader is not None and s.user_id == reader), None)
    data["header"]["reader_seat"] = "ESWN"[row.engine_seat(mine)] if mine is not None else None
    context = {
        "hand": row,
        "table": row.table,
        "replay": data,
        "download_url": reverse("games_api:hand_replay", args=[row.pk]),
    }
    return render(request, "games/replay.html", context)
