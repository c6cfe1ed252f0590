"""The games REST API: rule sets with their options schemas, tables, seat actions, finished hands.

Session authentication with CSRF (the project's DRF defaults).  Tables change only
through ``games.services``; a ``Refused`` becomes ``400 {"detail": reason}``.  A
private table is visible (``can_open``) to its owner, its players and whoever
joined with its room code; to anyone else it does not exist (404).

Hands: ``/api/hands/<id>/`` serves only finished hands, and renders the event log
for the public (``Event.for_seat(None)``): a running hand's concealed tiles never
leave the server through this API.  A finished hand whose deal is still being played at
another table (duplicate tournament rounds) is *withheld* (``games.records.disclosure``): its record,
replay and verification answer 403 until every table has finished it.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import permissions, serializers, status
from rest_framework.parsers import BaseParser, FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView

from core.client_address import client_address, rate_limit_bucket
from core.limits import POSITIVE_SMALL_MAX, STAKE_MAX
from core.serializers import StrictJSONTypes
from games import services
from games.engine import SEATS, all_variants, get_variant
from games.models import Hand, Seat, Table
from games.records import disclosure
from games.records.rebuild import event_log
from games.rules.rule_set_names import rule_set_name
from games.services import overload
from games.services.access import can_open, held_position, remember_room_code, state_for_reader
from games.web import join_limits
from games.web.refusal_text import refusal_text
from games.web.views import LISTED_STATUSES, with_seat_counts

# ------------------------------------------------------------------------ serializers


class OptionSerializer(serializers.Serializer):
    key = serializers.CharField()
    type = serializers.ChoiceField(choices=["bool", "int", "str"])
    default = serializers.JSONField()
    label = serializers.CharField()
    choices = serializers.ListField(child=serializers.JSONField())
    minimum = serializers.IntegerField(allow_null=True)
    maximum = serializers.IntegerField(allow_null=True)
    house = serializers.BooleanField(
        help_text="A HOUSE value: the source text is silent, spec/rules/SPEC.md chose the default."
    )
    help = serializers.CharField(allow_blank=True)


class RuleSetSerializer(serializers.Serializer):
    key = serializers.CharField()
    display_name = serializers.CharField()
    source = serializers.CharField(help_text="The rule document in spec/rules/.")
    spec_section = serializers.CharField(help_text="Its section of spec/rules/SPEC.md, e.g. D0.")
    options = OptionSerializer(many=True)
    rules_url = serializers.CharField(help_text="The rules page.")


def ruleset_data(key: str) -> dict[str, Any]:
    variant = get_variant(key)
    return {**variant.describe(), "rules_url": reverse("games:rule", args=[variant.key])}


class TableSerializer(serializers.ModelSerializer):
    variant_name = serializers.SerializerMethodField()
    owner = serializers.CharField(source="owner.get_username", read_only=True)
    seats_taken = serializers.SerializerMethodField()
    room_code = serializers.SerializerMethodField(help_text="Private tables only: the code to invite players.")
    url = serializers.SerializerMethodField(help_text="The table page.")

    class Meta:
        model = Table
        fields = [
            "id",
            "variant",
            "variant_name",
            "options",
            "stake",
            "hands_total",
            "hands_played",
            "turn_seconds",
            "claim_seconds",
            "is_private",
            "hints",
            "quick_play",
            "room_code",
            "status",
            "owner_id",
            "owner",
            "seats_taken",
            "created_at",
            "url",
        ]
        read_only_fields = fields

    def get_variant_name(self, table: Table) -> str:
        try:
            return rule_set_name(get_variant(table.variant).key)
        except ValueError:
            return table.variant

    def get_seats_taken(self, table: Table) -> int:
        taken = getattr(table, "seats_taken", None)
        if taken is None:
            taken = table.seats.filter(Q(user__isnull=False) | Q(is_bot=True)).count()
        return int(taken)

    def get_room_code(self, table: Table) -> str | None:
        # Every table this serializer renders is one the reader may open (can_open).
        return table.room_code if table.is_private else None

    def get_url(self, table: Table) -> str:
        return reverse("games:table", args=[table.pk])


class TableCreateSerializer(StrictJSONTypes, serializers.Serializer):
    # Ranges: the ones services.create_table enforces, with its messages, are in the help texts;
    # min_value/max_value are the columns' (core/limits.py), so no number reaches the
    # database unchecked whatever the service does, and the schema states the bounds.
    variant = serializers.CharField(max_length=32, help_text="A rule set key, e.g. zhejiang_caishen.")
    options = serializers.DictField(
        required=False, default=dict, help_text="Options of the rule set's schema; unset ones take their default."
    )
    stake = serializers.IntegerField(
        default=1, min_value=0, max_value=STAKE_MAX, help_text="底分/底注: wallet units per point (at least 1)."
    )
    hands_total = serializers.IntegerField(
        default=4, min_value=0, max_value=POSITIVE_SMALL_MAX, help_text="Hands in the match (1–64)."
    )
    turn_seconds = serializers.IntegerField(
        default=20, min_value=0, max_value=POSITIVE_SMALL_MAX, help_text="Seconds per turn (5–300)."
    )
    claim_seconds = serializers.IntegerField(
        default=8, min_value=0, max_value=POSITIVE_SMALL_MAX, help_text="Seconds per claim window (3–120)."
    )
    is_private = serializers.BooleanField(default=False, help_text="Unlisted; players join with the room code.")
    sit = serializers.BooleanField(
        default=False,
        help_text="true: you sit at the new table at once (when your available balance covers its minimum).",
    )
    hints = serializers.BooleanField(
        default=False, help_text="听牌 hints for the seated players; a table with hints is not rated."
    )


class QuickPlaySerializer(StrictJSONTypes, serializers.Serializer):
    variant = serializers.CharField(max_length=32, help_text="A rule set key, e.g. zhejiang_caishen.")
    stake = serializers.IntegerField(
        default=1, min_value=1, max_value=STAKE_MAX, help_text="底分/底注: wallet units per point (at least 1)."
    )
    bots = serializers.BooleanField(
        default=False,
        help_text="true: bots take the empty chairs and the match starts now; false: wait for people "
        "(CAISHEN_QUICK_PLAY_WAIT_SECONDS), then bots take the chairs still empty.",
    )


class SitSerializer(StrictJSONTypes, serializers.Serializer):
    position = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=3, help_text="A chair 0..3; any free one if omitted."
    )


class BotsSerializer(StrictJSONTypes, serializers.Serializer):
    level = serializers.ChoiceField(
        choices=[c for c, _ in Seat.BOT_LEVELS],
        required=False,
        default=Seat.STRONG,
        help_text="The bots' level: easy (the greedy bot) or strong (the default).",
    )


class ReadySerializer(StrictJSONTypes, serializers.Serializer):
    ready = serializers.BooleanField(default=True, help_text="true confirms the stake; false takes it back.")


class JoinSerializer(StrictJSONTypes, serializers.Serializer):
    room_code = serializers.CharField(max_length=16)


class HandEventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    seat = serializers.CharField(required=False, help_text="The acting seat wind, E being the dealer.")


class HandSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    number = serializers.IntegerField()
    dealer_position = serializers.IntegerField()
    winds = serializers.DictField(child=serializers.CharField(), help_text="Chair → seat wind in this hand.")
    result = serializers.JSONField(help_text="status, winner, from, self_drawn, deltas (points per wind), breakdown.")
    deltas = serializers.DictField(child=serializers.IntegerField(), help_text="Chair → wallet units settled.")
    seed = serializers.CharField()
    seed_hash = serializers.CharField(help_text="SHA-256 commitment shown while the hand ran.")
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField()
    revealed = serializers.DictField(child=serializers.CharField(), help_text="Seat wind → concealed hand at the end.")
    events = HandEventSerializer(many=True, help_text="The public event log, in order.")
    replay_url = serializers.CharField(help_text="The replay viewer (牌谱) page.")
    replay_jsonl = serializers.CharField(help_text="The replay as JSON lines, re-validated on import.")
    analysis = serializers.CharField(help_text="The engine's judgement of every decision, with a per-seat summary.")


class HandSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = Hand
        fields = ["id", "number", "dealer_position", "status", "deltas", "seed_hash", "started_at", "finished_at"]
        read_only_fields = fields


DETAIL = OpenApiResponse(OpenApiTypes.OBJECT, description='`{"detail": reason}`')
STATE = OpenApiResponse(
    OpenApiTypes.OBJECT, description="The table snapshot, as the socket sends it (docs/protocol.md)."
)


# A saturated server process refuses new tables and matches (games/services/overload.py); running ones
# go on.  Documented on the operations that can start one.
BUSY = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description='`{"detail": reason}`: this server process is saturated and starts no new table or match '
    "for now (running matches are not affected). Try again after `Retry-After` seconds.",
)
RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    location=OpenApiParameter.HEADER,
    response=[503],
    description="Seconds to wait before trying again.",
)


class AnonymousHeavyWork(AnonRateThrottle):
    """Work an anonymous client may ask for that costs a lot (a replay replayed through the
    engine, a hand's deal verified): bounded per client address instead of being counted as the
    tables' load (games/services/overload.py), so that one client cannot slow everyone down.  Signed-in
    clients are not limited here (their accounts are)."""

    scope = "anonymous_heavy"
    rate = "30/min"

    def get_ident(self, request: Request) -> str:
        # The site's own reading of the client's address (behind a proxy: CAISHEN_CLIENT_IP_HEADER).
        return rate_limit_bucket(client_address(request._request))


THROTTLED = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description='`{"detail": reason}`: too many such requests from this address without an account; '
    "wait `Retry-After` seconds (signed-in clients are not limited here).",
)
THROTTLED_RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    location=OpenApiParameter.HEADER,
    response=[429],
    description="Seconds to wait before trying again.",
)


# ----------------------------------------------------------------------------- helpers
def busy(exc: overload.Overloaded) -> Response:
    """503 with Retry-After: the process is saturated (games/services/overload.py), not the request wrong."""
    return Response(
        {"detail": str(exc)},
        status=status.HTTP_503_SERVICE_UNAVAILABLE,
        headers={"Retry-After": str(exc.retry_after)},
    )


def refused(reason: str, code: int = status.HTTP_400_BAD_REQUEST) -> Response:
    return Response({"detail": reason}, status=code)


def invalid(errors: Any) -> Response:
    """A 400 whose ``detail`` reads as one sentence, with DRF's per-field errors beside it."""
    detail = "invalid request"
    first = next(iter(errors.items()), None) if isinstance(errors, dict) else None
    if first is not None:
        field, messages = first
        message = messages[0] if isinstance(messages, list) and messages else messages
        detail = f"{field}: {message}" if field != "non_field_errors" else str(message)
    return Response({"detail": detail, "errors": errors}, status=status.HTTP_400_BAD_REQUEST)


def visible_table(request: Request, pk: int) -> Table:
    table = get_object_or_404(Table, pk=pk)
    if not can_open(request.user, request.session, table):
        raise Http404("no such table")
    return table


def state(request: Request, table: Table) -> dict[str, Any]:
    table.refresh_from_db()
    user = request.user if request.user.is_authenticated else None
    data = state_for_reader(table, user)  # watchers get the delayed public view: no side door
    return {**data, "room_code": table.room_code if table.is_private else None}


# ------------------------------------------------------------------------------ rule sets
@extend_schema(summary="Every rule set with its options schema", responses=RuleSetSerializer(many=True), tags=["rules"])
class RuleSetListView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request) -> Response:
        return Response([ruleset_data(v.key) for v in all_variants()])


