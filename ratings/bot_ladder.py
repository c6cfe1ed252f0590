"""The "vs bots" ladder: a solo player's progress, per rule set, apart from the people's ratings.

A finished match that is not rated (``ratings.services.is_rated``) but where at least one person
played against at least one bot counts here instead: every person at it gets a
``BotLadderResult`` (their place and final score, their ladder rating before and after) and their
``BotLadderEntry`` moves.  The rating is the same pairwise Elo as the people's
(``ratings.elo``): bots play at the fixed ``BOT_RATING`` and are never updated, a person
opponent at their own ladder rating.  Hints on or off, the match counts: the ladder measures a
player against the house's bots, not against other people.

Recorded at the point a rated match is (``ratings.services.hand_booked``, in the settlement of
the match's last hand), once per match and player.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.paginator import Page, Paginator
from django.db import transaction
from django.db.models import QuerySet

from games.models import Seat, Table
from ratings import elo
from ratings.models import BotLadderEntry, BotLadderResult
from ratings.seats import person

BOT_RATING = elo.INITIAL  # the bots' fixed rating on the ladder
LADDER_PAGE = 50


def counts(seats: Sequence[Seat]) -> bool:
    """Does a finished (unrated) match belong on the ladder: a person and a bot played it?"""
    return any(person(s) for s in seats) and any(not person(s) for s in seats)


def places(scores: Sequence[int]) -> list[int]:
    """Each score's place: 1 + the number of strictly better scores (ties share a place)."""
    return [1 + sum(other > mine for other in scores) for mine in scores]


def record_match(table: Table, seats: Sequence[Seat]) -> list[BotLadderResult]:
    """Put a finished match against bots on its players' ladder; once per match and player.
    Runs in the caller's transaction (the settlement's); returns the results written."""
    if not counts(seats) or BotLadderResult.objects.filter(table_id=table.pk).exists():
        return []
    ordered = sorted(seats, key=lambda s: s.position)
    scores = [int((table.scores or {}).get(str(s.position), 0)) for s in ordered]
    people = sorted({s.user_id for s in ordered if person(s) and s.user_id is not None})
    with transaction.atomic():
        for someone in people:
            BotLadderEntry.objects.get_or_create(user_id=someone, variant=table.variant)
        # Locked in user order: two matches finishing at once update a common player in turn.
        entries = {
            e.user_id: e
            for e in BotLadderEntry.objects.select_for_update()
            .filter(user_id__in=people, variant=table.variant)
            .order_by("user_id")
        }
        uids = [s.user_id if person(s) else None for s in ordered]
        before = [entries[u].value if u is not None else BOT_RATING for u in uids]
        deltas = elo.changes(before, scores)
        out = []
        for uid, old, delta, place, score in zip(uids, before, deltas, places(scores), scores, strict=True):
            if uid is None:
                continue
            entry = entries[uid]
            entry.value = old + delta
            entry.matches += 1
            entry.firsts += place == 1
            entry.save(update_fields=["value", "matches", "firsts", "updated_at"])
            out.append(
                BotLadderResult(
                    table=table,
                    user_id=uid,
                    variant=table.variant,
                    before=old,
                    after=old + delta,
                    place=place,
                    score=score,
                )
            )
        return BotLadderResult.objects.bulk_create(out)


def ladder(variant: str) -> QuerySet[BotLadderEntry]:
    """A rule set's vs-bots ladder, best first (ties: more matches, then the earlier account)."""
    return (
        BotLadderEntry.objects.filter(variant=variant, matches__gt=0)
        .select_related("user")
        .order_by("-value", "-matches", "user_id")
    )


def ladder_page(variant: str, number: Any) -> Page[BotLadderEntry]:
    return Paginator(ladder(variant), LADDER_PAGE).get_page(number)


def entries(user: Any) -> list[BotLadderEntry]:
    """The player's ladder entries, one per rule set played against bots."""
    return list(BotLadderEntry.objects.filter(user=user, matches__gt=0).order_by("variant"))


def latest(user: Any, variant: str) -> BotLadderResult | None:
    """The player's last match against bots in a rule set."""
    return BotLadderResult.objects.filter(user=user, variant=variant).order_by("created_at", "pk").last()
