"""Player statistics per rule set, computed from the finished hands (never stored).

One pass over the player's finished hands of a rule set: the hands' results say who won, by
self-draw or on whose discard, each seat's points and the breakdown.  The pass is cached under
a key made of how many finished hands there are and the newest one's id (one aggregate query):
a finished hand's result never changes, so a new hand is the only thing that can change the
figures, and it changes the key.

The figures (hands, rates, points, special hands) count every hand, private tables' too.  The
biggest hands name a hand, its table, its breakdown and its replay: each reader is shown only
those of tables they may open (``games.services.access``, the replay's own rule) whose secrets
may be disclosed now (``games.records.disclosure``).  The cache holds only the ranking of the
wins (points, hand, table); the shown hands are picked and read per reader.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from django.contrib.sessions.backends.base import SessionBase
from django.core.cache import cache
from django.db.models import Count, Max

from games.engine import SEATS
from games.models import Hand, Seat
from games.records import disclosure
from games.services.access import openable_tables

TOP_HANDS = 5
CACHE_SECONDS = 3600

# Breakdown lines that are not a special hand: the ways of winning every win has, the
# settlement's payment lines and the per-set points of the counting rule sets.  Every other
# line of a win (天和, 游金, 四财神, 清一色 ...) is a special hand reached.  By its structured
# ``code`` where the breakdown item has one, else its ``name``.
ORDINARY = frozenset(
    {
        "discard", "self_draw", "hand_value", "hand_score", "hand", "payment", "pay_winner", "losers",
        "winner_points", "total", "caishen_score", "dealer", "soft", "plain", "kong_score", "kong_points",
        "flower_kong_points", "exposed_pung", "concealed_triplet", "exposed_kong", "concealed_kong", "pair",
        "win_bonus", "wait_closed", "wait_edge", "wait_single", "ping_hu", "ready", "closed", "piao",
        "exhaustive_draw", "contract", "baopai", "follow_wind", "fenbing", "self_draw_double",
    }
)  # fmt: skip


@dataclass
class BigHand:
    hand_id: int
    table_id: int
    number: int
    points: int
    finished_at: Any
    breakdown: list[dict[str, Any]]


@dataclass
class PlayerStats:
    variant: str
    hands: int = 0
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    points: int = 0
    biggest: list[BigHand] = field(default_factory=list)  # the reader's: see player_stats
    special: dict[str, int] = field(default_factory=dict)  # special hand's label -> times reached
    best_points: int | None = None  # the most points of any win, private tables' included
    # Every win as (points, hand id, table id), most points first: what the biggest hands are
    # picked from for each reader (never sent as is).
    ranked_wins: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0

    @property
    def self_draw_share(self) -> float:
        """Self-drawn wins as a share of the wins."""
        return self.self_draws / self.wins if self.wins else 0.0

    @property
    def deal_in_rate(self) -> float:
        """Hands lost on the player's own discard, per hand played."""
        return self.deal_ins / self.hands if self.hands else 0.0

    @property
    def average_score(self) -> float:
        """The player's points per hand (the engine's points: stakes differ between tables)."""
        return self.points / self.hands if self.hands else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "hands": self.hands,
            "wins": self.wins,
            "self_draws": self.self_draws,
            "deal_ins": self.deal_ins,
            "win_rate": round(self.win_rate, 4),
            "self_draw_share": round(self.self_draw_share, 4),
            "deal_in_rate": round(self.deal_in_rate, 4),
            "average_score": round(self.average_score, 4),
            "biggest_hands": [
                {
                    "hand": b.hand_id,
                    "table": b.table_id,
                    "number": b.number,
                    "points": b.points,
                    "finished_at": b.finished_at.isoformat() if b.finished_at else None,
                    "breakdown": b.breakdown,
                    "replay": f"/hands/{b.hand_id}/replay/",
                }
                for b in self.biggest
            ],
            "special_hands": [{"name": k, "count": v} for k, v in sorted(self.special.items())],
        }


def special_name(item: dict[str, Any], seat: str | None = None) -> str | None:
    """The special hand a breakdown line names (its label), or None for an ordinary line.

    A rule set that scores every seat (浙东得) names its lines ``"<seat>:<key>"`` and labels
    them ``"<seat's name> <label>"``: only ``seat``'s own lines count, by their key and label;
    its total line marks a capped hand, 腊子, by ending its label so."""
    key = str(item.get("code") or item.get("name") or "")
    label = str(item.get("label") or key)
    if ":" in key:
        owner, key = key.split(":", 1)
        if seat is not None and owner != seat:
            return None
        label = label.split(" ", 1)[-1]
        if key == "total":
            return "腊子" if label.endswith("腊子") else None
    if not key or key in ORDINARY or item.get("payments"):
        return None
    return label