@extend_schema(
    summary="One rule set with its options schema",
    responses={200: RuleSetSerializer, 404: DETAIL},
    tags=["rules"],
)
class RuleSetDetailView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, key: str) -> Response:
        try:
            return Response(ruleset_data(key))
        except ValueError:
            return refused(f"no rule set {key!r}", status.HTTP_404_NOT_FOUND)


# --------------------------------------------------------------------------------- tables
@extend_schema_view(
    get=extend_schema(
        summary="Public tables and your own",
        description="Public tables that wait or play, and every unfinished table you own or sit at. "
        "Filter with `variant` and `status`.",
        parameters=[
            OpenApiParameter("variant", str, description="A rule set key."),
            OpenApiParameter("status", str, enum=[s for s, _ in Table.STATUSES]),
        ],
        responses={200: TableSerializer(many=True), 400: DETAIL},
        tags=["tables"],
    ),
    post=extend_schema(
        summary="Create a table",
        description="Options are validated by the rule set's schema; a refusal answers 400 with its reason. "
        'A saturated server answers 503 with `Retry-After` (docs/operations.md, "Overload").',
        request=TableCreateSerializer,
        parameters=[RETRY_AFTER],
        responses={201: TableSerializer, 400: DETAIL, 403: DETAIL, 503: BUSY},
        tags=["tables"],
    ),
)
class TableListView(APIView):
    def get_permissions(self) -> list[permissions.BasePermission]:
        if self.request.method == "GET":
            return [permissions.AllowAny()]
        return [permissions.IsAuthenticated()]

    def get_queryset(self) -> QuerySet[Table]:
        request = self.request
        visible = Q(is_private=False)
        if request.user.is_authenticated:
            visible |= Q(owner=request.user) | Q(pk__in=Table.objects.filter(seats__user=request.user).values("pk"))
        tables = Table.objects.filter(visible).select_related("owner")
        wanted = request.query_params.get("status")  # get() refused any but the table statuses
        tables = tables.filter(status=wanted) if wanted else tables.filter(status__in=LISTED_STATUSES)
        if variant := request.query_params.get("variant"):
            tables = tables.filter(variant=variant)
        return with_seat_counts(tables)

    def get(self, request: Request) -> Response:
        wanted = request.query_params.get("status")
        if wanted is not None and wanted not in dict(Table.STATUSES):
            # Was an empty list: a typo'd filter looked like "no tables" (schemathesis found it).
            known = ", ".join(s for s, _ in Table.STATUSES)
            return refused(f"unknown status {wanted!r}; one of {known}")
        return Response(TableSerializer(self.get_queryset()[:200], many=True).data)

    def post(self, request: Request) -> Response:
        serializer = TableCreateSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid(serializer.errors)
        try:
            data = dict(serializer.validated_data)
            table = services.create_table(request.user, seat_owner=data.pop("sit"), **data)
        except overload.Overloaded as exc:
            return busy(exc)
        except services.Refused as exc:
            return refused(refusal_text(exc))
        if table.is_private:
            remember_room_code(request.session, table)
        return Response(TableSerializer(table).data, status=status.HTTP_201_CREATED)


