"""Ratings: which tables count, the update of a finished match, leaderboards and histories.

The update runs inside the settlement of a match's last hand (``hand_booked``, registered in
``games.services.settlement.HAND_BOOKED`` by ratings/apps.py), so it commits or rolls back
with the booking.  It happens once per match: the ``RatedMatch`` row (one per table) is
written with the changes, and a second settlement of the same match finds it and does nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db import transaction
from django.db.models import QuerySet

from games.models import Hand, Seat, Table
from games.records import disclosure
from ratings import bot_ladder, elo
from ratings.models import DeferredRating, RatedMatch, Rating, RatingChange, TableRatingOption
from ratings.seats import person

# The rating a bot seat plays at when a table is rated with bots: fixed, never updated, so a
# house bot neither gains nor loses rating and people are measured against a constant.
BOT_RATING = elo.INITIAL
LEADERBOARD_PAGE = 50


def rated_with_bots(table: Table) -> bool:
    """The table's option: rated although bots sit at it (default false)."""
    return TableRatingOption.objects.filter(table_id=table.pk, rated_with_bots=True).exists()


def set_rated_with_bots(table: Table, value: bool) -> None:
    """Set the table's ``rated_with_bots`` option (before its match starts)."""
    TableRatingOption.objects.update_or_create(table=table, defaults={"rated_with_bots": bool(value)})


def is_rated(table: Table, seats: Sequence[Seat] | None = None) -> bool:
    """Does this table's match count for ratings?  Yes unless a bot sits at it (or a seat is
    empty when the match runs), or the table says ``rated_with_bots``; never if the table has
    hints on (``Table.hints``)."""
    if table.hints:  # a table where the engine helps the players is played for fun, not rank
        return False
    seats = list(table.seats.all()) if seats is None else list(seats)
    if len(seats) == 4 and all(person(s) for s in seats):
        return True
    return rated_with_bots(table) and any(person(s) for s in seats)


def match_complete(row: Hand) -> bool:
    """Is ``row`` (being booked now) the booking that completes its match?  Every hand of the
    match is finished and every other one is booked (the scaled mode books out of order).
    ``row`` itself may not be saved as finished yet (the inline booking runs before the step
    saves it), so it is counted apart from the others."""
    table = row.table
    if row.number < table.hands_total and table.hands_played < table.hands_total:
        return False  # the inline booking of a hand before the last: no query on the hot path
    others = Hand.objects.filter(table_id=table.pk, status=Hand.FINISHED, number__lte=table.hands_total).exclude(
        pk=row.pk
    )
    if others.count() + (row.number <= table.hands_total) < table.hands_total:
        return False
    return not others.filter(settled=False).exists()


def hand_booked(row: Hand, seats: list[Seat]) -> None:
    """Settlement's hook: rate the match when its last hand is booked — or, while a deal of the
    match is still secret (games.records.disclosure: a duplicate round's other table still plays
    it), note it to rate once the deal is disclosed everywhere.  A rating that moved at once
    would tell the other tables how the deal went.

    Every booking also looks for deferred matches (one query on a small table): the booking
    that finishes a deal at the last table is what discloses it, and it is only visible to a
    reader once committed, so the deferred matches are rated after the commit."""
    if match_complete(row):
        if match_secret(row):
            DeferredRating.objects.get_or_create(table=row.table)
        else:
            rate_finished(row.table, seats)
    if DeferredRating.objects.exists():
        transaction.on_commit(rate_deferred, robust=True)


def match_secret(row: Hand) -> bool:
    """Is a hand of ``row``'s match (``row`` itself, being booked, included) withheld now?"""
    return disclosure.withheld(row) or bool(disclosure.withheld_hands(row.table))


def rate_deferred() -> list[RatingChange]:
    """Rate the deferred matches whose every hand is disclosed now (an aborted table's match
    never completed, so never waits here).  Idempotent: ``rate_match`` rates a match once."""
    out: list[RatingChange] = []
    with transaction.atomic():
        for waiting in DeferredRating.objects.select_for_update().select_related("table"):
            if disclosure.withheld_hands(waiting.table):
                continue
            out += rate_finished(waiting.table, list(waiting.table.seats.all()))
            waiting.delete()
    return out


def rate_finished(table: Table, seats: Sequence[Seat]) -> list[RatingChange]:
    """A finished match's update: the people's ratings if it is rated, else the vs-bots ladder
    of the people who played bots at it (ratings/bot_ladder.py).  Returns the rating changes."""
    if is_rated(table, seats):
        return rate_match(table, seats)
    bot_ladder.record_match(table, seats)
    return []


@dataclass(frozen=True)
class Player:
    user_id: int | None  # None: a bot, at BOT_RATING, not updated
    rating: Rating | None
    score: int


def rate_match(table: Table, seats: Sequence[Seat]) -> list[RatingChange]:
    """Update the ratings of a finished match from its final scores; once per match.

    Runs in the caller's transaction (the settlement's); returns the changes written (none if
    the match is unrated or was rated already)."""
    if not is_rated(table, seats) or RatedMatch.objects.filter(table_id=table.pk).exists():
        return []
    with transaction.atomic():
        scores = table.scores or {}
        people = sorted({s.user_id for s in seats if s.user_id is not None and person(s)})
        for uid in people:
            Rating.objects.get_or_create(user_id=uid, variant=table.variant)
        # Locked in user order: two matches finishing at once update their common players in turn.
        ratings = {
            r.user_id: r
            for r in Rating.objects.select_for_update()
            .filter(user_id__in=people, variant=table.variant)
            .order_by("user_id")
        }
        players = [
            Player(
                s.user_id if person(s) else None,
                ratings[s.user_id] if person(s) and s.user_id is not None else None,
                int(scores.get(str(s.position), 0)),
            )
            for s in sorted(seats, key=lambda s: s.position)
        ]
        before = [p.rating.value if p.rating is not None else BOT_RATING for p in players]
        deltas = elo.changes(before, [p.score for p in players])
        match = RatedMatch.objects.create(table=table, variant=table.variant)
        out = []
        for p, old, delta in zip(players, before, deltas, strict=True):
            if p.rating is None or p.user_id is None:
                continue
            p.rating.value = old + delta
            p.rating.matches += 1
            p.rating.save(update_fields=["value", "matches", "updated_at"])
            out.append(
                RatingChange(
                    match=match, user_id=p.user_id, variant=table.variant, before=old, after=old + delta, score=p.score
                )
            )
        RatingChange.objects.bulk_create(out)
        return out


def leaderboard(variant: str) -> QuerySet[Rating]:
    """A rule set's ratings, best first (ties: more matches, then the earlier account)."""
    return (
        Rating.objects.filter(variant=variant, matches__gt=0)
        .select_related("user")
        .order_by("-value", "-matches", "user_id")
    )


def leaderboard_page(variant: str, number: Any) -> Page[Rating]:
    return Paginator(leaderboard(variant), LEADERBOARD_PAGE).get_page(number)


def history(user: Any, variant: str) -> list[RatingChange]:
    """The player's rating changes in a rule set, oldest first (the graph's points)."""
    return list(RatingChange.objects.filter(user=user, variant=variant).order_by("created_at", "pk"))


def rated_variants(user: Any) -> list[str]:
    """The rule sets the player has a rating in."""
    return list(Rating.objects.filter(user=user, matches__gt=0).order_by("variant").values_list("variant", flat=True))
