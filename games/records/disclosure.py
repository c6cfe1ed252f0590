"""Whether a finished hand's secrets may be disclosed now: the one place that decides.

A hand's secrets are its seed (and so its wall), the concealed hands revealed at its end, and
its full action log (the replay, with every private draw).  Commit–reveal makes them public the
moment the hand ends — unless the same deal is still being played somewhere else.  Every table
of a duplicate tournament round plays hand *k* from the same seed: table 1's finished hand 1
would give away every concealed tile of hand 1 still running at table 2.

So a finished hand is *withheld* while any registered check objects.  Checks are hooks, like
``games.services.SEED_PROVIDERS``, so games stays independent of tournaments:
``tournaments.apps`` registers one that answers False until every table of the round has
finished that hand number (or its match).  Verdicts are never cached: the hand discloses
itself at the next read after the last table finishes it, with no stale answer to wait out.

What a withheld hand shows (docs/protocol.md, docs/tournaments.md): its *outcome* is a secret
too — who won, on which tile, how, for how many points — since it tells the other tables what
their deal holds.  So:

* to everyone — no seed (the view's and the hand's ``seed`` are null, and ``withheld`` says
  why); the hand's record, replay, replay page and verification answer 403 with
  :data:`WITHHELD`;
* to watchers and the public — nothing beyond "finished": no result, no revealed hand, no
  deltas; the step's ``win`` / ``exhaustive_draw`` event is not sent, ``hand_end`` carries
  neither result nor hands, the winning claim is not marked in the discarder's river, and the
  match scores leave the hand out (:func:`scores_shown`); statistics, standings and ratings
  reads leave it out too (:func:`disclosed_only`);
* to the four players seated at its table — their hand-end result and deltas (they played the
  hand), the winner's hand (the rules show it for scoring) and their own, but not the other
  concealed hands, nor the seed, nor the wall.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from games.engine import SEATS, parse_tiles
from games.models import Hand, Table

WITHHELD = "withheld until every table of the round has finished this hand"

# (finished hand) -> False to withhold its secrets for now; True or None: no objection.
DISCLOSURE_CHECKS: list[Callable[[Hand], bool | None]] = []
# The same question for many hands at once, in the database (statistics, hand lists): each
# takes a queryset of hands and returns it without the ones its check would withhold.  A module
# registering a check registers its filter too, so the two answer alike.
DISCLOSURE_FILTERS: list[Callable[[QuerySet[Hand]], QuerySet[Hand]]] = []


def withheld(row: Hand) -> bool:
    """A finished hand whose secrets must stay hidden for now (a running hand is simply not
    finished: its own rules apply)."""
    if row.status != Hand.FINISHED:
        return False
    return any(check(row) is False for check in DISCLOSURE_CHECKS)


def may_disclose(row: Hand) -> bool:
    """May the seed, the revealed hands and the replay of ``row`` be shown to anyone now?"""
    return row.status == Hand.FINISHED and not withheld(row)


def disclosed_only(hands: QuerySet[Hand]) -> QuerySet[Hand]:
    """``hands`` without the finished ones whose outcome is withheld now: what statistics,
    standings and hand lists may count (a running hand is left in: callers filter on status)."""
    for keep in DISCLOSURE_FILTERS:
        hands = keep(hands)
    return hands


def withheld_hands(table: Table, finished_by: datetime | None = None) -> list[Hand]:
    """The finished hands of ``table`` withheld now (optionally: finished by ``finished_by``).
    One query, none when no filter is registered."""
    if not DISCLOSURE_FILTERS:
        return []
    finished = Hand.objects.filter(table=table, status=Hand.FINISHED).defer("snapshot")
    if finished_by is not None:
        finished = finished.filter(finished_at__lte=finished_by)
    open_ids = set(disclosed_only(finished).values_list("pk", flat=True))
    return [h for h in finished if h.pk not in open_ids]


def hand_gain(row: Hand, stake: int) -> dict[str, int]:
    """What ``row`` added to its table's match scores, per chair (``settlement.settle_hand``):
    the booked units, or on a score-only table (stake 0) the hand's points."""
    if stake:
        return {str(c): int(v) for c, v in (row.deltas or {}).items()}
    deltas = (row.result or {}).get("deltas") or {}
    return {str(row.position_of(SEATS.index(w))): int(p) for w, p in deltas.items()}


