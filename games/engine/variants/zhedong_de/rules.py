"""D1: 浙东得麻将（腊子） — spec/rules/SPEC.md §D1, source ``spec/rules/001_cecdb8e91b8c20f9.zh.txt``.

After the deal the tile at the head of the wall is turned face up and stays out of play; its
kind is the 得, whose three live copies are wild, and only in a win.  白板 may play the 得's
face or itself, in a chow and in a win.  Nobody may chow, pung or win on a discarded 得.
Every player's hand is scored in 和 points with 番 doubling and the 腊子 cap (100); the losers
pay the winner and settle among themselves; a discarder may be liable for everything (包牌).
Scoring lives in :mod:`games.engine.variants.zhedong_de.scoring`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from games.engine import shapes
from games.engine.hand import Hand, WinContext, WinVerdict, state_of
from games.engine.insight.reader import ShapeReader
from games.engine.options import Option, OptionsSchema
from games.engine.refusals import Refusal, refuse
from games.engine.rule_state import RuleState
from games.engine.scoring import Ledger, others
from games.engine.state import (
    CHOW,
    KONG_CONCEALED,
    MELD_CHOW,
    PASS,
    PUNG,
    Action,
    BreakdownItem,
    Event,
    Meld,
    Result,
    seat_name,
)
from games.engine.tiles import DRAGONS, NUM_KINDS, WHITE, Tile, is_suited, parse_tile, suit_of, tile_str
from games.engine.variants.base import NOT_A_WIN, FlipsHeadTile
from games.engine.variants.zhedong_de.scoring import (
    CAP,
    PATTERN,
    PATTERNS,
    WIN_BONUS,
    HandScore,
    WinSpec,
    can_win,
    score_non_winner,
    score_winner,
    stand_in_active,
    white_splits,
)
from games.engine.win import draw_result, win_result

GUO_PENG = "guo_peng"  # player flag: kinds whose pung the player declined since their last draw
SEAT_CN = "东南西北"
DEALT_LIVE_DEAD = 14  # 黄牌 when this many tiles remain (plus two per kong: 杠一过二)


def reserve_after_kongs(kongs: int) -> int:
    """The tiles that must stay undrawn once ``kongs`` kongs were made: 黄牌 at this many."""
    return DEALT_LIVE_DEAD + 2 * kongs


PATTERN_OPTIONS = tuple(
    Option(
        opt,
        int,
        0,
        f"{label} 番",
        minimum=0,
        maximum=10,
        house=True,
        help="The source defines this pattern but lost its value (SPEC D1.3.2).",
    )
    for opt, label in ((p.option, p.label) for p in PATTERNS)
    if opt is not None and opt != "fan_small_dragons_extra"
)


def next_kind(t: Tile) -> Tile:
    """The "indicator → next" 得: next rank of the suit (9→1); E→S→W→N→E; 中→发→白→中."""
    if is_suited(t):
        return t - t % 9 + (t % 9 + 1) % 9
    if t < 31:
        return 27 + (t - 27 + 1) % 4
    return 31 + (t - 31 + 1) % 3


@dataclass(slots=True)
class DeState(RuleState):
    """D1's hand state: the tile turned up in place (the next kind after it is the 得)."""

    flipped: Tile | None = None


