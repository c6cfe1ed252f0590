"""漳州麻将 (SPEC D3) settlement: the hand score, 分饼, the losers' 花分/杠分, 诈胡.

The doc's table is lost; SPEC D3 fixes the model (every value a HOUSE option):
each loser pays the winner ``(底分 + W) × K × R`` where ``W`` is the winner's
花分+杠分, ``K`` the win type's multiplier and ``R`` the dealer-streak factor on
payments between the dealer and another player.  The side scores are settled
apart: 分饼 (the dealer paid the followers during the hand) and the losers'
花分/杠分 among themselves, pairwise; under 承包 and 诈胡 one seat pays 分饼
instead (:class:`Liable`).  Every payment goes through a Ledger, so
the hand is zero-sum by construction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, NamedTuple

from games.engine.hand import Hand, WinContext, WinVerdict
from games.engine.patterns import Pattern, by_key
from games.engine.rule_state import RuleState
from games.engine.scoring import Ledger, others
from games.engine.state import BreakdownItem, Result, seat_name
from games.engine.tiles import Tile
from games.engine.variants.zhangzhou.hands import points
from games.engine.win import WinFacts, draw_result, win_result

DEALER = 0
NO_GOLD = -1  # before the 金 is turned up (a hand is never seen so: it is set before play)


@dataclass(slots=True)
class ZhangzhouState(RuleState):
    """D3's hand state: the 金, 分饼, 游金 and the open prompt (抢金, 抢暗杠)."""

    flower_rounds: int = 0  # rounds of the opening 补花
    gold_dice: list[list[int]] = field(default_factory=list)  # the rolls that turned up the 金
    gold: Tile = NO_GOLD  # the 金's kind (the hand's one wild)
    gold_pos: int = NO_GOLD  # its wall position (face up, drawn in turn)
    fenbing: list[int] = field(default_factory=lambda: [0, False])  # [rounds followed, broken]
    double_you: list[int] = field(default_factory=list)  # seats whose 双游 restricts the others
    final_round: bool = False  # a tile of the last four drawable ones has been drawn
    after_kong: int | None = None  # the seat drawing replacements for a kong (杠上开花)
    held_draw: int | None = None  # the seat whose draw waits for the 抢金 answers
    triple_you: int | None = None  # the seat that drew the 金 in 三游
    skip_prompt: bool = False  # the 抢暗杠 question was asked: this time the draw goes ahead
    # The open question: {"kind", "seats": [{"seat", "options": [[kind, tile]], "answer"}]}.
    prompt: dict[str, Any] | None = None


def zhangzhou_state(hand: Hand) -> ZhangzhouState:
    # Inline rather than state_of(): it is read on every turn and every claim check.
    state = hand.state
    assert isinstance(state, ZhangzhouState)
    return state


SELF_DRAWN = frozenset({"self_draw", "rob_gold"})  # sources with no discarder


@dataclass(slots=True)
class ZhangzhouFacts(WinFacts):
    """D3's facts of a self-drawn win: the shared ones (``wilds``: the 金 in hand) and 游金."""

    you_level: int = 0  # 1 单游, 2 双游: the level the winner entered by a discard
    you_draw: bool = False  # the draw completes 游金 (an ordinary tile onto five melds and a 金)
    triple_you: bool = False  # the winner drew the 金 in 双游 (三游)
    after_kong: bool = False  # the draw is the replacement for the winner's own kong


def _you(level: int) -> Callable[[ZhangzhouFacts], bool]:
    return lambda f: not f.triple_you and f.shaped and f.you_draw and min(f.you_level, 2) == level


# The win kinds, each worth its K (a table option); a verdict's ``data["parts"]`` keeps the
# values it was judged with.  A self-draw scores the one kind worth most, the first of equals
# in this order (游金, then 三金倒, then 自摸); 杠上开花 multiplies it.
PATTERNS: tuple[Pattern[ZhangzhouFacts], ...] = (
    Pattern("discard", "平胡", option="k_discard"),
    Pattern("robbing_kong", "抢杠胡", price=lambda o: int(o["k_discard"] * o["factor_robbing_kong"])),
    Pattern("rob_gold", "抢金", option="k_rob_gold"),
    Pattern("you_triple", "三游", lambda f: f.triple_you, "k_triple_you"),
    Pattern("you_double", "双游", _you(2), "k_double_you"),
    Pattern("you_single", "单游", _you(1), "k_single_you"),
    Pattern("three_golds", "三金倒", lambda f: f.wilds >= 3, "k_three_golds"),
    Pattern("self_draw", "自摸", lambda f: f.shaped, "k_self_draw"),
    Pattern("kong_bloom", "杠上开花", lambda f: f.turn_kind == "replacement" and f.after_kong, "factor_kong_bloom"),
)
PATTERN = by_key(PATTERNS)
SELF_DRAW_KINDS = tuple(PATTERN[k] for k in ("you_triple", "you_double", "you_single", "three_golds", "self_draw"))
LABELS: dict[str, str] = {p.key: p.label for p in PATTERNS}