@extend_schema(
    summary="A table's snapshot",
    description="What the table socket sends on connect: the table, its seats and the running hand "
    "rendered for you (your concealed tiles only if you sit there), plus `room_code` for a private table.",
    responses={200: STATE, 404: DETAIL},
    tags=["tables"],
)
class TableDetailView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, pk: int) -> Response:
        return Response(state(request, visible_table(request, pk)))


@extend_schema(
    summary="A table's finished hands",
    responses={200: HandSummarySerializer(many=True), 404: DETAIL},
    tags=["hands"],
)
class TableHandsView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, pk: int) -> Response:
        table = visible_table(request, pk)
        hands = table.hands.filter(status=Hand.FINISHED).order_by("number")
        rows = HandSummarySerializer(hands, many=True).data
        if held_position(list(table.seats.all()), request.user) is None:
            # A duplicate deal still played elsewhere: "finished", and not what it moved.
            secret = {h.pk for h in disclosure.withheld_hands(table)}
            for item in rows:
                if item["id"] in secret:
                    item["deltas"] = None
        return Response(rows)


class TableActionView(APIView):
    """A seat action on a table the reader may open; answers with the new snapshot."""

    def act(self, request: Request, table: Table) -> Any:
        raise NotImplementedError

    def post(self, request: Request, pk: int) -> Response:
        table = visible_table(request, pk)
        try:
            extra = self.act(request, table)
        except overload.Overloaded as exc:  # only where a match would start: ready, bots
            return busy(exc)
        except services.Refused as exc:
            return refused(refusal_text(exc))
        except serializers.ValidationError as exc:
            return invalid(exc.detail)
        data = state(request, table)
        if isinstance(extra, dict):
            data.update(extra)
        return Response(data)


