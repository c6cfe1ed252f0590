"""The tournaments REST API: events, registering and withdrawing, standings and results.

Session authentication with CSRF (the project's DRF defaults); a ``Refused`` becomes
``400 {"detail": reason}``.  Standings are the organiser's until published.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.limits import POSITIVE_SMALL_MAX, STAKE_MAX
from core.serializers import StrictJSONTypes
from tournaments import checkin, services
from tournaments.models import Tournament
from tournaments.views import may_see_standings


class TournamentSerializer(serializers.ModelSerializer):
    organiser = serializers.CharField(source="organiser.get_username", read_only=True)
    registered = serializers.SerializerMethodField()
    waiting = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = [
            "id", "name", "organiser", "variant", "options", "stake", "rounds", "hands_per_round",
            "turn_seconds", "claim_seconds", "seating", "fill", "duplicate", "max_players", "status",
            "published", "registered", "waiting", "check_in_minutes", "absentees", "next_round_at",
            "offline_grace_seconds",
        ]  # fmt: skip
        # An answer's shape only: events are created through CreateSerializer, whose numbers are
        # bounded; nothing writes through this one (and its model fields' ranges vary by backend).
        read_only_fields = fields

    def get_registered(self, t: Tournament) -> int:
        return t.registrations.filter(status="registered").count()

    def get_waiting(self, t: Tournament) -> int:
        return t.registrations.filter(status="waiting").count()


class CreateSerializer(StrictJSONTypes, serializers.Serializer):
    name = serializers.CharField(max_length=100)
    variant = serializers.CharField(max_length=32)  # the column's
    options = serializers.DictField(required=False, default=dict)
    # The stake had no upper bound: 10**24 overflowed the column (a 500).  Its cap is the tables'
    # (the event's tables are created with it); the time limits' ranges are the service's, with its
    # message, and min_value/max_value are the column's (core/limits.py).
    stake = serializers.IntegerField(
        min_value=0, max_value=STAKE_MAX, default=0, help_text="Wallet units per point; 0: score only."
    )
    rounds = serializers.IntegerField(min_value=1, max_value=20, default=2)
    hands_per_round = serializers.IntegerField(min_value=1, max_value=64, default=4)
    turn_seconds = serializers.IntegerField(
        default=20, min_value=0, max_value=POSITIVE_SMALL_MAX, help_text="Seconds per turn (5–300)."
    )
    claim_seconds = serializers.IntegerField(
        default=8, min_value=0, max_value=POSITIVE_SMALL_MAX, help_text="Seconds per claim window (3–120)."
    )
    seating = serializers.ChoiceField(choices=[c for c, _ in Tournament.SEATINGS], default=Tournament.RANDOM)
    fill = serializers.ChoiceField(choices=[c for c, _ in Tournament.FILLS], default=Tournament.BOTS)
    duplicate = serializers.BooleanField(default=False)
    max_players = serializers.IntegerField(min_value=4, max_value=1000, default=16)
    check_in = serializers.BooleanField(default=False, help_text="Players check in before each round.")
    check_in_minutes = serializers.IntegerField(
        min_value=1, max_value=240, default=10, help_text="Minutes before a round's announced start."
    )
    absentees = serializers.ChoiceField(
        choices=[c for c, _ in Tournament.ABSENTEE_RULES],
        default=Tournament.WAITING_LIST,
        help_text="A registered player who has not checked in: replaced by the waiting list, a bye, or a bot.",
    )

    offline_grace_seconds = serializers.IntegerField(
        min_value=0,
        max_value=900,
        default=120,
        help_text="Seconds a table waits for a seated player who is not connected before auto-play takes "
        "their turns (0: the ordinary turn clock).",
    )


class ManageSerializer(StrictJSONTypes, serializers.Serializer):
    do = serializers.ChoiceField(
        choices=["open", "close", "start_round", "publish", "unpublish", "substitute", "open_check_in", "schedule"]
    )
    at = serializers.DateTimeField(
        required=False, allow_null=True, help_text="schedule: when the next round starts (null: not announced)"
    )
    absent = serializers.CharField(
        required=False, max_length=150, help_text="substitute: the username who did not show"
    )
    replacement = serializers.CharField(
        required=False, max_length=150, help_text="substitute: who replaces them (default: the waiting list)"
    )


DETAIL = OpenApiResponse(OpenApiTypes.OBJECT, description='`{"detail": "reason"}`')


@extend_schema(summary="Events (not drafts)", responses={200: TournamentSerializer(many=True)}, tags=["tournaments"])
class TournamentListView(APIView):
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]

    def get(self, request: Request) -> Response:
        events = Tournament.objects.exclude(status=Tournament.DRAFT)[:200]
        return Response(TournamentSerializer(events, many=True).data)

    @extend_schema(
        summary="Create an event (you are its organiser)",
        request=CreateSerializer,
        responses={201: TournamentSerializer, 400: DETAIL},
        tags=["tournaments"],
    )
    def post(self, request: Request) -> Response:
        form = CreateSerializer(data=request.data)
        if not form.is_valid():
            return Response({"detail": "invalid request", "errors": form.errors}, status=status.HTTP_400_BAD_REQUEST)
        data = dict(form.validated_data)
        try:
            t = services.create_tournament(request.user, data.pop("name"), data.pop("variant"), **data)
        except services.Refused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(TournamentSerializer(t).data, status=status.HTTP_201_CREATED)


def _event(request: Request, pk: int) -> Tournament:
    t = get_object_or_404(Tournament, pk=pk)
    if t.status == Tournament.DRAFT and t.organiser_id != request.user.pk:
        from django.http import Http404

        raise Http404("no such event")
    return services.sync_status(t)


@extend_schema(summary="An event", responses={200: TournamentSerializer, 404: DETAIL}, tags=["tournaments"])
class TournamentDetailView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, pk: int) -> Response:
        t = _event(request, pk)
        data: dict[str, Any] = dict(TournamentSerializer(t).data)
        w = checkin.window(t)
        data["check_in"] = {
            "enabled": t.check_in,
            "round": w.round_number,
            "open": w.open,
            "opens_at": w.opens_at,
            "checked_in": request.user.is_authenticated and checkin.checked_in(t, request.user),
        }
        if request.user.is_authenticated:
            # The player's seat in the running round: ``id`` and ``status`` (waiting/playing),
            # and ``play``, the page to play it from (never to watch it).
            table = services.next_table(t, request.user)
            data["my_table"] = (
                {"id": table.pk, "status": table.status, "play": reverse("games:table", args=[table.pk])}
                if table is not None
                else None
            )
        return Response(data)


@extend_schema(
    summary="Check in for the next round",
    description="While the round's check-in window is open: a registered player (or one of the waiting "
    "list, to stand in for an absentee) says they are present. Only checked-in players are seated when "
    "the round starts. 400 with `detail` when the event has no check-in, the window is not open, or "
    "the caller is not entered.",
    request=None,
    responses={
        200: OpenApiResponse(OpenApiTypes.OBJECT, description='`{"round": n, "checked_in": true}`'),
        400: DETAIL,
        404: DETAIL,
    },
    tags=["tournaments"],
)
class CheckInView(APIView):
    def post(self, request: Request, pk: int) -> Response:
        try:
            row = checkin.check_in(_event(request, pk).pk, request.user)
        except services.Refused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"round": row.round_number, "checked_in": True})


@extend_schema(
    summary="Register for an event (or join its waiting list)",
    request=None,
    responses={
        200: OpenApiResponse(OpenApiTypes.OBJECT, description='`{"status": "registered|waiting"}`'),
        400: DETAIL,
    },
    tags=["tournaments"],
)
class RegisterView(APIView):
    def post(self, request: Request, pk: int) -> Response:
        try:
            reg = services.register(_event(request, pk).pk, request.user)
        except services.Refused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"status": reg.status})


@extend_schema(summary="Withdraw from an event", request=None, responses={204: None, 400: DETAIL}, tags=["tournaments"])
class WithdrawView(APIView):
    def post(self, request: Request, pk: int) -> Response:
        try:
            services.withdraw(_event(request, pk).pk, request.user)
        except services.Refused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(
    summary="Standings and per-table results",
    description="Points are the rule set's base units summed over the finished hands; ties are broken as "
    "`tie_breaks` lists. Each round's seed hash, and its seed once the round is over. 403 until published "
    "(except for the organiser).",
    responses={200: OpenApiResponse(OpenApiTypes.OBJECT), 403: DETAIL, 404: DETAIL},
    tags=["tournaments"],
)
class StandingsView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, pk: int) -> Response:
        t = _event(request, pk)
        if not may_see_standings(request.user, t):
            return Response({"detail": "the standings are not published yet"}, status=status.HTTP_403_FORBIDDEN)
        return Response(services.standings_json(t))


@extend_schema(
    summary="The organiser's controls",
    description="`open` / `close` registration, `start_round` (seats and starts every table of the next round), "
    "`publish` / `unpublish` the standings, `substitute` (`absent`, optional `replacement`) between rounds, "
    "`open_check_in` (the next round's, now), `schedule` (`at`: the next round's start; check-in opens "
    "`check_in_minutes` before it). "
    "Answers with the event.",
    request=ManageSerializer,
    responses={200: TournamentSerializer, 400: DETAIL, 404: DETAIL},
    tags=["tournaments"],
)
class ManageView(APIView):
    def post(self, request: Request, pk: int) -> Response:
        from django.contrib.auth import get_user_model

        form = ManageSerializer(data=request.data)
        if not form.is_valid():
            return Response({"detail": "invalid request", "errors": form.errors}, status=status.HTTP_400_BAD_REQUEST)
        t = _event(request, pk)
        do = form.validated_data["do"]
        User = get_user_model()
        try:
            if do == "open":
                services.open_registration(t.pk, request.user)
            elif do == "close":
                services.close_registration(t.pk, request.user)
            elif do == "start_round":
                services.start_round(t.pk, request.user)
            elif do in ("publish", "unpublish"):
                services.publish(t.pk, request.user, do == "publish")
            elif do == "open_check_in":
                checkin.open_window(t.pk, request.user)
            elif do == "schedule":
                checkin.schedule(t.pk, request.user, form.validated_data.get("at"))
            else:
                absent = User.objects.filter(username=form.validated_data.get("absent", "")).first()
                name = form.validated_data.get("replacement")
                replacement = User.objects.filter(username=name).first() if name else None
                if absent is None or (name and replacement is None):
                    raise services.Refused("no such player")
                services.substitute(t.pk, request.user, absent, replacement)
        except services.Refused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        t.refresh_from_db()
        return Response(TournamentSerializer(t).data)
