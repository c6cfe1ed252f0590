"""The ratings REST API: a rule set's leaderboard and a player's statistics (read only)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.serializers import StrictJSONTypes
from games.engine import all_variants
from games.models import Table
from games.services import locks
from games.services.access import can_open
from ratings import bot_ladder, services
from ratings.stats import player_stats

DETAIL = OpenApiResponse(OpenApiTypes.OBJECT, description='`{"detail": reason}`')


class BigHandSerializer(serializers.Serializer):
    hand = serializers.IntegerField()
    table = serializers.IntegerField()
    number = serializers.IntegerField()
    points = serializers.IntegerField(help_text="The player's points from the hand.")
    finished_at = serializers.DateTimeField(allow_null=True)
    breakdown = serializers.ListField(child=serializers.DictField(), help_text="The hand's score breakdown.")
    replay = serializers.CharField(help_text="The replay page: /hands/<id>/replay/.")


class SpecialHandSerializer(serializers.Serializer):
    name = serializers.CharField()
    count = serializers.IntegerField()


class BotLadderSerializer(serializers.Serializer):
    rating = serializers.FloatField(help_text="The rating against bots (the bots play at a fixed 1500).")
    matches = serializers.IntegerField()
    firsts = serializers.IntegerField(help_text="Matches finished with the best score.")


class PlayerStatsSerializer(serializers.Serializer):
    variant = serializers.CharField()
    hands = serializers.IntegerField()
    wins = serializers.IntegerField()
    self_draws = serializers.IntegerField()
    deal_ins = serializers.IntegerField()
    win_rate = serializers.FloatField()
    self_draw_share = serializers.FloatField(help_text="Self-drawn wins per win.")
    deal_in_rate = serializers.FloatField(help_text="Hands lost on the player's discard per hand.")
    average_score = serializers.FloatField(help_text="Points per hand (the rule set's points, not units).")
    biggest_hands = BigHandSerializer(
        many=True,
        help_text="The player's biggest wins that the reader may open (a private table's hands only for its "
        "owner, its players and holders of its room code); the figures count every finished hand.",
    )
    special_hands = SpecialHandSerializer(many=True)
    rating = serializers.FloatField(allow_null=True, help_text="The current rating; null before a rated match.")
    bot_ladder = BotLadderSerializer(
        allow_null=True, help_text="The vs-bots ladder in this rule set (apart from the rating); null before a match."
    )


class LeaderRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    rating = serializers.FloatField()
    matches = serializers.IntegerField()


class LeaderboardSerializer(serializers.Serializer):
    variant = serializers.CharField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    results = LeaderRowSerializer(many=True)


def known_variant(key: str) -> str:
    if key not in {v.key for v in all_variants()}:
        raise Http404("no such rule set")
    return key


VARIANT = OpenApiParameter("variant", str, description="A rule set's key (GET /api/rulesets/).", required=True)


@extend_schema(
    summary="A player's statistics in one rule set",
    parameters=[VARIANT],
    responses={200: PlayerStatsSerializer, 400: DETAIL, 404: DETAIL},
    tags=["ratings"],
)
class PlayerStatsView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, username: str) -> Response:
        who = get_object_or_404(get_user_model(), username=username)
        key = request.query_params.get("variant")
        if not key:
            return Response({"detail": "variant: this parameter is required"}, status=400)
        # The biggest hands are those this reader may open (the replay's rule): a private
        # table's hands reach only its owner, its players and holders of its room code.
        stats = player_stats(who, known_variant(key), reader=request.user, session=request.session)
        data = stats.to_json()
        rating = services.leaderboard(key).filter(user=who).values_list("value", flat=True).first()
        data["rating"] = round(rating, 2) if rating is not None else None
        entry = bot_ladder.ladder(key).filter(user=who).first()
        data["bot_ladder"] = (
            {"rating": round(entry.value, 2), "matches": entry.matches, "firsts": entry.firsts} if entry else None
        )
        return Response(data)


@extend_schema(
    summary="A rule set's leaderboard, best first",
    parameters=[OpenApiParameter("page", int, description="1-based page of 50 rows.")],
    responses={200: LeaderboardSerializer, 404: DETAIL},
    tags=["ratings"],
)
class LeaderboardView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, variant: str) -> Response:
        page = services.leaderboard_page(known_variant(variant), request.query_params.get("page"))
        offset = (page.number - 1) * page.paginator.per_page
        return Response(
            {
                "variant": variant,
                "page": page.number,
                "pages": page.paginator.num_pages,
                "results": [
                    {
                        "rank": offset + i,
                        "username": r.user.get_username(),
                        "rating": round(r.value, 2),
                        "matches": r.matches,
                    }
                    for i, r in enumerate(page.object_list, start=1)
                ],
            }
        )


class TableRatingSerializer(serializers.Serializer):
    rated = serializers.BooleanField(help_text="Does this table's match count for ratings (ratings.services.is_rated)?")
    rated_with_bots = serializers.BooleanField(help_text="Rated although bots sit at it (default false).")


class TableRatingUpdateSerializer(StrictJSONTypes, serializers.Serializer):
    rated_with_bots = serializers.BooleanField()


def table_rating(table: Table) -> dict[str, bool]:
    return {"rated": services.is_rated(table), "rated_with_bots": services.rated_with_bots(table)}


@extend_schema(tags=["ratings"])
class TableRatingView(APIView):
    """Whether a table is rated, and its owner's ``rated_with_bots`` option (before the match)."""

    def get_permissions(self) -> list[permissions.BasePermission]:
        if self.request.method == "GET":
            return [permissions.AllowAny()]
        return [permissions.IsAuthenticated()]

    def visible(self, request: Request, pk: int) -> Table:
        table = get_object_or_404(Table, pk=pk)
        if not can_open(request.user, request.session, table):
            raise Http404("no such table")
        return table

    @extend_schema(summary="Is the table rated?", responses={200: TableRatingSerializer, 404: DETAIL})
    def get(self, request: Request, pk: int) -> Response:
        return Response(table_rating(self.visible(request, pk)))

    @extend_schema(
        summary="Rate the table's match although bots sit at it (its owner, before the match)",
        request=TableRatingUpdateSerializer,
        responses={200: TableRatingSerializer, 400: DETAIL, 403: DETAIL, 404: DETAIL},
    )
    def post(self, request: Request, pk: int) -> Response:
        table = self.visible(request, pk)
        if request.user.pk != table.owner_id:
            return Response({"detail": "only the table's owner sets its rating option"}, status=403)
        form = TableRatingUpdateSerializer(data=request.data)
        if not form.is_valid():
            return Response({"detail": "rated_with_bots: a boolean is required", "errors": form.errors}, status=400)
        with transaction.atomic():
            table = locks.lock_table(table.pk)  # not while a match starts: fixed from its start
            if table.status != Table.WAITING:
                return Response({"detail": "the match has started: its rating option is fixed"}, status=400)
            services.set_rated_with_bots(table, form.validated_data["rated_with_bots"])
        return Response(table_rating(table))
