"""The organiser's live view of the running round: every table, its hand *k* of *n*, each
chair's player and whether they are connected, on auto-play, offline (with the time left of the
table's offline grace) or absent, how long since the table last moved, and the stuck tables.

A table is **stuck** when it is playing and nothing has happened at it — no action, no hand
dealt or finished — for longer than :func:`stuck_after`: the event's offline grace plus two
turns and a minute.  Within that time a table waiting on a player is just waiting (their turn,
or the grace for an absent one, runs out and auto-play moves on); beyond it something is wrong
(a lost timer, a crashed worker) and the organiser may abort the table.

Reads only; who may read is :func:`may_run` (the organiser and staff).  Three queries for the
whole round: its tables with their seats, their hands with each hand's latest action, and the
pending replacements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Max
from django.utils import timezone

from games.models import Hand, Seat, Table
from games.services import grace
from tournaments.models import Replacement, Round, Tournament

STUCK_MARGIN = timedelta(seconds=60)


def may_run(user: Any, t: Tournament) -> bool:
    """The organiser, or a member of staff, sees the live round and acts on it."""
    return bool(user.is_authenticated and (user.pk == t.organiser_id or user.is_staff))


def stuck_after(t: Tournament) -> timedelta:
    """How long a playing table may go without a step before it counts as stuck."""
    return timedelta(seconds=t.offline_grace_seconds + 2 * t.turn_seconds) + STUCK_MARGIN


# A chair's state, most telling first (the page's words: tournament_words.CHAIR_STATES).
CONNECTED, OFFLINE, ABSENT, AUTO_PLAY, BOT, LEFT = "connected", "offline", "absent", "auto_play", "bot", "left"


@dataclass
class ChairState:
    position: int
    name: str
    user_id: int | None
    state: str
    connected: bool
    auto_play: bool
    auto_play_in: int | None  # seconds of offline grace left before auto-play takes the turns
    replacing_with: str | None  # a replacement waiting for the next hand: a username, or "bot"


@dataclass
class TableState:
    number: int
    table_id: int
    status: str
    hand: int  # the hand being played (or the last one played), 0 before the first
    hands_total: int
    last_step_at: datetime | None
    idle_seconds: int | None
    stuck: bool
    chairs: list[ChairState] = field(default_factory=list)


@dataclass
class RoundState:
    number: int
    stuck_after_seconds: int
    tables: list[TableState]
    absent: list[str]  # the round's absentees (not checked in, or replaced during the round)


def chair_state(seat: Seat, table: Table, now: datetime) -> tuple[str, int | None]:
    """The chair's state and, while offline within the grace, the seconds before auto-play."""
    if seat.left:
        return LEFT, None
    if seat.is_bot or seat.user_id is None:
        return BOT, None
    if seat.connected:
        return (AUTO_PLAY if seat.auto_play else CONNECTED), None
    if table.status == Table.PLAYING and not seat.auto_play and grace.in_grace(seat, table, now):
        return OFFLINE, grace.seconds_left(seat, table, now)
    if seat.disconnects == 0 and table.status == Table.PLAYING:
        return ABSENT, None  # not seen at the table since the match began: auto-play plays it
    return (AUTO_PLAY if seat.auto_play else OFFLINE), None


def _last_steps(table_ids: list[int]) -> dict[int, tuple[int, datetime | None]]:
    """Per table: the latest hand's number and the moment the table last moved (the latest
    hand's last action, or its deal, or its end)."""
    out: dict[int, tuple[int, datetime | None]] = {}
    hands = (
        Hand.objects.filter(table_id__in=table_ids)
        .annotate(last_action=Max("actions__created_at"))
        .values("table_id", "number", "started_at", "finished_at", "last_action")
    )
    for h in hands:
        if h["table_id"] in out and out[h["table_id"]][0] > h["number"]:
            continue
        moments = [m for m in (h["started_at"], h["finished_at"], h["last_action"]) if m is not None]
        out[h["table_id"]] = (h["number"], max(moments) if moments else None)
    return out


def live_round(t: Tournament, now: datetime | None = None) -> RoundState | None:
    """The running round as the organiser sees it; None before the first round."""
    rnd = Round.objects.filter(tournament=t).order_by("-number").first()
    if rnd is None:
        return None
    now = now or timezone.now()
    links = list(rnd.tables.select_related("table").prefetch_related("table__seats__user"))
    steps = _last_steps([link.table_id for link in links])
    pending = {
        (r.round_table_id, r.position): (r.replacement.get_username() if r.replacement else "bot")
        for r in Replacement.objects.filter(round_table__round=rnd, applied_at__isnull=True).select_related(
            "replacement"
        )
    }
    limit = stuck_after(t)
    tables = []
    for link in links:
        table = link.table
        number, last = steps.get(table.pk, (0, None))
        idle = now - last if last is not None else None
        state = TableState(
            number=link.number,
            table_id=table.pk,
            status=table.status,
            hand=number,
            hands_total=table.hands_total,
            last_step_at=last,
            idle_seconds=int(idle.total_seconds()) if idle is not None else None,
            stuck=table.status == Table.PLAYING and idle is not None and idle > limit,
        )
        for seat in table.seats.all():
            name, auto_in = chair_state(seat, table, now)
            state.chairs.append(
                ChairState(
                    position=seat.position,
                    name=seat.user.get_username() if seat.user is not None else f"Bot {seat.position + 1}",
                    user_id=seat.user_id,
                    state=name,
                    connected=seat.connected,
                    auto_play=seat.auto_play or seat.is_bot,
                    auto_play_in=auto_in,
                    replacing_with=pending.get((link.pk, seat.position)),
                )
            )
        tables.append(state)
    absent = [s.user.get_username() for s in rnd.seats.filter(absent=True).select_related("user") if s.user]
    return RoundState(rnd.number, int(limit.total_seconds()), tables, absent)


def as_json(state: RoundState) -> dict[str, Any]:
    """The API's answer (tournaments.api.LiveRoundView)."""
    return {
        "round": state.number,
        "stuck_after_seconds": state.stuck_after_seconds,
        "absent": state.absent,
        "tables": [
            {
                "number": ts.number,
                "table_id": ts.table_id,
                "status": ts.status,
                "hand": ts.hand,
                "hands_total": ts.hands_total,
                "last_step_at": ts.last_step_at.isoformat() if ts.last_step_at else None,
                "idle_seconds": ts.idle_seconds,
                "stuck": ts.stuck,
                "chairs": [vars(c) for c in ts.chairs],
            }
            for ts in state.tables
        ],
    }