@extend_schema(
    summary="Sit at a table",
    description="Needs a balance of at least the table's minimum (a multiple of the stake). "
    "`position` picks a chair; without it the first free one.",
    request=SitSerializer,
    responses={200: STATE, 400: DETAIL, 403: DETAIL, 404: DETAIL},
    tags=["tables"],
)
class SitView(TableActionView):
    def act(self, request: Request, table: Table) -> None:
        data = SitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.sit(table.pk, request.user, data.validated_data.get("position"))


@extend_schema(
    summary="Leave your seat",
    description="Before the match: the chair is free again. During the match: a bot plays your seat (托管) to the end.",
    request=None,
    responses={200: STATE, 400: DETAIL, 403: DETAIL, 404: DETAIL},
    tags=["tables"],
)
class StandView(TableActionView):
    def act(self, request: Request, table: Table) -> None:
        services.stand(table.pk, request.user)


@extend_schema(
    summary="Ready up (confirm the stake) or take it back",
    description="Four ready seats start the match. A saturated server starts none: 503 with `Retry-After`, "
    "the seat stays unready.",
    request=ReadySerializer,
    responses={200: STATE, 400: DETAIL, 403: DETAIL, 404: DETAIL, 503: BUSY},
    parameters=[RETRY_AFTER],
    tags=["tables"],
)
class ReadyView(TableActionView):
    def act(self, request: Request, table: Table) -> None:
        data = ReadySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.set_ready(table.pk, request.user, data.validated_data["ready"])


