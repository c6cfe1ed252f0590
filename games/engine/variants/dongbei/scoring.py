"""东北麻将 (D4) settlement: 番 of the winner and the losers, 杠分, 撵庄, 飘.

The text's scoring table is partly lost; SPEC D4.2 decides the model
``pay(L) = 底注 × 2^min(cap, F_w + F_L + dealerBonus)`` with HOUSE values as
options.  Every payment moves points between two seats, so the deltas are
zero-sum by construction; each side score is its own breakdown line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine.hand import BY_REPLACEMENT, Hand, WinContext
from games.engine.patterns import Pattern, matching
from games.engine.rule_state import RuleState
from games.engine.scoring import Ledger, others
from games.engine.state import KONG_ADDED, KONG_CONCEALED, KONG_EXPOSED, MELD_CHOW, BreakdownItem, Result, seat_name
from games.engine.tiles import Tile, rank_of, tile_str
from games.engine.variants.dongbei.hands import (
    SEVEN_PAIRS,
    STANDARD,
    THIRTEEN_ORPHANS,
    Fan,
    all_tiles,
    best_sequence_fans,
    flush_kind,
    four_alike_fans,
    is_closed,
    is_one_left,
    sequence_fans,
)
from games.engine.win import WinFacts, draw_result, win_result

DEALER = 0  # within a hand the dealer is always seat E
READY = "ready"  # player flag: declared 听 (报听)


@dataclass(slots=True)
class DongbeiState(RuleState):
    """D4's hand state: the roll, the last four draws, 杠后炮 and 撵庄."""

    die: int | None = None  # the one die that chose the opening (none in a rigged hand)
    opening: list[int] | None = None  # [seat, stack] the wall was opened at
    final_round: bool = False  # the last four drawable tiles are being drawn
    discard_after_kong: bool = False  # the last discard followed a kong's replacement draw
    nianzhuang_count: int = 0  # the first discards that followed the dealer's lead; -1: spoilt
    nianzhuang_tile: Tile | None = None  # the dealer's lead


def dongbei_state(hand: Hand) -> DongbeiState:
    # Inline rather than state_of(): it is read on every turn and every claim check.
    state = hand.state
    assert isinstance(state, DongbeiState)
    return state


# ------------------------------------------------------------------------------------ 番
@dataclass(slots=True)
class DongbeiFacts(WinFacts):
    """D4's facts of one reading (``form``) of a winning hand."""

    form: str = STANDARD  # STANDARD or SEVEN_PAIRS
    ready: bool = False  # the winner declared 听 (报听)
    closed: bool = False  # 立门: no chow, pung or exposed kong
    one_left: bool = False  # 手把一
    flush: str | None = None  # "full" (清一色), "half" (混一色) or None


# The winner's fixed 番, before and after the computed ones (the sequence and four-alike 番).
# A pattern worth 0 at the table (an option set to 0) is not listed.
HEAD_FANS: tuple[Pattern[DongbeiFacts], ...] = (
    Pattern("ready", "听牌", lambda f: f.ready),
    Pattern("seven_pairs", "七小对", lambda f: f.form == SEVEN_PAIRS, fixed=3),
    # 七小对糊时不叠加自己立门.
    Pattern("closed", "立门", lambda f: f.form != SEVEN_PAIRS and f.closed),
    Pattern("one_left", "手把一", lambda f: f.one_left),
)
TAIL_FANS: tuple[Pattern[DongbeiFacts], ...] = (
    # 杠上开花 does not add the 自摸 番 (不累加点炮和自摸).
    Pattern("kong_bloom", "杠上开花", lambda f: f.self_drawn and f.turn_kind == BY_REPLACEMENT, fixed=2),
    Pattern("self_draw", "自摸", lambda f: f.self_drawn and f.turn_kind != BY_REPLACEMENT, "fan_self_draw"),
    Pattern("half_flush", "混一色", lambda f: f.flush == "half", "fan_half_flush"),
    Pattern("full_flush", "清一色", lambda f: f.flush == "full", "fan_full_flush"),
)


def _fans(patterns: Sequence[Pattern[DongbeiFacts]], facts: DongbeiFacts, options: Mapping[str, Any]) -> list[Fan]:
    out = []
    for p in matching(patterns, facts):
        value = p.value(options)
        if value:
            out.append(Fan(p.key, p.label, value))
    return out


def winner_fans(hand: Hand, ctx: WinContext, form: str) -> list[Fan]:
    """The winner's 番 for one reading (``form``) of the winning hand."""
    opts = hand.options
    counts = ctx.counts[:34]
    melds = ctx.melds
    facts = DongbeiFacts.of(
        ctx,
        form=form,
        ready=bool(hand.players[ctx.seat].flags.get(READY)),
        closed=is_closed(melds),
        one_left=is_one_left(sum(counts), melds, winning=True),
        flush=flush_kind(all_tiles(counts, melds)),
    )
    fans = _fans(HEAD_FANS, facts, opts)
    if form == STANDARD:
        fans.extend(best_sequence_fans(counts, melds))
    fans.extend(four_alike_fans(counts, melds, exposed_only=False))
    fans.extend(_fans(TAIL_FANS, facts, opts))
    return fans