def streak_factor(hand: Hand, a: int, b: int) -> int:
    """R: this hand's place in the dealer's run between the dealer and another seat, else 1."""
    if DEALER not in (a, b) or not hand.options["dealer_streak_factor"]:
        return 1
    return int(hand.context.get("dealer_streak", 1))


def fenbing_each(hand: Hand) -> int:
    """What the dealer has paid each other player for 分饼: 1, then 2, 4 ... per followed round."""
    rounds = int(zhangzhou_state(hand).fenbing[0])
    return int(hand.options["base"]) * ((1 << rounds) - 1)


class Liable(NamedTuple):
    """Who pays the side scores instead of the seat that owes them: ``payer_for[payee]`` pays
    whatever anyone owes ``payee`` (nothing when that is ``payee`` itself), and ``note`` says why.

    承包 (the final round's discarder for the winner) and 诈胡 (the wrong guesser for everyone)
    read "所有的分包括当局的杠分和分饼等其他所有要支付的分" the same way."""

    payer_for: Mapping[int, int]
    note: str
    code: str = ""  # the note as data: "contract" (承包) or "false_win" (诈胡)


NOBODY = Liable({}, "")


def _pay(ledgers: tuple[Ledger, ...], payer: int, payee: int, amount: int, liable: Liable) -> bool:
    """Book one side payment, made by whoever is liable for it; True if someone else paid it."""
    actual = liable.payer_for.get(payee, payer)
    if actual != payee:
        for ledger in ledgers:
            ledger.pay(actual, payee, amount)
    return actual != payer


def _fenbing(hand: Hand, total: Ledger, liable: Liable) -> BreakdownItem | None:
    each = fenbing_each(hand)
    if not each:
        return None
    rounds = int(zhangzhou_state(hand).fenbing[0])
    item = Ledger()
    moved = False
    for s in others(DEALER):
        moved |= _pay((item, total), DEALER, s, each, liable)
    detail = f"{rounds} round(s) followed: the dealer pays each other player {each}"
    params: dict[str, Any] = {"rounds": rounds, "each": each, "payer": "E"}
    if moved:
        detail += f"; {liable.note}"
        params["liable"] = liable.code
    return BreakdownItem("fenbing", "分饼", rounds, detail, payments=item.named(), unit="count", params=params)


def _pairwise(hand: Hand, seats: list[int], total: Ledger) -> BreakdownItem | None:
    """花分/杠分 among ``seats``: each pair settles the difference of their points.  Only losers
    settle so (a winner's points are inside its score), so no liability ever moves these."""
    base = hand.options["base"]
    pts = {s: points(hand.players[s]) for s in seats}
    item = Ledger()
    for a, b in combinations(seats, 2):
        diff = pts[b] - pts[a]
        if diff:
            payer, payee = (a, b) if diff > 0 else (b, a)
            for ledger in (item, total):
                ledger.pay(payer, payee, abs(diff) * base)
    if not any(item.deltas):
        return None
    detail = ", ".join(f"{seat_name(s)} {pts[s]}" for s in seats)
    params = {"points_by_seat": {seat_name(s): pts[s] for s in seats}, "base": base}
    return BreakdownItem(
        "flower_kong_points",
        "花分/杠分",
        sum(pts.values()),
        detail,
        payments=item.named(),
        unit="points",
        params=params,
    )


