"""D0: 财神麻将（前导牌） — spec/rules/SPEC.md §D0, source ``spec/rules/000_469410a6f657b378.zh.txt``.

The wild (财神) is the same rank of the next suit after the face-up indicator
(财神前导牌), which stays in place and is never drawn.  Wilds never take part
in a chow, pung or kong; chowing a *discarded* wild makes the player 相公 (no
win this hand).  The text has no scoring table: the HOUSE model of SPEC D0.2
applies, every multiplier a table option.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.engine import shapes
from games.engine.options import Option, OptionsSchema
from games.engine.refusals import Refusal, refuse
from games.engine.scoring import Ledger, others
from games.engine.state import KONG_ADDED, MELD_CHOW, BreakdownItem, Event, Meld, Result, seat_name
from games.engine.tiles import NUM_KINDS, Tile, is_suited, tile_str
from games.engine.variants.base import NOT_A_WIN, FlipsHeadTile, WinVerdict

if TYPE_CHECKING:
    from games.engine.hand import Hand, WinContext

XIANGGONG = "xianggong"  # player flag: chowed a discarded wild, can never win this hand

# Pattern keys, their labels, and the option holding their multiplier.
PATTERNS: dict[str, tuple[str, str | None]] = {
    "discard": ("放冲", None),
    "self_draw": ("自摸", None),
    "kong_bloom": ("杠开", "multiplier_kong_bloom"),
    "four_wilds": ("四财神", "multiplier_four_wilds"),
    "heaven": ("天和", "multiplier_heaven"),
    "earth": ("地和", "multiplier_earth"),
    "robbing_kong": ("拉杠和", None),
}


def wild_from_indicator(indicator: Tile) -> Tile:
    """Same rank in the next suit (万→筒→条→万); winds E→S→W→N→E; dragons 中→发→白→中."""
    if is_suited(indicator):
        return (indicator + 9) % 27
    if indicator < 31:  # winds 27..30
        return 27 + (indicator - 27 + 1) % 4
    if indicator < NUM_KINDS:  # dragons 31..33
        return 31 + (indicator - 31 + 1) % 3
    raise ValueError(f"{tile_str(indicator)} cannot be a 财神前导牌")


class ZhejiangCaishen(FlipsHeadTile):
    key = "zhejiang_caishen"
    display_name = "财神麻将（前导牌）"
    source = "000_469410a6f657b378.zh.txt"
    spec_section = "D0"
    flipped_name = "the 财神前导牌"
    flipped_name = "the 财神前导牌"
    hand_size = 13
    options_schema = OptionsSchema(
        (
            Option("multiplier_kong_bloom", int, 2, "杠开 multiplier", minimum=1, maximum=100, house=True),
            Option("multiplier_four_wilds", int, 2, "四财神 multiplier", minimum=1, maximum=100, house=True),
            Option("multiplier_heaven", int, 4, "天和 multiplier", minimum=1, maximum=100, house=True),
            Option("multiplier_earth", int, 4, "地和 multiplier", minimum=1, maximum=100, house=True),
            Option(
                "robbing_kong_multiplier",
                int,
                12,
                "拉杠和: × the discard-win value, paid by the kong declarer",
                minimum=1,
                maximum=100,
            ),
            Option(
                "ron_on_discarded_wild",
                bool,
                False,
                "a discarded 财神 may be won on",
                house=True,
                help="SPEC D0.3.3 decides no; the text is silent.",
            ),
            Option(
                "added_kong_just_drawn_only",
                bool,
                False,
                "上杠 only with the tile just drawn",
                house=True,
                help="SPEC D0.3.7: by default the 4th tile may have been drawn earlier.",
            ),
        )
    )

    # ------------------------------------------------------------------ set-up
    def on_flipped(self, hand: Hand, indicator: Tile) -> None:
        hand.extra["indicator"] = indicator
        hand.set_wilds([wild_from_indicator(indicator)])

    # ------------------------------------------------------------------- claims
    def chow_refusal(self, hand: Hand, seat: int, tile: Tile, rest: list[Tile]) -> Refusal | None:
        wild = self.wild_kinds(hand)
        if any(t in wild for t in rest):
            return refuse(
                "zhejiang_caishen_no_chow", "the 财神 in your hand may not take part in a chow (财神不得参与吃碰)"
            )
        return None  # chowing a *discarded* wild is allowed, and makes the player 相公

    def pung_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None:
        if tile in self.wild_kinds(hand):
            return refuse("zhejiang_caishen_no_pung", "the 财神 may not take part in a pung (财神不得参与吃碰)")
        return None

    def kong_refusal(self, hand: Hand, seat: int, tile: Tile, kind: str) -> Refusal | None:
        if tile in self.wild_kinds(hand):
            return refuse("zhejiang_caishen_no_kong", "the 财神 may not be konged")
        if kind == KONG_ADDED and hand.options["added_kong_just_drawn_only"] and hand.players[seat].drawn != tile:
            return refuse(
                "zhejiang_caishen_added_kong_just_drawn", "上杠 is only allowed with the tile just drawn at this table"
            )
        return None

    def after_meld(self, hand: Hand, seat: int, meld: Meld, events: list[Event]) -> None:
        if meld.kind == MELD_CHOW and meld.claimed in self.wild_kinds(hand):
            hand.players[seat].flags[XIANGGONG] = True
            events.append(Event("xianggong", seat, {"reason": "chowed a discarded 财神"}))

    # --------------------------------------------------------------------- wins
    def evaluate_win(self, hand: Hand, ctx: WinContext) -> WinVerdict | Refusal:
        if hand.players[ctx.seat].flags.get(XIANGGONG):
            return refuse("zhejiang_caishen_xianggong", "相公: you chowed a discarded 财神 and cannot win this hand")
        wild = self.wild_kinds(hand)
        if ctx.source != "self_draw" and ctx.tile in wild and not hand.options["ron_on_discarded_wild"]:
            return refuse("zhejiang_caishen_no_win_on_discarded_wild", "a discarded 财神 cannot be won on")
        counts = ctx.counts[:NUM_KINDS]
        wilds = 0
        for w in wild:
            wilds += counts[w]
            counts[w] = 0
        shaped = shapes.is_standard_win(counts, wilds)
        four_wilds = ctx.source == "self_draw" and wilds >= 4
        if not shaped and not four_wilds:
            return NOT_A_WIN
        patterns: list[str] = []
        if ctx.source == "discard":
            patterns.append("discard")
        elif ctx.source == "robbing_kong":
            patterns.append("robbing_kong")
        else:
            patterns.append("self_draw")
            if ctx.turn_kind == "replacement":
                patterns.append("kong_bloom")
            if four_wilds:
                patterns.append("four_wilds")
            if shaped and ctx.turn_kind == "deal" and ctx.seat == 0:
                patterns.append("heaven")
            player = hand.players[ctx.seat]
            if shaped and ctx.turn_kind == "draw" and ctx.seat != 0 and player.draws == 1 and not hand.claims_made:
                patterns.append("earth")
        return WinVerdict(patterns=patterns, data={"wilds": wilds, "shape": shaped})

    # ------------------------------------------------------------------ scoring
    def settle_win(self, hand: Hand, ctx: WinContext, verdict: WinVerdict) -> Result:
        opts = hand.options
        base = opts["base"]
        items: list[BreakdownItem] = []
        m = 1
        for p in verdict.patterns:
            label, opt = PATTERNS[p]
            value = opts[opt] if opt else 1
            items.append(BreakdownItem(p, label, value))
            m = max(m, value)  # the largest applicable multiplier counts; they do not multiply
        ledger = Ledger()
        winner = ctx.seat
        if ctx.source == "self_draw":
            v = base * m
            ledger.each_pays(others(winner), winner, v)
            detail = f"each other player pays {v}"
        elif ctx.source == "discard":
            assert ctx.from_seat is not None
            v = base * m
            ledger.pay(ctx.from_seat, winner, v)
            detail = f"{seat_name(ctx.from_seat)} pays {v}"
        else:  # 拉杠和: the kong declarer alone pays ×12 the plain discard-win value
            assert ctx.from_seat is not None
            v = base * opts["robbing_kong_multiplier"]
            ledger.pay(ctx.from_seat, winner, v)
            detail = f"{seat_name(ctx.from_seat)} pays {opts['robbing_kong_multiplier']} × {base} (承包)"
        items.append(BreakdownItem("hand_value", "和牌", m, detail, payments=ledger.named()))
        deltas = ledger.deltas
        return Result(
            status="win",
            winner=winner,
            from_seat=ctx.from_seat,
            self_drawn=ctx.source == "self_draw",
            deltas=deltas,
            breakdown=items,
            win_kind=verdict.patterns[0],
        )

    def next_dealer_offset(self, result: Result) -> int:
        # The winner deals next; nobody wins: the dealer stays.
        return result.winner if result.status == "win" and result.winner is not None else 0

    def public_info(self, hand: Hand) -> dict[str, str]:
        return {
            "indicator": tile_str(hand.extra["indicator"]),
            "wilds": " ".join(tile_str(w) for w in hand.extra["wilds"]),
        }