def best_winner_fans(hand: Hand, ctx: WinContext, forms: Sequence[str]) -> tuple[str, list[Fan]]:
    """The reading that scores most (a hand may be both 七小对 and a standard win)."""
    best: tuple[str, list[Fan]] | None = None
    for form in forms:
        if form == THIRTEEN_ORPHANS:
            continue
        fans = winner_fans(hand, ctx, form)
        if best is None or sum(f.value for f in fans) > sum(f.value for f in best[1]):
            best = (form, fans)
    assert best is not None, forms
    return best


def loser_fans(hand: Hand, seat: int, ctx: WinContext) -> list[Fan]:
    """The extra 番 loser ``seat`` pays on: its own 听/立门/手把一/明 patterns, and dealing in."""
    opts = hand.options
    p = hand.players[seat]
    fans: list[Fan] = []
    if p.flags.get(READY):
        fans.append(Fan("ready", "听牌", 1))
    if is_closed(p.melds):
        # Any unopened hand, a 七小对 shape included (没糊时算立门).
        fans.append(Fan("closed", "立门", 1))
    if is_one_left(len(p.hand), p.melds, winning=False):
        fans.append(Fan("one_left", "手把一", 1))
    # Hidden patterns count only for the winner: a loser pays on the 明 (exposed) ones.
    chows = [m.tiles[0] for m in p.melds if m.kind == MELD_CHOW]
    fans.extend(sequence_fans(chows, (), exposed_only=True))
    fans.extend(four_alike_fans(p.counts, p.melds, exposed_only=True))
    if seat == ctx.from_seat:
        if ctx.source == "discard" and dongbei_state(hand).discard_after_kong:
            fans.append(Fan("kong_deal_in", "杠后炮", 2))
        elif opts["fan_deal_in"]:
            fans.append(Fan("deal_in", "点炮", opts["fan_deal_in"]))
    if opts["dealer_bonus"] and DEALER in (seat, ctx.seat):
        fans.append(Fan("dealer", "庄家", opts["dealer_bonus"]))
    return fans


def _fan_params(f: Fan) -> dict[str, Any]:
    """One 番 item as breakdown data: its code, its 番, and its tiles and 明/暗 where it has them."""
    out: dict[str, Any] = {"code": f.name, "fan": f.value}
    if f.tiles:
        out["tiles"] = f.tiles
    if f.exposed is not None:
        out["exposed"] = f.exposed
    return out


def _fan_text(fans: Sequence[Fan]) -> str:
    return " + ".join(f"{f.label}{f.value}" + (f"({f.detail})" if f.detail else "") for f in fans) or "0"


# ------------------------------------------------------------------------- side scores
def kong_items(hand: Hand) -> list[BreakdownItem]:
    """杠分: every standing kong, paid by each other player (不随庄走: the dealer pays like anyone).

    Also what a leaver settles first (逃跑: 先结算杠分).
    """
    opts = hand.options
    base = opts["base"]
    items: list[BreakdownItem] = []
    for seat, p in enumerate(hand.players):
        for m in p.melds:
            if m.kind == KONG_CONCEALED:
                value, label = opts["kong_points_concealed"], "暗杠"
            elif m.kind in (KONG_EXPOSED, KONG_ADDED):
                value, label = opts["kong_points_exposed"], "明杠" if m.kind == KONG_EXPOSED else "补杠"
            else:
                continue
            if not value:
                continue
            ledger = Ledger()
            ledger.each_pays(others(seat), seat, value * base)
            items.append(
                BreakdownItem(
                    "kong_points",
                    "杠分",
                    value,
                    f"{seat_name(seat)} {label} {tile_str(m.tiles[0])}: each other player pays {value * base}",
                    payments=ledger.named(),
                    unit="points",
                    params={
                        "points": value,
                        "base": base,
                        "each": value * base,
                        "payee": seat_name(seat),
                        "kind": {KONG_CONCEALED: "concealed", KONG_EXPOSED: "exposed"}.get(m.kind, "added"),
                        "tile": tile_str(m.tiles[0]),
                    },
                )
            )
    return items


def nianzhuang_item(hand: Hand) -> BreakdownItem | None:
    """撵庄: all three followed the dealer's first discard; the dealer pays each 2 (4 for a 1) × 底注."""
    if dongbei_state(hand).nianzhuang_count != 4:
        return None
    tile = dongbei_state(hand).nianzhuang_tile
    assert tile is not None, "撵庄 needs the dealer's lead"
    value = 4 if tile < 27 and rank_of(tile) == 1 else 2
    amount = value * hand.options["base"]
    ledger = Ledger()
    for seat in others(DEALER):
        ledger.pay(DEALER, seat, amount)
    return BreakdownItem(
        "nianzhuang",
        "撵庄",
        value,
        f"the dealer led {tile_str(tile)} and all three followed: the dealer pays each {amount}",
        payments=ledger.named(),
        unit="points",
        params={"points": value, "base": hand.options["base"], "each": amount, "payer": "E", "tile": tile_str(tile)},
    )