def settle_win(hand: Hand, ctx: WinContext, verdict: WinVerdict) -> Result:
    opts = hand.options
    base = opts["base"]
    winner = ctx.seat
    k: int = verdict.data["k"]
    w = points(hand.players[winner])
    items: list[BreakdownItem] = []
    for name, value in verdict.data["parts"]:
        # K, the hand multiplier, is the win kind's value; 杠上开花 multiplies it.
        role = "hand_multiplier_factor" if name == "kong_bloom" else "hand_multiplier"
        items.append(
            BreakdownItem(
                name,
                LABELS[name],
                value,
                "× K" if name == "kong_bloom" else "K",
                unit="multiplier",
                params={"multiplier": value, "role": role},
            )
        )
    if w:
        items.append(
            BreakdownItem(
                "winner_points",
                "赢家花分/杠分",
                w,
                "counted in the winner's base (底分 + W)",
                unit="points",
                params={"points": w, "role": "winner_points_in_base"},
            )
        )
    # 承包: a discard won on in the final round (the last four drawable tiles) is paid by its
    # discarder alone, for all three losers; a table may make every discard win so.
    contract = ctx.source == "discard" and bool(zhangzhou_state(hand).final_round)
    alone = ctx.source == "discard" and (contract or opts["discard_payer"] == "discarder")
    total = Ledger()
    main = Ledger()
    separate = opts["winner_points"] == "separate"
    unit = 1 if separate else 1 + w
    shares: list[dict[str, Any]] = []
    for loser in others(winner):
        r = streak_factor(hand, loser, winner)
        amount = base * unit * k * r
        if separate:
            amount += base * w
        payer = ctx.from_seat if alone and ctx.from_seat is not None else loser
        shares.append({"loser": seat_name(loser), "payer": seat_name(payer), "streak_factor": r, "amount": amount})
        for ledger in (main, total):
            ledger.pay(payer, winner, amount)
    if separate:
        formula = f"each loser: {base} × {k} × R + {w} × {base}"
    else:
        formula = f"each loser: ({base} + {w}×{base}) × {k} × R"
    streak = streak_factor(hand, DEALER, 1)
    if streak > 1:
        formula += f"; R = {streak} between the dealer and another player"
    if alone and ctx.from_seat is not None:
        formula += f"; {seat_name(ctx.from_seat)} pays all three shares" + (" (承包)" if contract else "")
    params: dict[str, Any] = {
        "base": base,
        "hand_multiplier": k,
        "winner_points": w,
        "winner_points_rule": "separate" if separate else "in_base",
        "streak_factor": streak,
        "payee": seat_name(winner),
        "shares": shares,
    }
    if alone and ctx.from_seat is not None:
        params["pays_all"] = seat_name(ctx.from_seat)
    items.append(BreakdownItem("hand", "和牌", k, formula, payments=main.named(), unit="multiplier", params=params))
    if contract:
        items.append(
            BreakdownItem(
                "contract",
                "承包",
                1,
                "the final round's discarder pays everything owed",
                params={"payer": seat_name(ctx.from_seat) if ctx.from_seat is not None else None},
            )
        )
    liable = NOBODY
    if contract and ctx.from_seat is not None:
        liable = Liable({winner: ctx.from_seat}, "承包: the discarder pays the winner's share", "contract")
    for side in (_fenbing(hand, total, liable), _pairwise(hand, others(winner), total)):
        if side is not None:
            items.append(side)
    return _checked(win_result(ctx, items, verdict.patterns[0], self_drawn=ctx.source in SELF_DRAWN), total)


def settle_draw(hand: Hand) -> Result:
    """和局: all four settle 花分/杠分 pairwise; 分饼 already paid stands."""
    total = Ledger()
    items = [
        BreakdownItem(
            "exhaustive_draw", "和局", 0, "no winner: the dealer deals again (臭庄)", params={"dealer_stays": True}
        )
    ]
    for side in (_fenbing(hand, total, NOBODY), _pairwise(hand, [0, 1, 2, 3], total)):
        if side is not None:
            items.append(side)
    return _checked(draw_result(items), total)


def settle_false_win(hand: Hand, claimant: int, guess: str, actual: dict[str, Any]) -> Result:
    """诈胡: "按自摸赔三家(包括当局的杠分和分饼等其他所有要支付的分)".

    SPEC D3: the claimant pays each other player P ``(底分 + W_P) × K(自摸) × R(P, claimant)``
    as if P had won by self-draw, and every other payment of the hand that someone owes is paid
    by the claimant instead — the same reading as 承包 (nobody but the claimant pays).

    Each P is scored as a self-drawing winner, so P's 花分/杠分 are already inside that share
    (W_P: "赢家的花分，杠分在计分里直接统计") and a winner takes no part in the losers' pairwise
    settlement: with all three as winners that settlement is replaced, not paid a second time
    (SPEC: "this replaces the losers' 花杠分 settlement").  What is left for the claimant to take
    over is 分饼: the dealer's payments for followed discards.
    """
    opts = hand.options
    base = opts["base"]
    k = opts["k_self_draw"]
    total = Ledger()
    main = Ledger()
    shares: list[dict[str, Any]] = []
    for p in others(claimant):
        w = points(hand.players[p])
        r = streak_factor(hand, p, claimant)
        amount = base * (1 + w) * k * r
        for ledger in (main, total):
            ledger.pay(claimant, p, amount)
        shares.append({"payee": seat_name(p), "winner_points": w, "streak_factor": r, "amount": amount})
    shown = ", ".join(f"{seat} {tiles}" for seat, tiles in actual.items()) or "none"
    name = seat_name(claimant)
    items = [
        BreakdownItem(
            "false_win",
            "诈胡",
            k,
            f"{name} guessed {guess} (the concealed kongs: {shown}) and pays each other "
            f"player (底分 + W) × {k} × R, and the 分饼 of the hand",
            payments=main.named(),
            unit="multiplier",
            params={
                "payer": name,
                "guess": guess,
                "concealed_kongs": dict(actual),
                "base": base,
                "hand_multiplier": k,
                "shares": shares,
            },
        )
    ]
    liable = Liable(dict.fromkeys(range(4), claimant), f"诈胡: {name} pays it", "false_win")
    fenbing = _fenbing(hand, total, liable)
    if fenbing is not None:
        items.append(fenbing)
    return _checked(draw_result(items, win_kind="false_win"), total)


def _checked(result: Result, total: Ledger) -> Result:
    """The result, once its deltas (the sum of its lines' payments) are seen to be what the
    settlement booked: a side score booked but left off the breakdown would show here."""
    if result.deltas != total.deltas:
        raise AssertionError(f"breakdown pays {result.deltas}, the settlement booked {total.deltas}")
    return result