@extend_schema(
    summary="Fill the empty seats with bots (owner only)",
    description="Bots of the chosen `level` (easy or strong, the default) are ready at once; with the other "
    "seats ready the match starts. Answers with `added`. "
    "A saturated server starts no match: 503 with `Retry-After`, nothing changed.",
    request=BotsSerializer,
    responses={200: STATE, 400: DETAIL, 403: DETAIL, 404: DETAIL, 503: BUSY},
    parameters=[RETRY_AFTER],
    tags=["tables"],
)
class BotsView(TableActionView):
    def act(self, request: Request, table: Table) -> dict[str, int]:
        data = BotsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return {"added": services.add_bots(table.pk, request.user, data.validated_data["level"])}


@extend_schema(
    summary="Quick play: a seat at a table of this rule set and stake, now",
    description="Seats you, ready (the stake confirmed), at the oldest public quick-play table of the rule "
    "set and stake that waits for players, or at a new one (the rule set's default options, 4 hands). "
    "`bots: true` fills the empty chairs with bots and starts the match at once; without, the table waits "
    "`CAISHEN_QUICK_PLAY_WAIT_SECONDS` (30 by default) for people, then bots take the chairs still empty "
    "and the match starts, unless everyone has stood up (`/api/tables/<id>/stand/` cancels). "
    "A seat you held at another waiting quick-play table is given up. Answers the table "
    "(`url` opens it; `status` is `playing` once the match has started). A short wallet answers 400 as sitting does; "
    'a saturated server 503 with `Retry-After`, nothing changed (docs/operations.md, "Overload").',
    request=QuickPlaySerializer,
    parameters=[RETRY_AFTER],
    responses={200: TableSerializer, 400: DETAIL, 403: DETAIL, 503: BUSY},
    tags=["tables"],
)
class QuickPlayView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    def post(self, request: Request) -> Response:
        serializer = QuickPlaySerializer(data=request.data)
        if not serializer.is_valid():
            return invalid(serializer.errors)
        try:
            table = services.quick_play(request.user, **serializer.validated_data)
        except overload.Overloaded as exc:
            return busy(exc)
        except services.Refused as exc:
            return refused(refusal_text(exc))
        return Response(TableSerializer(with_seat_counts(Table.objects.filter(pk=table.pk)).get()).data)


@extend_schema(
    summary="Join a table by its room code",
    description="Remembers the code in your session, so the private table opens for you; answers its id.",
    request=JoinSerializer,
    responses={
        200: OpenApiResponse(OpenApiTypes.OBJECT, description='`{"id": 7, "url": "/tables/7/"}`'),
        400: DETAIL,
        404: DETAIL,
        429: OpenApiResponse(
            OpenApiTypes.OBJECT, description="Too many wrong room codes from this client: wait a few minutes."
        ),
    },
    tags=["tables"],
)
class JoinView(APIView):
    permission_classes = [permissions.AllowAny]

    def post(self, request: Request) -> Response:
        serializer = JoinSerializer(data=request.data)
        if not serializer.is_valid():
            return invalid(serializer.errors)
        if join_limits.is_refused(request._request):
            return refused(str(join_limits.TOO_MANY), status.HTTP_429_TOO_MANY_REQUESTS)
        code = "".join(serializer.validated_data["room_code"].split()).upper()
        table = Table.objects.filter(room_code=code).first()
        if table is None:
            join_limits.record_miss(request._request)
            return refused("no table has this room code", status.HTTP_404_NOT_FOUND)
        remember_room_code(request.session, table)
        return Response({"id": table.pk, "url": reverse("games:table", args=[table.pk])})