def player_stats(
    user: Any,
    variant: str,
    table_ids: Iterable[int] | None = None,
    *,
    reader: Any = None,
    session: SessionBase | None = None,
) -> PlayerStats:
    """The player's statistics over their finished hands of ``variant`` (optionally only at the
    tables ``table_ids``: a tournament's), with the biggest hands that ``reader`` (a user, or
    None for an anonymous reader) with ``session`` may open."""
    figures = _figures(user, variant, table_ids)
    if not figures.ranked_wins:
        return figures
    return replace(figures, biggest=_biggest_for(figures.ranked_wins, reader, session))


def _figures(user: Any, variant: str, table_ids: Iterable[int] | None) -> PlayerStats:
    seats = Seat.objects.filter(user=user, table__variant=variant)
    scope = "all"
    if table_ids is not None:
        wanted = sorted(set(table_ids))
        seats = seats.filter(table_id__in=wanted)
        scope = hashlib.sha256(",".join(map(str, wanted)).encode()).hexdigest()[:16]
    chairs = dict(seats.values_list("table_id", "position"))
    if not chairs:
        return PlayerStats(variant)
    finished = Hand.objects.filter(table_id__in=list(chairs), status=Hand.FINISHED, result__isnull=False)
    # A duplicate deal still played at another table is not counted yet (its outcome is secret);
    # the cache key below changes when it is, so the statistics pick it up at the next read.
    finished = disclosure.disclosed_only(finished)
    mark = finished.aggregate(n=Count("pk"), newest=Max("pk"))
    # v2: the cached value holds the ranking of the wins, not the hands themselves.
    key = f"caishen:ratings:stats:v2:{user.pk}:{variant}:{scope}:{mark['n']}:{mark['newest']}"
    cached = cache.get(key)
    if isinstance(cached, PlayerStats):
        return cached
    out = _count(variant, chairs, finished)
    cache.set(key, out, CACHE_SECONDS)
    return out


def _count(variant: str, chairs: dict[int, int], finished: Any) -> PlayerStats:
    out = PlayerStats(variant)
    hands = finished.order_by("finished_at", "pk").values_list("pk", "table_id", "dealer_position", "result")
    special: Counter[str] = Counter()
    wins: list[tuple[int, int, int]] = []
    for pk, table_id, dealer, stored in hands:
        result: dict[str, Any] = stored or {}
        me = SEATS[(chairs[table_id] - dealer) % 4]
        out.hands += 1
        points = int((result.get("deltas") or {}).get(me, 0))
        out.points += points
        if result.get("status") != "win":
            continue
        if result.get("winner") == me:
            out.wins += 1
            out.self_draws += bool(result.get("self_drawn"))
            breakdown = list(result.get("breakdown") or [])
            wins.append((points, pk, table_id))
            special.update(name for item in breakdown if (name := special_name(item, me)) is not None)
        elif result.get("from") == me and not result.get("self_drawn"):
            out.deal_ins += 1
    out.ranked_wins = sorted(wins, key=lambda w: (-w[0], w[1]))
    out.best_points = out.ranked_wins[0][0] if out.ranked_wins else None
    out.special = dict(special)
    return out


def _biggest_for(ranked: list[tuple[int, int, int]], reader: Any, session: SessionBase | None) -> list[BigHand]:
    """The reader's biggest hands: the first TOP_HANDS wins, most points first, of tables the
    reader may open and whose secrets may be disclosed now; the others are skipped, not hidden
    in place, so nothing says where a hidden hand ranks."""
    openable = openable_tables(reader, session, {table_id for _, _, table_id in ranked})
    candidates = [(points, hand_id) for points, hand_id, table_id in ranked if table_id in openable]
    out: list[BigHand] = []
    # Read the hands a few at a time: the disclosure check needs the row, and usually the first
    # TOP_HANDS all pass.
    for start in range(0, len(candidates), TOP_HANDS * 2):
        batch = candidates[start : start + TOP_HANDS * 2]
        rows = Hand.objects.select_related("table").in_bulk([hand_id for _, hand_id in batch])
        for points, hand_id in batch:
            row = rows.get(hand_id)
            if row is None or not disclosure.may_disclose(row):
                continue
            breakdown = list((row.result or {}).get("breakdown") or [])
            out.append(BigHand(hand_id, row.table_id, row.number, points, row.finished_at, breakdown))
            if len(out) == TOP_HANDS:
                return out
    return out


def variants_played(user: Any) -> list[str]:
    """The rule sets of the tables the player sat at, for the stats page's tabs."""
    return sorted(set(Seat.objects.filter(user=user).values_list("table__variant", flat=True)))