def scores_shown(table: Table, scores: dict[str, int], finished_by: datetime | None = None) -> dict[str, int]:
    """The match ``scores`` a watcher may see: without what withheld hands added to them (the
    totals would give their points away).  ``finished_by``: the scores are as of that moment (a
    delayed watcher's), so a hand finished later was never in them."""
    out = dict(scores)
    for row in withheld_hands(table, finished_by):
        if row.settled:
            for chair, units in hand_gain(row, int(table.stake)).items():
                out[chair] = int(out.get(chair, 0)) - units
    return out


def _winner(view_or_event: dict[str, Any]) -> str | None:
    result = view_or_event.get("result") or {}
    return result.get("winner") if result.get("status") == "win" else None


def _own_and_winner(hands: dict[str, Any] | None, own: str | None, winner: str | None) -> dict[str, Any] | None:
    """Of the hands revealed at the end, the reader's own and the winner's (the rules show it
    to score the hand); the others stay concealed."""
    if hands is None:
        return None
    return {wind: tiles for wind, tiles in hands.items() if wind in (own, winner)}


def _hide_outcome(view: dict[str, Any]) -> dict[str, Any]:
    """A watcher's ended view reduced to "finished": no result, no revealed hands, and the
    traces of the win in the public players' entries undone (the tile the winner took from a
    discard is not marked in the river, nor counted in the winner's hand)."""
    result = view.get("result") or {}
    out = dict(view)
    out["result"] = None
    out["revealed"] = None
    out["turn"] = None
    winner = _winner(view)
    if winner is not None and "players" in out:
        players = []
        for p in out["players"]:
            p = dict(p)
            claimed = list(p.get("claimed_discards") or [])
            # (the winning claim is the mark on the discarder's very last discard)
            last = len(parse_tiles(p.get("discards") or "")) - 1
            if p.get("seat") == result.get("from") and not result.get("self_drawn") and claimed[-1:] == [last]:
                p["claimed_discards"] = claimed[:-1]
            if p.get("seat") == winner and not result.get("self_drawn") and p.get("hand_count"):
                p["hand_count"] = int(p["hand_count"]) - 1
            players.append(p)
        out["players"] = players
    return out


def redact_view(view: dict[str, Any], seated: bool) -> dict[str, Any]:
    """An ended engine view without what a withheld hand may not show its reader: the seed for
    everyone; for a seated player the other concealed hands but the winner's; for a watcher
    the whole outcome.  A copy: views share dicts between readers."""
    if not seated:
        out = _hide_outcome(view)
    else:
        out = dict(view)
        if "revealed" in out:
            out["revealed"] = _own_and_winner(out["revealed"], out.get("seat"), _winner(view))
    if "seed" in out:
        out["seed"] = None
    return out


def redact_events(events: list[dict[str, Any]], own: str | None) -> list[dict[str, Any]]:
    """The rendered events (``Event.for_seat``) of a withheld hand's last step for the reader
    whose seat wind is ``own`` (None: a watcher).  ``hand_end`` loses its seed; a seated player
    keeps the result and the winner's and their own hand; a watcher learns only that the hand
    is over: the ``win`` / ``exhaustive_draw`` event is dropped, ``hand_end`` has neither result
    nor hands."""
    out = []
    for event in events:
        kind = event.get("kind")
        if own is None and kind in ("win", "exhaustive_draw"):
            continue
        if kind == "hand_end":
            event = dict(event)
            event["seed"] = None
            if own is None:
                event["result"] = None
                event["hands"] = None
            else:
                event["hands"] = _own_and_winner(event.get("hands"), own, _winner(event))
        out.append(event)
    return out
