"""温州麻将 (spec/rules/SPEC.md §D2) settlement: the pair formulas, 财神分, 杠分, 跟风 and the dealer.

Every payment goes through a :class:`Ledger`, one per breakdown line, so each
line shows who paid whom; the hand's deltas are their sum, taken by
:func:`games.engine.win.win_result` (zero by construction, and checked there).
Amounts are in base units times the table's ``base`` option.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from games.engine.scoring import Ledger, others
from games.engine.state import KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, BreakdownItem, Meld, seat_name
from games.engine.tiles import tile_str

TIERS: Final = {"1246": (1, 2, 4, 6), "2468": (2, 4, 6, 8), "36912": (3, 6, 9, 12)}
DEALER = 0


@dataclass(frozen=True, slots=True)
class Stakes:
    """The pre-hand state that prices a hand (SPEC D2.2 'Scores per hand')."""

    streak: int  # t: this hand's place in the dealer's run (1-based)
    tiers: tuple[int, int, int, int]
    buy_base: bool  # b: the dealer 买底
    counter_base: frozenset[int]  # seats that 顶底
    pair_base: str  # "one" | "first_tier": U between two non-dealers
    one_sided: bool  # the literal reading of 买底/顶底 (SPEC D2.3.4)
    unit: int  # the table's ``base`` option

    @property
    def tier(self) -> int:
        """D = tiers[t]; a fifth hand (when the table allows one) stays on the top tier."""
        return self.tiers[min(self.streak, 4) - 1]

    @property
    def non_dealer_base(self) -> int:
        return 1 if self.pair_base == "one" else self.tiers[0]

    def pair_value(self, winner: int, loser: int) -> tuple[int, str, list[dict[str, Any]]]:
        """The base one loser pays one winner before the multiplier, how it is made up (text),
        and its parts as data: ``{"kind": "pair_base" | "tier" | "buy_base" | "counter_base",
        "value": n}``."""
        if DEALER not in (winner, loser):
            u = self.non_dealer_base
            return u, f"{u}", [{"kind": "pair_base", "value": u}]
        x = loser if winner == DEALER else winner
        d = self.tier
        parts: list[dict[str, Any]] = [{"kind": "tier", "value": d}]
        names = [f"底{d}"]
        if self.buy_base and (not self.one_sided or winner == DEALER):
            parts.append({"kind": "buy_base", "value": d})
            names.append(f"买底{d}")
        if x in self.counter_base and (not self.one_sided or winner == x):
            parts.append({"kind": "counter_base", "value": d})
            names.append(f"顶底{d}")
        return d * len(parts), "+".join(names), parts


def stakes_from(context: Mapping[str, Any], options: Mapping[str, Any]) -> Stakes:
    return Stakes(
        streak=int(context.get("dealer_streak", 1)),
        tiers=TIERS[options["base_tiers"]],
        buy_base=bool(context.get("buy_base", False)),
        counter_base=frozenset("ESWN".index(s) for s in context.get("counter_base", ())),
        pair_base=options["pair_base"],
        one_sided=options["base_bets"] == "one_sided",
        unit=options["base"],
    )


def hand_score(stakes: Stakes, winner: int, mult: int) -> BreakdownItem:
    """胡牌分: every loser pays the winner (pair base) × M, discard or self-draw alike."""
    ledger = Ledger()
    details = []
    shares = []
    for loser in others(winner):
        base, how, parts = stakes.pair_value(winner, loser)
        amount = base * mult * stakes.unit
        ledger.pay(loser, winner, amount)
        details.append(f"{seat_name(loser)} pays ({how})×{mult} = {amount}")
        shares.append({"payer": seat_name(loser), "parts": parts, "amount": amount})
    params = {"multiplier": mult, "unit_stake": stakes.unit, "payee": seat_name(winner), "shares": shares}
    return BreakdownItem(
        "hand_score", "胡牌分", mult, "; ".join(details), payments=ledger.named(), unit="multiplier", params=params
    )


def caishen_score(
    held: Sequence[int], winner: int | None, doubled: bool, winner_pairs_only: bool, unit: int
) -> BreakdownItem | None:
    """财神分: each 财神 held at the end is a point; every pair of players nets the difference.

    A 三财神硬胡 winner's 财神 count double.  With ``winner_pairs_only`` only pairs with the
    winner settle (and nothing on a 流局).
    """
    c = [n * (2 if doubled and seat == winner else 1) for seat, n in enumerate(held)]
    ledger = Ledger()
    for i in range(4):
        for j in range(i + 1, 4):
            if winner_pairs_only and winner not in (i, j):
                continue
            diff = c[i] - c[j]
            if diff > 0:
                ledger.pay(j, i, diff * unit)
            elif diff < 0:
                ledger.pay(i, j, -diff * unit)
    if not any(ledger.deltas):
        return None
    detail = " ".join(f"{seat_name(s)}={n}" for s, n in enumerate(c))
    params = {
        "held": {seat_name(s): n for s, n in enumerate(c)},
        "doubled": doubled,
        "winner_pairs_only": winner_pairs_only,
    }
    return BreakdownItem(
        "caishen_score", "财神分", sum(held), detail, payments=ledger.named(), unit="count", params=params
    )


def kong_score(melds: Sequence[Sequence[Meld]], unit: int) -> BreakdownItem | None:
    """杠分: 暗杠 2 from each other player, 明杠 3 from the discarder, 补杠 1 from each other."""
    ledger = Ledger()
    parts = []
    kongs: list[dict[str, Any]] = []
    for seat, ms in enumerate(melds):
        for m in ms:
            tile = tile_str(m.tiles[0])
            if m.kind == KONG_CONCEALED:
                ledger.each_pays(others(seat), seat, 2 * unit)
                parts.append(f"{seat_name(seat)} 暗杠")
                kongs.append({"seat": seat_name(seat), "kind": "concealed", "tile": tile, "each": 2 * unit})
            elif m.kind == KONG_EXPOSED and m.from_seat is not None:
                ledger.pay(m.from_seat, seat, 3 * unit)
                parts.append(f"{seat_name(seat)} 明杠 ({seat_name(m.from_seat)} 点杠)")
                kongs.append(
                    {
                        "seat": seat_name(seat),
                        "kind": "exposed",
                        "tile": tile,
                        "from": seat_name(m.from_seat),
                        "each": 3 * unit,
                    }
                )
            elif m.kind == KONG_ADDED:
                ledger.each_pays(others(seat), seat, unit)
                parts.append(f"{seat_name(seat)} 补杠")
                kongs.append({"seat": seat_name(seat), "kind": "added", "tile": tile, "each": unit})
    if not parts:
        return None
    return BreakdownItem(
        "kong_score",
        "杠分",
        len(parts),
        ", ".join(parts),
        payments=ledger.named(),
        unit="count",
        params={"kongs": kongs},
    )


def follow_score(paid: Sequence[Sequence[int]], unit: int) -> BreakdownItem | None:
    """跟风: each recorded (victim, amount) has the victim pay every other player the amount."""
    if not paid:
        return None
    ledger = Ledger()
    parts = []
    victims = []
    for victim, amount in paid:
        for other in others(victim):
            ledger.pay(victim, other, amount * unit)
        parts.append(f"{seat_name(victim)} 被跟风 {amount}")
        victims.append({"payer": seat_name(victim), "each": amount * unit})
    return BreakdownItem(
        "follow_wind",
        "跟风",
        len(paid),
        ", ".join(parts),
        payments=ledger.named(),
        unit="count",
        params={"followed": victims},
    )


def dealer_item(stakes: Stakes, offset: int, reason: str, why: str, hands_max: int = 0) -> BreakdownItem:
    """Who deals next (``value`` = seats to move the deal: 0 stays, 1 to the 下家); ``why`` is
    the reason's code (docs/scoring.md)."""
    label = "连庄" if offset == 0 else "下庄"
    detail = f"第{stakes.streak}把 底分{stakes.tier}; {reason}"
    params: dict[str, Any] = {"streak": stakes.streak, "tier": stakes.tier, "reason": why, "seats": offset}
    if hands_max:
        params["hands_max"] = hands_max
    return BreakdownItem("dealer", label, offset, detail, unit="seats", params=params)