# ---------------------------------------------------------------------------------- hands
def hand_record(row: Hand) -> dict[str, Any]:
    """A finished hand for everyone: the public event log, then every hand revealed at its end."""
    events = []
    revealed = None
    for seq, event in event_log(row):
        public = event.for_seat(None)
        if public["kind"] == "hand_end":
            revealed = public.get("hands")
        events.append({"seq": seq, **public})
    return {
        "id": row.pk,
        "table": row.table_id,
        "number": row.number,
        "dealer_position": row.dealer_position,
        "winds": {str(p): SEATS[row.engine_seat(p)] for p in range(4)},
        "result": row.result,
        "deltas": row.deltas,
        "seed": row.seed,
        "seed_hash": row.seed_hash,
        "started_at": row.started_at,
        "finished_at": row.finished_at,
        "revealed": revealed,
        "events": events,
        "replay_url": reverse("games:hand_replay", args=[row.pk]),
        "replay_jsonl": reverse("games_api:hand_replay", args=[row.pk]),
        "analysis": reverse("games_api:hand_analysis", args=[row.pk]),
    }


@extend_schema(
    summary="A finished hand",
    description="Result, deltas per chair (wallet units), the seed and its hash, the public event log and "
    "the hands revealed at the end. A hand still being played answers 403: its tiles stay hidden; so does a "
    "duplicate-round hand until every table of the round has finished it (`detail` says so).",
    responses={200: HandSerializer, 403: DETAIL, 404: DETAIL},
    tags=["hands"],
)
class HandView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, pk: int) -> Response:
        row = get_object_or_404(Hand.objects.select_related("table"), pk=pk)
        if not can_open(request.user, request.session, row.table):
            raise Http404("no such hand")
        if row.status != Hand.FINISHED:
            return refused("the hand is still being played; its record opens when it ends", status.HTTP_403_FORBIDDEN)
        if disclosure.withheld(row):
            return refused(disclosure.WITHHELD, status.HTTP_403_FORBIDDEN)
        return Response(hand_record(row))


@extend_schema(
    summary="A finished hand's replay (牌谱) as JSON lines",
    description="One JSON object a line: a header (rule set, options, context, the seed and its hash, the "
    "dealt hands and wall in tile notation, the engine snapshot as dealt), then each action followed by "
    "its events, then an end line with the result. `games.records.replay.load` re-validates it through the "
    "engine. A hand still being played, or a duplicate-round hand not yet finished at every table, answers 403.",
    responses={
        (200, "application/jsonl"): OpenApiResponse(OpenApiTypes.STR, description="JSON lines"),
        403: DETAIL,
        404: DETAIL,
    },
    tags=["hands"],
)
def openable_hand(request: Request, pk: int) -> Hand:
    """The hand ``pk`` with its table, if the reader may open that table (else 404)."""
    row = get_object_or_404(Hand.objects.select_related("table"), pk=pk)
    if not can_open(request.user, request.session, row.table):
        raise Http404("no such hand")
    return row


def not_replayable(row: Hand, exc: Exception) -> Response:
    """A replay (or its analysis) refused: 403 while it may still open (the hand runs, or its
    duplicate deal is withheld), 404 when it never will (played before replays were kept)."""
    from games.records import replay

    not_yet = row.status != Hand.FINISHED or isinstance(exc, replay.Withheld)
    return refused(str(exc), status.HTTP_403_FORBIDDEN if not_yet else status.HTTP_404_NOT_FOUND)


class HandReplayView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, pk: int) -> Any:
        from django.http import HttpResponse

        from games.records import replay

        row = openable_hand(request, pk)
        try:
            text = replay.export_text(row)
        except replay.NotReplayable as exc:
            return not_replayable(row, exc)
        response = HttpResponse(text, content_type="application/jsonl; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="caishen-hand-{row.pk}.jsonl"'
        return response


@extend_schema(
    summary="The engine's analysis of a finished hand (every decision judged)",
    description="For every decision of the hand (a discard or self-drawn win on a seat's own turn, an "
    "answer to a claim offer), judged from that seat's view only: the distance from ready (向听) before and "
    "after, the unseen useful or waiting tiles of the choice, the three best choices by the same measure and "
    "whether the choice was clearly worse (`clear_mistake` with its `reason`: `passed_win`, "
    "`higher_distance`, `fewer_tiles`, `worsening_claim`; docs/api.md defines them). `summary`: per seat, "
    "the decisions, the clear mistakes and `ready_turns` (its own turns from first becoming ready to the "
    "end, or null). The same access as the replay: a hand still being played, or a duplicate-round hand not "
    "yet finished at every table, answers 403.",
    responses={200: OpenApiResponse(OpenApiTypes.OBJECT), 403: DETAIL, 404: DETAIL},
    tags=["hands"],
)
class HandAnalysisView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, pk: int) -> Response:
        from games.records import replay

        row = openable_hand(request, pk)
        try:
            analysis = replay.analysis_json(row)  # cached per hand: a long hand takes about a second
        except replay.NotReplayable as exc:  # refused exactly as the replay is
            return not_replayable(row, exc)
        return Response({"hand": row.pk, **analysis})


