"""The organiser's live round in the API: ``GET /api/tournaments/<id>/round/`` (every table of
the running round) and its actions, ``POST .../round/replace/`` and ``POST .../round/abort/``.
The organiser and staff only: anyone else gets 403 (the event's own page says whether it
exists).  A refusal is ``400 {"detail": reason}``."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.serializers import StrictJSONTypes
from tournaments import round_actions, round_view, services
from tournaments.api import DETAIL
from tournaments.models import Tournament

NOT_YOURS = {"detail": "only the organiser or staff may see the round"}


class ChairSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="Chair 0..3.")
    name = serializers.CharField()
    user_id = serializers.IntegerField(allow_null=True)
    state = serializers.ChoiceField(
        choices=["connected", "offline", "absent", "auto_play", "bot", "left"],
        help_text="offline: not connected, the table waits (auto_play_in); absent: not seen since the match "
        "began, auto-play plays the chair.",
    )
    connected = serializers.BooleanField()
    auto_play = serializers.BooleanField()
    auto_play_in = serializers.IntegerField(
        allow_null=True, help_text="Seconds of offline grace left before auto-play takes the chair's turns."
    )
    replacing_with = serializers.CharField(
        allow_null=True, help_text='A replacement waiting for the next hand: a username, or "bot".'
    )


class LiveTableSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="The table's number in the round.")
    table_id = serializers.IntegerField()
    status = serializers.CharField()
    hand = serializers.IntegerField(help_text="The hand being played (or the last played); 0 before the first.")
    hands_total = serializers.IntegerField()
    last_step_at = serializers.DateTimeField(allow_null=True)
    idle_seconds = serializers.IntegerField(allow_null=True, help_text="Seconds since the table's last step.")
    stuck = serializers.BooleanField(help_text="Playing, and no step for longer than stuck_after_seconds.")
    chairs = ChairSerializer(many=True)


class LiveRoundSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    stuck_after_seconds = serializers.IntegerField(help_text="The event's offline grace plus two turns and a minute.")
    absent = serializers.ListField(child=serializers.CharField(), help_text="The round's absentees.")
    tables = LiveTableSerializer(many=True)


class ReplaceSerializer(StrictJSONTypes, serializers.Serializer):
    table = serializers.IntegerField(min_value=1, max_value=10_000, help_text="The table's number in the round.")
    position = serializers.IntegerField(min_value=0, max_value=3, help_text="The chair, 0..3.")
    replacement = serializers.CharField(
        required=False, allow_blank=True, max_length=150, help_text="A username; absent or empty: a bot."
    )


class AbortSerializer(StrictJSONTypes, serializers.Serializer):
    table = serializers.IntegerField(min_value=1, max_value=10_000, help_text="The table's number in the round.")


def _runnable(request: Request, pk: int) -> Tournament | None:
    t = get_object_or_404(Tournament, pk=pk)
    return services.sync_status(t) if round_view.may_run(request.user, t) else None


@extend_schema(
    summary="The running round, live (organiser and staff)",
    description="Every table of the current round: hand k of n, each chair's player and state, the seconds "
    "since its last step, and whether it is stuck. 404 before the first round; 403 for anyone but the "
    "organiser and staff.",
    responses={200: LiveRoundSerializer, 403: DETAIL, 404: DETAIL},
    tags=["tournaments"],
)
class LiveRoundView(APIView):
    def get(self, request: Request, pk: int) -> Response:
        t = _runnable(request, pk)
        if t is None:
            return Response(NOT_YOURS, status=status.HTTP_403_FORBIDDEN)
        state = round_view.live_round(t)
        if state is None:
            return Response({"detail": "no round has started"}, status=status.HTTP_404_NOT_FOUND)
        return Response(round_view.as_json(state))


@extend_schema(
    summary="Replace a seated player from the next hand (organiser and staff)",
    description="The chair goes to `replacement` (a player of the event with no seat in the round: registered, "
    "waiting or checked in) or, without one, to a bot, when the table's current hand is over. Score-only "
    "events only. Logged on the event.",
    request=ReplaceSerializer,
    responses={
        200: LiveRoundSerializer,
        400: DETAIL,
        403: DETAIL,
    },
    tags=["tournaments"],
)
class ReplaceView(APIView):
    def post(self, request: Request, pk: int) -> Response:
        t = _runnable(request, pk)
        if t is None:
            return Response(NOT_YOURS, status=status.HTTP_403_FORBIDDEN)
        form = ReplaceSerializer(data=request.data)
        if not form.is_valid():
            return Response({"detail": "invalid request", "errors": form.errors}, status=status.HTTP_400_BAD_REQUEST)
        data = form.validated_data
        name = (data.get("replacement") or "").strip()
        try:
            replacement = get_user_model().objects.filter(username=name).first() if name else None
            if name and replacement is None:
                raise services.Refused("no such player")
            round_actions.replace(t.pk, request.user, data["table"], data["position"], replacement)
        except services.Refused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        state = round_view.live_round(t)
        assert state is not None
        return Response(round_view.as_json(state))


@extend_schema(
    summary="Abort a table of the running round (organiser and staff)",
    description="The table's match stops now: its finished hands count, the hand in play is void, its players "
    "keep the points they had; never rated. Logged on the event.",
    request=AbortSerializer,
    responses={200: LiveRoundSerializer, 400: DETAIL, 403: DETAIL},
    tags=["tournaments"],
)
class AbortView(APIView):
    def post(self, request: Request, pk: int) -> Response:
        t = _runnable(request, pk)
        if t is None:
            return Response(NOT_YOURS, status=status.HTTP_403_FORBIDDEN)
        form = AbortSerializer(data=request.data)
        if not form.is_valid():
            return Response({"detail": "invalid request", "errors": form.errors}, status=status.HTTP_400_BAD_REQUEST)
        try:
            round_actions.abort(t.pk, request.user, form.validated_data["table"])
        except services.Refused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        state = round_view.live_round(services.sync_status(t))
        assert state is not None
        return Response(round_view.as_json(state))
