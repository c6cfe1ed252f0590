"""A win as the scoring sees it: the typed :class:`WinFacts` built once per evaluation, and the
one way every rule set turns its itemised breakdown into a :class:`Result`.

Each rule set prices a hand its own way, but all of them end the same: a list of breakdown
lines, some carrying payments (seat name -> delta), and a result whose deltas are the sum of
those payments.  :func:`win_result` and :func:`draw_result` do that sum in one place and check
it, so a rule set cannot show one set of payments and settle another.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Self

from games.engine.hand import WinContext
from games.engine.scoring import check_zero_sum
from games.engine.state import SEATS, BreakdownItem, Meld, Result
from games.engine.tiles import Tile, tile_str

SELF_DRAW, DISCARD_WIN, ROBBING_KONG = "self_draw", "discard", "robbing_kong"


@dataclass(slots=True)
class WinFacts:
    """What every rule set knows of one winning attempt, in plain values.

    A rule set builds one per evaluation (from the :class:`WinContext` and the hand) and hands
    it to its scoring patterns (:class:`games.engine.patterns.Pattern`); a rule set whose
    patterns need more subclasses it with its own fields.
    """

    seat: int  # the winner
    tile: Tile | None  # the winning tile (None: a win on the dealt hand)
    source: str  # "self_draw" | "discard" | "robbing_kong" | a rule set's own source
    from_seat: int | None  # the discarder / the robbed player
    turn_kind: str  # how the winner came to hold the tiles (deal, draw, replacement, claim)
    melds: tuple[Meld, ...]
    wilds: int = 0  # wild tiles in the winning hand
    shaped: bool = True  # the tiles form the rule set's standard shape (a pair and melds)
    first_draw: bool = False  # the winner's first own draw, with no claim made by anyone yet

    @property
    def self_drawn(self) -> bool:
        return self.source == SELF_DRAW

    @property
    def dealer(self) -> bool:
        """Within a hand the dealer is always seat E (0)."""
        return self.seat == 0

    @classmethod
    def of(cls, ctx: WinContext, **more: Any) -> Self:
        """The facts of ``ctx``, with the judged ones (``wilds``, ``shaped``, a subclass's own
        fields) given by name."""
        return cls(
            seat=ctx.seat,
            tile=ctx.tile,
            source=ctx.source,
            from_seat=ctx.from_seat,
            turn_kind=ctx.turn_kind,
            melds=tuple(ctx.melds),
            **more,
        )


def payments_total(items: Iterable[BreakdownItem | None]) -> list[int]:
    """Each seat's delta: the sum of every line's payments.  Each line must itself balance
    (a payment moves points from one seat to another), so the sum is zero too."""
    deltas = [0, 0, 0, 0]
    for item in items:
        if item is None or not item.payments:
            continue
        line = [item.payments.get(name, 0) for name in SEATS]
        if sum(line) != 0:
            raise AssertionError(f"breakdown line {item.name!r} does not balance: {item.payments}")
        for seat, d in enumerate(line):
            deltas[seat] += d
    check_zero_sum(deltas)
    return deltas


def win_result(
    ctx: WinContext,
    breakdown: Sequence[BreakdownItem],
    win_kind: str,
    *,
    self_drawn: bool | None = None,
) -> Result:
    """The result of a win, its deltas the sum of the breakdown's payments.

    ``self_drawn`` defaults to a win by ``self_draw``; a rule set with other sources that have
    no discarder (漳州 抢金) says so.  A self-drawn win names nobody it came from.
    """
    drawn = ctx.source == SELF_DRAW if self_drawn is None else self_drawn
    return Result(
        status="win",
        winner=ctx.seat,
        from_seat=None if drawn else ctx.from_seat,
        self_drawn=drawn,
        deltas=payments_total(breakdown),
        breakdown=list(breakdown),
        win_kind=win_kind,
        win_tile=tile_str(ctx.tile) if ctx.tile is not None else None,
    )


def draw_result(breakdown: Sequence[BreakdownItem], win_kind: str | None = None) -> Result:
    """A hand nobody won (流局, or 漳州 诈胡), its deltas the sum of the breakdown's payments."""
    return Result(status="draw", deltas=payments_total(breakdown), breakdown=list(breakdown), win_kind=win_kind)


__all__ = ["WinFacts", "payments_total", "win_result", "draw_result", "SELF_DRAW", "DISCARD_WIN", "ROBBING_KONG"]