@extend_schema(
    summary="Verify a finished hand's wall against its seed (fair walls)",
    description="Re-derives the wall from the revealed seed (it must hash to the commitment shown when "
    "the hand began), checks it deals the recorded hands and wall, and replays every recorded action "
    "through the engine. Answers `ok` with the seed and its hash, or the failing `line` and `reason`.",
    responses={200: OpenApiResponse(OpenApiTypes.OBJECT), 403: DETAIL, 404: DETAIL, 429: THROTTLED},
    parameters=[THROTTLED_RETRY_AFTER],
    tags=["hands"],
)
class HandVerifyView(APIView):
    permission_classes = [permissions.AllowAny]
    throttle_classes = [AnonymousHeavyWork]

    def get(self, request: Request, pk: int) -> Any:
        from games.records import replay

        row = get_object_or_404(Hand.objects.select_related("table"), pk=pk)
        if not can_open(request.user, request.session, row.table):
            raise Http404("no such hand")
        if row.status != Hand.FINISHED:
            return refused("the seed is revealed only when the hand ends", status.HTTP_403_FORBIDDEN)
        if disclosure.withheld(row):
            return refused(disclosure.WITHHELD, status.HTTP_403_FORBIDDEN)
        return Response(replay.verify_hand(row))


class RawBodyParser(BaseParser):
    """The body as bytes, whatever its media type: a replay is JSON lines, not one JSON document
    or a form.  Reads one byte past ``max_bytes`` at most, so that the view can say "too large"."""

    media_type = "*/*"
    max_bytes = 2_000_000

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> bytes:
        return bytes(stream.read(self.max_bytes + 1)) if stream is not None else b""


@extend_schema(
    summary="Check a replay (JSON lines) by replaying it through the engine",
    description="Send the replay as the request body (`application/jsonl` or text). Answers the rule set, "
    "the number of actions and the result; a corrupted replay answers 400 with the `line` (1-based) and "
    "the `reason`. Nothing is stored.",
    request={"application/jsonl": OpenApiTypes.STR, "text/plain": OpenApiTypes.STR},
    responses={200: OpenApiResponse(OpenApiTypes.OBJECT), 400: DETAIL, 429: THROTTLED},
    parameters=[THROTTLED_RETRY_AFTER],
    tags=["hands"],
)
class ReplayCheckView(APIView):
    permission_classes = [permissions.AllowAny]
    throttle_classes = [AnonymousHeavyWork]
    # Through a parser, not request._request.body: a signed-in POST's CSRF check reads request.POST,
    # which makes DRF parse the body with the default (JSON, form) parsers first — the documented
    # application/jsonl would answer 415 to every signed-in user.
    # Forms keep their own parsers: Django's CSRF check reads a form's fields (request.POST), and
    # must get a form, not bytes.
    parser_classes = [FormParser, MultiPartParser, RawBodyParser]
    max_bytes = RawBodyParser.max_bytes

    def post(self, request: Request) -> Response:
        from games.records import replay

        if request.content_type.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
            return refused("send the replay as the request body (application/jsonl or text/plain), not as a form")
        body = request.data if isinstance(request.data, bytes) else b""  # no body at all: DRF's empty data
        if len(body) > self.max_bytes:
            return refused("the replay is too large")
        try:
            loaded = replay.loads(body.decode("utf-8"))
        except UnicodeDecodeError:
            return refused("the replay must be UTF-8 text")
        except replay.ReplayError as exc:
            return Response({"detail": str(exc), "line": exc.line, "reason": exc.reason}, status=400)
        assert loaded.final is not None and loaded.final.result is not None
        return Response(
            {
                "valid": True,
                "variant": loaded.header["variant"],
                "seed_hash": loaded.header.get("seed_hash"),
                "actions": len(loaded.steps),
                "result": loaded.final.result.to_json(),
            }
        )