def piao_amounts(context: Mapping[str, Any]) -> list[int]:
    raw = context.get("piao") or {}
    return [int(raw.get(seat_name(s), 0)) for s in range(4)]


def piao_items(hand: Hand, ctx: WinContext, payers: Sequence[int]) -> list[BreakdownItem]:
    """飘: each payer pays the winner the winner's 飘, and its own 飘 on top."""
    base = hand.options["base"]
    amounts = piao_amounts(hand.context)
    items: list[BreakdownItem] = []
    winner = ctx.seat
    for seat, amount in enumerate(amounts):
        if not amount:
            continue
        ledger = Ledger()
        params: dict[str, Any] = {"points": amount, "base": base, "each": amount * base, "seat": seat_name(seat)}
        if seat == winner:
            ledger.each_pays(payers, winner, amount * base)
            detail = f"{seat_name(seat)} 飘 {amount} and won: each payer pays {amount * base} more"
            params["rule"] = "winner_piao"
        elif seat in payers:
            ledger.pay(seat, winner, amount * base)
            detail = f"{seat_name(seat)} 飘 {amount} and lost: pays the winner {amount * base}"
            params["rule"] = "loser_piao"
        else:
            # 防作弊场: neither won nor dealt in, and the win was not 自摸 → not paid.
            continue
        items.append(BreakdownItem("piao", "飘", amount, detail, payments=ledger.named(), unit="points", params=params))
    return items


# ---------------------------------------------------------------------------- results
def settle_win(hand: Hand, ctx: WinContext, forms: Sequence[str]) -> Result:
    opts = hand.options
    base, cap = opts["base"], opts["cap"]
    winner = ctx.seat
    if ctx.source == "self_draw" or not opts["anti_collusion"]:
        payers = others(winner)
    else:
        # 防作弊场: 谁点炮谁给银子 (the robbed kong's owner counts as the discarder).
        assert ctx.from_seat is not None
        payers = [ctx.from_seat]
    items: list[BreakdownItem] = []
    if THIRTEEN_ORPHANS in forms:
        amount = 2 * base * 2**cap
        items.append(
            BreakdownItem(
                "thirteen_orphans",
                "十三幺",
                2 * 2**cap,
                "封顶×2",
                unit="multiplier",
                params={"multiplier": 2 * 2**cap, "cap": cap, "cap_factor": 2},
            )
        )
        for payer in payers:
            ledger = Ledger()
            ledger.pay(payer, winner, amount)
            items.append(
                BreakdownItem(
                    "payment",
                    "付分",
                    cap,
                    f"{seat_name(payer)} pays 十三幺 封顶×2: 2 × 2^{cap} × {base} = {amount}",
                    payments=ledger.named(),
                    unit="exponent",
                    params={
                        "payer": seat_name(payer),
                        "payee": seat_name(winner),
                        "exponent": cap,
                        "cap": cap,
                        "cap_factor": 2,
                        "base": base,
                        "amount": amount,
                    },
                )
            )
    else:
        form, fans = best_winner_fans(hand, ctx, forms)
        f_w = sum(f.value for f in fans)
        for f in fans:
            items.append(BreakdownItem(f.name, f.label, f.value, f.detail, unit="fan", params=_fan_params(f)))
        for payer in payers:
            pen = loser_fans(hand, payer, ctx)
            total = f_w + sum(f.value for f in pen)
            exp = min(cap, total)
            amount = base * 2**exp
            ledger = Ledger()
            ledger.pay(payer, winner, amount)
            capped = f" (封顶 {cap})" if total > cap else ""
            detail = (
                f"{seat_name(payer)} pays: 番 {f_w} (winner) + {_fan_text(pen)} = {total}{capped}"
                f" → 2^{exp} × {base} = {amount}"
            )
            params = {
                "payer": seat_name(payer),
                "payee": seat_name(winner),
                "winner_fan": f_w,
                "loser_fans": [_fan_params(f) for f in pen],
                "total_fan": total,
                "cap": cap,
                "capped": total > cap,
                "exponent": exp,
                "base": base,
                "amount": amount,
            }
            items.append(
                BreakdownItem("payment", "付分", exp, detail, payments=ledger.named(), unit="exponent", params=params)
            )
    items.extend(kong_items(hand))
    nz = nianzhuang_item(hand)
    if nz is not None:
        items.append(nz)
    items.extend(piao_items(hand, ctx, payers))
    return win_result(ctx, items, ctx.source)


def settle_draw(hand: Hand) -> Result:
    """流局: the dealer stays; 杠分 (and a 撵庄 already made) are still paid; no 飘."""
    items = [BreakdownItem("exhaustive_draw", "流局")]
    items.extend(kong_items(hand))
    nz = nianzhuang_item(hand)
    if nz is not None:
        items.append(nz)
    return draw_result(items)
