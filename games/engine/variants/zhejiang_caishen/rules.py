"""D0: 财神麻将（前导牌） — spec/rules/SPEC.md §D0, source ``spec/rules/000_469410a6f657b378.zh.txt``.

The wild (财神) is the same rank of the next suit after the face-up indicator
(财神前导牌), which stays in place and is never drawn.  Wilds never take part
in a chow, pung or kong; chowing a *discarded* wild makes the player 相公 (no
win this hand).  The text has no scoring table: the HOUSE model of SPEC D0.2
applies, every multiplier a table option.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.engine import shapes
from games.engine.hand import Hand, WinContext, WinVerdict, state_of
from games.engine.options import Option, OptionsSchema
from games.engine.patterns import Pattern, by_key, matching
from games.engine.refusals import Refusal, refuse
from games.engine.rule_state import RuleState
from games.engine.scoring import Ledger, others
from games.engine.state import KONG_ADDED, MELD_CHOW, BreakdownItem, Event, Meld, Result, seat_name
from games.engine.tiles import NUM_KINDS, Tile, is_suited, tile_str
from games.engine.variants.base import NOT_A_WIN, FlipsHeadTile
from games.engine.win import WinFacts, win_result

XIANGGONG = "xianggong"  # player flag: chowed a discarded wild, can never win this hand


@dataclass(slots=True)
class CaishenState(RuleState):
    """D0's hand state: the face-up 财神前导牌 (the wild is the next kind after it)."""

    indicator: Tile | None = None


@dataclass(slots=True)
class CaishenFacts(WinFacts):
    """D0's facts of one win: the shared ones, and whether all four 财神 are in hand."""

    four_wilds: bool = False  # a self-draw holding four 财神 wins whatever the shape (四财神)


def _dealt_win(f: CaishenFacts) -> bool:
    return f.shaped and f.turn_kind == "deal" and f.dealer


def _first_draw_win(f: CaishenFacts) -> bool:
    return f.shaped and f.turn_kind == "draw" and not f.dealer and f.first_draw


# In the order the breakdown lists them; the first one that applies is the hand's win kind
# (exactly one of the three sources applies).  A pattern without an option is worth 1.
PATTERNS: tuple[Pattern[CaishenFacts], ...] = (
    Pattern("discard", "放冲", lambda f: f.source == "discard"),
    Pattern("robbing_kong", "拉杠和", lambda f: f.source == "robbing_kong"),
    Pattern("self_draw", "自摸", lambda f: f.self_drawn),
    Pattern("kong_bloom", "杠开", lambda f: f.self_drawn and f.turn_kind == "replacement", "multiplier_kong_bloom"),
    Pattern("four_wilds", "四财神", lambda f: f.four_wilds, "multiplier_four_wilds"),
    Pattern("heaven", "天和", lambda f: f.self_drawn and _dealt_win(f), "multiplier_heaven"),
    Pattern("earth", "地和", lambda f: f.self_drawn and _first_draw_win(f), "multiplier_earth"),
)
PATTERN = by_key(PATTERNS)


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
    hand_size = 13
    state_type = CaishenState
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
        state_of(hand, CaishenState).indicator = indicator
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
        first = hand.players[ctx.seat].draws == 1 and not hand.claims_made
        facts = CaishenFacts.of(ctx, wilds=wilds, shaped=shaped, first_draw=first, four_wilds=four_wilds)
        patterns = [p.key for p in matching(PATTERNS, facts)]
        return WinVerdict(patterns=patterns, data={"wilds": wilds, "shape": shaped})

    # ------------------------------------------------------------------ scoring
    def settle_win(self, hand: Hand, ctx: WinContext, verdict: WinVerdict) -> Result:
        opts = hand.options
        base = opts["base"]
        items: list[BreakdownItem] = []
        m = 1
        for key in verdict.patterns:
            item = PATTERN[key].item(opts)
            items.append(item)
            m = max(m, int(item.value))  # the largest applicable multiplier counts; they do not multiply
        ledger = Ledger()
        winner = ctx.seat
        # params: base 底分, multiplier (the largest pattern's), amount each payer pays, payers.
        params: dict[str, object] = {"base": base, "multiplier": m}
        if ctx.source == "self_draw":
            v = base * m
            ledger.each_pays(others(winner), winner, v)
            detail = f"each other player pays {v}"
            params.update(rule="each_pays", amount=v, payers=[seat_name(s) for s in others(winner)])
        elif ctx.source == "discard":
            assert ctx.from_seat is not None
            v = base * m
            ledger.pay(ctx.from_seat, winner, v)
            detail = f"{seat_name(ctx.from_seat)} pays {v}"
            params.update(rule="discarder_pays", amount=v, payers=[seat_name(ctx.from_seat)])
        else:  # 拉杠和: the kong declarer alone pays ×12 the plain discard-win value
            assert ctx.from_seat is not None
            v = base * opts["robbing_kong_multiplier"]
            ledger.pay(ctx.from_seat, winner, v)
            detail = f"{seat_name(ctx.from_seat)} pays {opts['robbing_kong_multiplier']} × {base} (承包)"
            params.update(
                rule="robbed_pays_all",
                multiplier=opts["robbing_kong_multiplier"],
                amount=v,
                payers=[seat_name(ctx.from_seat)],
            )
        params["payee"] = seat_name(winner)
        items.append(
            BreakdownItem("hand_value", "和牌", m, detail, payments=ledger.named(), unit="multiplier", params=params)
        )
        return win_result(ctx, items, verdict.patterns[0])

    def next_dealer_offset(self, result: Result) -> int:
        # The winner deals next; nobody wins: the dealer stays.
        return result.winner if result.status == "win" and result.winner is not None else 0

    def public_info(self, hand: Hand) -> dict[str, str]:
        state = state_of(hand, CaishenState)
        assert state.indicator is not None, "the indicator is turned up before play"
        return {
            "indicator": tile_str(state.indicator),
            "wilds": " ".join(tile_str(w) for w in state.wilds),
        }