class ZhedongDe(FlipsHeadTile):
    key = "zhedong_de"
    display_name = "浙东得麻将（腊子）"
    source = "001_cecdb8e91b8c20f9.zh.txt"
    spec_section = "D1"
    flipped_name = "the tile whose kind is the 得"
    state_type = DeState
    hand_size = 13
    options_schema = OptionsSchema(
        (
            Option(
                "de_from",
                str,
                "flipped",
                "得: the flipped tile's kind, or the kind after it",
                choices=("flipped", "next"),
                house=True,
                help="SPEC D1.3.7: the text never says how the 得 is chosen.",
            ),
            *PATTERN_OPTIONS,
            Option(
                "fan_small_dragons_extra",
                int,
                0,
                "小三元: 番 on top of its two dragon triplets",
                minimum=0,
                maximum=10,
                house=True,
                help="SPEC D1.3.6: the text's 2番 are those of the two triplets; 2 gives the additive reading.",
            ),
            Option(
                "ron_triplet_exposed",
                bool,
                False,
                "a triplet completed by the winning discard scores as an exposed 刻子",
                house=True,
                help="The text is silent; by its definitions three of a kind in the hand are an 暗刻.",
            ),
            Option(
                "self_draw_honour_any_wait",
                bool,
                False,
                "自摸 of an own-wind/dragon tile scores 4 whatever it completes",
                house=True,
                help="SPEC D1.3.4's alternative reading; by default it is the 单吊 wait's self-draw value.",
            ),
        )
    )

    # ------------------------------------------------------------------ set-up
    def on_flipped(self, hand: Hand, flipped: Tile) -> None:
        state_of(hand, DeState).flipped = flipped
        hand.set_wilds([flipped if hand.options["de_from"] == "flipped" else next_kind(flipped)])

    @staticmethod
    def de(hand: Hand) -> Tile:
        return int(hand.state.wilds[0])

    # ------------------------------------------------------------------- claims
    def chow_stand_ins(self, hand: Hand) -> Mapping[Tile, Tile]:
        de = self.de(hand)
        return {WHITE: de} if stand_in_active(de) and is_suited(de) else {}

    def chow_refusal(self, hand: Hand, seat: int, tile: Tile, rest: list[Tile]) -> Refusal | None:
        de = self.de(hand)
        if tile == de:
            return refuse(
                "zhedong_de_discard_no_chow", "a discarded 得 cannot be chowed, punged or won on (得不能吃碰和)"
            )
        if de in rest:
            return refuse("zhedong_de_no_chow", "the 得 may not take part in a chow (得不能吃)")
        return None

    def pung_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None:
        if tile == self.de(hand):
            return refuse("zhedong_de_discard_no_pung", "a discarded 得 cannot be chowed, punged or won on (得不能碰)")
        if tile in hand.players[seat].flags.get(GUO_PENG, ()):
            return refuse(
                "zhedong_de_passed_pung",
                "you passed a pung of {tile} and have not drawn since (过碰)",
                tile=tile_str(tile),
            )
        return None

    def kong_refusal(self, hand: Hand, seat: int, tile: Tile, kind: str) -> Refusal | None:
        if tile == self.de(hand):
            return refuse("zhedong_de_no_kong", "the 得 cannot be konged: it only acts in a win")
        # No kong into the reserve (SPEC D1.3 item 15): the kong's replacement draw takes one
        # tile and the kong itself raises the 黄牌 line by two (杠一过二), so the tiles left
        # after the replacement must still cover the raised line.  Without this check a late
        # kong's replacement ate into the reserve and a 黄牌 ended below 14 + 2k.
        left = hand.wall.remaining() - 1
        reserve = reserve_after_kongs(hand.kongs_made + 1)
        if left < reserve:
            return refuse(
                "zhedong_de_kong_into_reserve",
                "no kong into the reserve: after its replacement draw {left} tiles would be left, "
                "fewer than the {reserve} that must stay with {kongs} kong(s) (杠一过二)",
                left=left,
                reserve=reserve,
                kongs=hand.kongs_made + 1,
            )
        return None

    def on_claim_answer(self, hand: Hand, action: Action) -> None:
        # 过碰: answering anything but a pung (or kong) when a pung was on offer.
        w = hand.window
        if w is None or action.kind not in (PASS, CHOW):
            return
        if Action(action.seat, PUNG) in w.options.get(action.seat, ()):
            flags = hand.players[action.seat].flags
            flags[GUO_PENG] = [*flags.get(GUO_PENG, []), w.tile]

    def after_draw(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        hand.players[seat].flags.pop(GUO_PENG, None)

    def can_draw(self, hand: Hand) -> bool:
        # 黄牌 at 14 tiles left, two more per kong (杠一过二); the flipped 得 is not counted.
        return hand.wall.remaining() > reserve_after_kongs(hand.kongs_made)

    # --------------------------------------------------------------------- wins
    def evaluate_win(self, hand: Hand, ctx: WinContext) -> WinVerdict | Refusal:
        de = self.de(hand)
        if ctx.source != "self_draw" and ctx.tile == de:
            return refuse("zhedong_de_discard_no_win", "a discarded 得 cannot be won on (得不能和)")
        if not can_win(ctx.counts, de):
            return NOT_A_WIN
        return WinVerdict(patterns=[ctx.source], data={})

    # ------------------------------------------------------------------ scoring
    def score_hands(self, hand: Hand, ctx: WinContext) -> tuple[dict[int, HandScore], frozenset[str]]:
        """Every player's scored hand (the winner's best reading) and the winner's possible patterns."""
        de = self.de(hand)
        spec = WinSpec(
            counts=tuple(ctx.counts[:NUM_KINDS]),
            melds=tuple(ctx.melds),
            de=de,
            own_wind=27 + ctx.seat,
            win_tile=ctx.tile,
            self_drawn=ctx.source == "self_draw",
            options=hand.options,
        )
        best, seen = score_winner(spec)
        scores = {ctx.seat: best}
        for s in others(ctx.seat):
            p = hand.players[s]
            scores[s] = score_non_winner(p.hand, p.melds, 27 + s)
        return scores, seen

    def settle_win(self, hand: Hand, ctx: WinContext, verdict: WinVerdict) -> Result:
        base = hand.options["base"]
        winner = ctx.seat
        scores, seen = self.score_hands(hand, ctx)
        tw = scores[winner].total
        items: list[BreakdownItem] = []
        for s in [winner, *others(winner)]:
            items.extend(_score_lines(s, scores[s], s == winner))

        # The losers pay the winner: the dealer pays the total, a non-dealer half, all 100 at 腊子.
        owed = {s: (tw if winner == 0 or s == 0 or tw >= CAP else tw // 2) * base for s in others(winner)}
        to_winner = Ledger()
        liable, reasons, codes = self.liability(hand, ctx, seen)
        if liable is not None:
            to_winner.pay(liable, winner, sum(owed.values()))
            detail = f"{seat_name(liable)} pays for all ({'; '.join(reasons)})"
            params = {
                "payer": seat_name(liable),
                "payee": seat_name(winner),
                "points": sum(owed.values()),
                "reasons": codes,
            }
            items.append(
                BreakdownItem(
                    "baopai",
                    "包牌",
                    sum(owed.values()),
                    detail,
                    payments=to_winner.named(),
                    unit="points",
                    params=params,
                )
            )
        else:
            for s, amount in owed.items():
                to_winner.pay(s, winner, amount)
            detail = ", ".join(f"{seat_name(s)} {a}" for s, a in owed.items())
            params = {
                "payee": seat_name(winner),
                "winner_total": tw,
                "base": base,
                "owed": {seat_name(s): a for s, a in owed.items()},
            }
            items.append(
                BreakdownItem(
                    "pay_winner", "付和家", tw, detail, payments=to_winner.named(), unit="points", params=params
                )
            )

        # The losers settle among themselves: the lower total pays the difference to the higher;
        # between two non-dealers, half of it.
        among = Ledger()
        losers = others(winner)
        lines = []
        transfers: list[dict[str, object]] = []
        for i, a in enumerate(losers):
            for b in losers[i + 1 :]:
                diff = scores[a].total - scores[b].total
                if diff == 0:
                    continue
                hi, lo = (a, b) if diff > 0 else (b, a)
                amount = abs(diff) if 0 in (a, b) else abs(diff) // 2
                among.pay(lo, hi, amount * base)
                lines.append(f"{seat_name(lo)}→{seat_name(hi)} {amount * base}")
                transfers.append({"payer": seat_name(lo), "payee": seat_name(hi), "amount": amount * base})
        items.append(
            BreakdownItem(
                "losers",
                "闲家互结",
                0,
                ", ".join(lines) or "nothing",
                payments=among.named(),
                params={"transfers": transfers},
            )
        )
        return win_result(ctx, items, verdict.patterns[0])

    # ------------------------------------------------------------------ 包牌
    def liability(self, hand: Hand, ctx: WinContext, seen: frozenset[str]) -> tuple[int | None, list[str], list[str]]:
        """The discarder who pays for everyone (包牌), and why (text and reason codes); only a
        win on a discard."""
        if ctx.source != "discard" or ctx.from_seat is None or ctx.tile is None:
            return None, [], []
        tile, discarder = ctx.tile, ctx.from_seat
        winner_melds = hand.players[ctx.seat].melds
        reasons: list[str] = []
        codes: list[str] = []
        shown = [m for m in winner_melds if m.kind != KONG_CONCEALED]  # 暗杠不算亮出
        suits = {suit_of(_meld_face(m, self.de(hand))) for m in shown}
        one_suit = len(shown) >= 3 and len(suits) == 1 and is_suited(tile) and suit_of(tile) in suits
        if one_suit and "pure_one_suit" in seen:  # some reading is 清一色, necessarily of this suit
            reasons.append("清一色: three exposed sets of the suit")
            codes.append("one_suit_exposed")
        if tile in DRAGONS and self._unseen(hand, tile, discarder):
            exposed_dragons = {m.tiles[0] for m in shown if m.kind != MELD_CHOW and m.tiles[0] in DRAGONS}
            if len(exposed_dragons) == 2 and tile not in exposed_dragons and seen & {"small_dragons", "big_dragons"}:
                reasons.append("大三元/小三元: the third dragon, still unseen")
                codes.append("third_dragon")
            if self._claims_to_ready(hand, discarder) >= 2:
                reasons.append("an unseen dragon discarded two or more claims from ready")
                codes.append("unseen_dragon_far_from_ready")
        return (discarder if reasons else None), reasons, codes

    def _unseen(self, hand: Hand, tile: Tile, discarder: int) -> bool:
        """生: no copy shown before this discard (rivers, melds, the flipped tile)."""
        if state_of(hand, DeState).flipped == tile:
            return False
        for s, p in enumerate(hand.players):
            river = p.discards[:-1] if s == discarder else p.discards
            if tile in river or any(tile in m.tiles for m in p.melds):
                return False
        return True

    def _claims_to_ready(self, hand: Hand, seat: int) -> int:
        """Chows/pungs the discarder still needed to be ready: the shanten of the hand left
        after the discard, 得 as wilds, 白板 read the better way (SPEC D1.3.11)."""
        p = hand.players[seat]
        return min(shapes.shanten(c, w) for _, c, w in white_splits(p.counts, self.de(hand)))

    def settle_draw(self, hand: Hand) -> Result:
        item = BreakdownItem(
            "exhaustive_draw", "黄牌", 0, "no settlement; the deal passes to 南", params={"next_dealer": "S"}
        )
        return draw_result([item])

    def next_dealer_offset(self, result: Result) -> int:
        # The dealer keeps the deal only by winning; otherwise 南 deals (黄牌 too).
        return 0 if result.status == "win" and result.winner == 0 else 1

    # ------------------------------------------------------------ presentation
    def shape_reader(self, table: Mapping[str, object]) -> ShapeReader:
        """得 is wild, and 白板 may play the 得's face or stay 白 (``white_splits``: every split)."""
        de = parse_tile(str(table["de"]))
        return ShapeReader(read=lambda counts: [(c, w) for _, c, w in white_splits(counts, de)])

    def public_info(self, hand: Hand) -> dict[str, str]:
        de = self.de(hand)
        flipped = state_of(hand, DeState).flipped
        assert flipped is not None, "the 得 is turned up before play"
        info = {"flipped": tile_str(flipped), "de": tile_str(de), "wilds": tile_str(de)}
        if stand_in_active(de):
            info["stand_in"] = f"{tile_str(WHITE)}={tile_str(de)}"
        return info

    def public_flags(self, flags: Mapping[str, object]) -> dict[str, object]:
        # 过碰 would tell the others that the player holds a pair.
        return {k: v for k, v in flags.items() if k != GUO_PENG}


def _meld_face(m: Meld, de: Tile) -> Tile:
    """The face a meld shows for suit purposes (a 白板 in a chow plays the 得's face)."""
    return next((t for t in m.tiles if t != WHITE), de) if m.kind == MELD_CHOW else m.tiles[0]


def _score_lines(seat: int, score: HandScore, winner: bool) -> list[BreakdownItem]:
    """One player's points as breakdown lines, each marked with its ``seat``: the scoring sets
    (和 points, tiles, 番), the patterns (番), the winner's bonus and the total."""
    who = f"{seat_name(seat)}{SEAT_CN[seat]}"
    name = seat_name(seat)
    lines = [
        BreakdownItem(
            f"{name}:{i.key}",
            f"{who} {i.label} {i.tiles}",
            i.points,
            f"{i.fan}番" if i.fan else "",
            unit="points",
            params={"points": i.points, "fan": i.fan, "tiles": i.tiles},
            seat=name,
        )
        for i in score.items
    ]
    for key, fan in score.patterns:
        label = PATTERN[key].label
        detail = "腊子" if key == "big_dragons" else f"{fan}番"
        params: dict[str, object] = {"fan": fan}
        if key == "big_dragons":
            params["laizi"] = CAP
        lines.append(
            BreakdownItem(f"{name}:{key}", f"{who} {label}", fan, detail, unit="fan", params=params, seat=name)
        )
    if winner:
        lines.append(
            BreakdownItem(f"{name}:win_bonus", f"{who} 和牌奖励", 10, unit="points", params={"points": 10}, seat=name)
        )
    label = f"{who} {'和家' if winner else '闲家'}牌点" + (" 腊子" if score.total >= CAP else "")
    total_params: dict[str, object] = {
        "hand_points": score.points,
        "win_bonus": WIN_BONUS if winner else 0,
        "fan": score.fan,
        "raw": score.raw,
        "total": score.total,
        "cap": CAP,
        "laizi": score.total >= CAP,
        "winner": winner,
        "big_dragons": any(k == "big_dragons" for k, _ in score.patterns),
    }
    lines.append(
        BreakdownItem(
            f"{name}:total", label, score.total, score.formula(), unit="points", params=total_params, seat=name
        )
    )
    return lines
