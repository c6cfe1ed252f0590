"""D4: 东北麻将 — spec/rules/SPEC.md §D4, source ``spec/rules/004_f868d7dffdb39075.zh.txt``.

No wilds, no flowers, 13 + 1 tiles.  What sets it apart:

* one die everywhere: it names the first dealer (:func:`first_dealer`) and, rolled
  by the dealer, the wall that opens (:func:`opening_wall`); three rounds of four,
  then the 跳牌 (dealer 14, others 13);
* 报听 (verb ``ready`` with the discard made with it): only on a single winning
  tile by default; afterwards the hand never changes — the tile drawn is
  discarded unless it wins or makes a kong that keeps the wait;
* the wall's end: with no kong the last 14 tiles are never drawn, after any kong
  all are; the last four drawable tiles go one to each player, who may only
  win on it by self-draw — otherwise it is laid aside (a "discard" nobody may
  claim), and no kong is made on them;
* scoring by 番 doubling with the losers' own penalty 番 (scoring.py), plus
  杠分, 撵庄 and 飘 side scores.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import shapes
from games.engine.hand import BY_REPLACEMENT, PLAY, Hand, WinContext, WinVerdict
from games.engine.insight.reader import ShapeReader
from games.engine.options import Option, OptionsError, OptionsSchema
from games.engine.refusals import Refusal, refuse
from games.engine.state import (
    DISCARD,
    KONG,
    KONG_ADDED,
    KONG_CONCEALED,
    KONG_EXPOSED,
    WIN,
    Action,
    BreakdownItem,
    Event,
    Meld,
    Player,
    Result,
)
from games.engine.tiles import NUM_KINDS, Tile, tile_str
from games.engine.variants.base import PreHandQuestion, Variant
from games.engine.variants.dongbei.hands import could_wait, has_yaojiu, may_be_ready, waiting_tiles, win_forms
from games.engine.variants.dongbei.scoring import (
    READY,
    DongbeiState,
    dongbei_state,
    kong_items,
    settle_draw,
    settle_win,
)
from games.engine.wall import Wall, seed_commitment

DEAD_WALL = 14  # 无杠流局: the last 14 tiles are never drawn (until a kong is made)
FINAL_ROUND = 4  # the last four drawable tiles, one to each player
READY_WAITS = "ready_waits"  # private player flag: the winning tiles 报听 was declared on
CLOCKWISE, TURN_ORDER = "clockwise", "turn_order"


# ---------------------------------------------------------------------- dice and deal
def _count_seats(die: int, direction: str) -> int:
    """Seats (in turn order, 0..3) from the roller when counting ``die`` with the roller as 1."""
    if not 1 <= die <= 6:
        raise ValueError(f"a die shows 1..6, not {die}")
    step = (die - 1) % 4
    # 顺时针 (clockwise) runs against the turn order E → S → W → N (SPEC D4.3.4).
    return (-step) % 4 if direction == CLOCKWISE else step


def first_dealer(die: int, direction: str = CLOCKWISE) -> int:
    """The first hand's dealer (0 E, 1 S, 2 W, 3 N) from the East player's one die (定庄).

    Counting from East as 1 (SPEC D4.2): 1/5 → E, 2/6 → N, 3 → W, 4 → S.
    """
    return _count_seats(die, direction)


def roll_die(seed: str) -> int:
    """A die derived from ``seed`` only (the platform draws the seed with ``secrets``)."""
    return random.Random(seed_commitment("die:" + seed)).randint(1, 6)


def opening_wall(die: int, direction: str = CLOCKWISE) -> tuple[int, int]:
    """(seat offset from the dealer in turn order, 0-based first stack) for the dealer's one die.

    起牌: count ``die`` seats from the dealer (the dealer is 1); in that player's wall
    leave ``die`` stacks and start at the next one.
    """
    return _count_seats(die, direction), die


def deal_positions() -> list[tuple[int, int]]:
    """(seat, head-order position) in dealing order: 3 rounds of 4, then the 跳牌.

    After 48 tiles the dealer takes the tops of the 1st and 3rd remaining stacks
    (positions 48 and 52), 下家 the bottom of the 1st (49), 对家 the top of the 2nd
    (50), 上家 its bottom (51).  The dealer's 14th tile (52) is dealt last.
    """
    order = [(seat, 16 * rnd + 4 * seat + k) for rnd in range(3) for seat in range(4) for k in range(4)]
    order += [(0, 48), (1, 49), (2, 50), (3, 51), (0, 52)]
    return order


PIAO_AMOUNTS = (0, 1, 2, 3, 5, 10, 20, 50, 100)  # 飘 bets offered, in 底注 units

# Refusals met on most turns (every held tile in the last four, most win checks): made once.
_FINAL_NO_DISCARD = refuse(
    "dongbei_final_no_discard",
    "the last four tiles are not played: only the tile just drawn is laid aside (每人抓的最后一张牌不用打)",
)
_NOT_A_WIN = refuse("dongbei_not_a_win", "not a winning hand (four melds and a pair, 七小对 or 十三幺)")


class Dongbei(Variant):
    key = "dongbei"
    display_name = "东北麻将"
    source = "004_f868d7dffdb39075.zh.txt"
    spec_section = "D4"

    def first_dealer(self, seed: str, options: Mapping[str, Any]) -> int:
        """定庄: the East player rolls one die (SPEC D4.2)."""
        return first_dealer(roll_die(seed), options.get("count_direction", CLOCKWISE))

    def pre_hand_questions(self, options: Mapping[str, Any], context: Mapping[str, Any]) -> list[PreHandQuestion]:
        """飘: every player may bet before the deal ("游戏开始未发牌前选择飘者"), in 底注 units."""
        amounts = tuple(a for a in PIAO_AMOUNTS if a <= options["piao_max"])
        return [PreHandQuestion("piao", "飘", (0, 1, 2, 3), amounts, 0)]

    def apply_pre_hand_answers(
        self, context: Mapping[str, Any], question: PreHandQuestion, answers: Mapping[int, Any]
    ) -> dict[str, Any]:
        if question.key != "piao":
            raise ValueError(f"dongbei asks no {question.key!r}")
        ctx = dict(context)
        ctx["piao"] = {"ESWN"[s]: int(v) for s, v in sorted(answers.items()) if v}
        return ctx

    # 逃跑扣银子规则：先结算杠分，然后再按底注的100倍扣逃跑玩家的分数 (004 text).
    escape_penalty_bases = 100

    def escape_settlement(self, hand: Hand) -> list[BreakdownItem]:
        return kong_items(hand)

    hand_size = 13
    state_type = DongbeiState
    context_keys = frozenset({"piao"})
    kong_after_claim = False
    added_kong_robbable = True  # SPEC D4.3.6: 补杠 may be robbed like a 明杠
    options_schema = OptionsSchema(
        (
            Option(
                "anti_collusion",
                bool,
                False,
                "防作弊场 (only the discarder pays on 点炮)",
                help="谁点炮谁给银子, 自摸三家给银子; a 飘 is paid only by the winner, the discarder or on 自摸.",
            ),
            Option("cap", int, 8, "封顶 (番)", minimum=1, maximum=20, house=True, help="十三幺 pays 2 × 2^cap."),
            Option(
                "piao_max",
                int,
                10,
                "largest 飘 a player may bet (× 底注)",
                minimum=0,
                maximum=100,
                house=True,
                help="The text gives 飘 amounts only by example (A飘10倍); offered: 0, 1, 2, 3, 5, 10… up to this.",
            ),
            Option(
                "ready_single_wait",
                bool,
                True,
                "报听 only on a single winning tile (只胡一张牌)",
                help="Off: 报听 on any ready hand (SPEC D4.3.3).",
            ),
            Option("fan_self_draw", int, 1, "自摸 番", minimum=0, maximum=8, house=True),
            Option("fan_half_flush", int, 1, "混一色 番", minimum=0, maximum=8, house=True),
            Option("fan_full_flush", int, 2, "清一色 番", minimum=0, maximum=8, house=True),
            Option("fan_deal_in", int, 1, "点炮: the discarder's extra 番", minimum=0, maximum=8, house=True),
            Option("dealer_bonus", int, 1, "庄家 番 (when the dealer wins or pays)", minimum=0, maximum=8, house=True),
            Option("kong_points_exposed", int, 1, "杠分 明杠/补杠 (× 底注 each)", minimum=0, maximum=100, house=True),
            Option("kong_points_concealed", int, 2, "杠分 暗杠 (× 底注 each)", minimum=0, maximum=100, house=True),
            Option(
                "ready_kong_keeps_wait",
                bool,
                True,
                "after 报听 a kong must keep the wait",
                house=True,
                help="The text allows kongs after 报听 and forbids changing the hand; a kong that changed the "
                "winning tiles would do that.",
            ),
            Option(
                "count_direction",
                str,
                CLOCKWISE,
                "dice count direction (定庄, 起牌)",
                choices=(CLOCKWISE, TURN_ORDER),
                help="The text says 顺时针 (SPEC D4.3.4); turn_order counts E → S → W → N instead.",
            ),
        )
    )

    # ------------------------------------------------------------ configuration
    def validate_context(self, context: Mapping[str, Any] | None) -> dict[str, Any]:
        ctx = super().validate_context(context)
        if "piao" in ctx:
            piao = ctx["piao"]
            if not isinstance(piao, Mapping):
                raise OptionsError("context 'piao' maps seats (E, S, W, N) to amounts in 底注")
            out: dict[str, int] = {}
            for seat, amount in piao.items():
                if seat not in ("E", "S", "W", "N"):
                    raise OptionsError(f"context 'piao': unknown seat {seat!r}; seats are E, S, W, N")
                if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                    raise OptionsError(f"context 'piao': {seat}'s 飘 must be a whole number ≥ 0, got {amount!r}")
                out[seat] = amount
            ctx["piao"] = out
        return ctx

    # ------------------------------------------------------------------ set-up
    def break_wall(
        self, ring: list[Tile], dice: tuple[int, int], options: Mapping[str, Any]
    ) -> tuple[list[Tile], dict[str, Any]]:
        die = dice[0]  # one die (庄家用一颗骰子，掷一次)
        seat, stack = opening_wall(die, options["count_direction"])
        start = 2 * (seat * (len(ring) // 8) + stack)
        return list(ring[start:]) + list(ring[:start]), {"die": die, "opening": [seat, stack]}

    def deal(self, wall: Wall, players: list[Player]) -> None:
        # Three rounds of four, then the 跳牌 from fixed stack positions (deal_positions).
        last = 0
        for s, pos in deal_positions():
            wall.taken[pos] = True
            players[s].add(wall.tiles[pos])
            last = max(last, pos)
        wall.head = last + 1
        wall.recount()

    def after_deal(self, hand: Hand) -> None:
        # 第十四张牌要和其他十三张牌中间有个空: the dealer's 14th tile shows apart, as a drawn tile.
        dealer = hand.players[0]
        dealer.drawn = dealer.hand[-1]

    def after_rig(self, hand: Hand, flipped: Tile | None) -> None:
        self.after_deal(hand)

    # --------------------------------------------------------------- the wall end
    def drawable(self, hand: Hand) -> int:
        """Tiles still to be drawn: all of them after a kong, else all but the last 14."""
        return hand.wall.remaining() - (0 if hand.kongs_made else DEAD_WALL)

    def can_draw(self, hand: Hand) -> bool:
        return self.drawable(hand) > 0

    def in_final_round(self, hand: Hand) -> bool:
        return dongbei_state(hand).final_round

    def after_draw(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        # Kongs are refused once their replacement would be one of the last four, so only
        # a normal draw ever takes one of them.
        if not dongbei_state(hand).final_round and self.drawable(hand) < FINAL_ROUND:
            dongbei_state(hand).final_round = True
            events.append(Event("final_round", None, {"tiles": FINAL_ROUND}))

    # -------------------------------------------------------------------- rules
    def discard_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None:
        p = hand.players[seat]
        if p.drawn is None or tile == p.drawn:
            return None
        if dongbei_state(hand).final_round:
            return _FINAL_NO_DISCARD
        if p.flags.get(READY):
            drawn = tile_str(p.drawn)
            return refuse(
                "dongbei_ready_discard_drawn",
                "after 报听 your hand may not change: discard the tile just drawn, {tile} (报听后不能换牌)",
                tile=drawn,
            )
        return None

    def chow_refusal(self, hand: Hand, seat: int, tile: Tile, rest: list[Tile]) -> Refusal | None:
        return self._claim_block(hand, seat, "chow")

    def pung_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None:
        return self._claim_block(hand, seat, "pung")

    def _claim_block(self, hand: Hand, seat: int, what: str) -> Refusal | None:
        if dongbei_state(hand).final_round:
            return refuse("dongbei_final_no_claim", "a tile laid aside in the last four cannot be claimed")
        if hand.players[seat].flags.get(READY):
            return refuse("dongbei_ready_no_claim", "after 报听 you may not {verb} (报听后不能吃碰)", verb=what)
        return None

    def kong_refusal(self, hand: Hand, seat: int, tile: Tile, kind: str) -> Refusal | None:
        if dongbei_state(hand).final_round:
            return refuse("dongbei_final_no_kong", "no kong on the last four tiles (最后4张不可以杠)")
        if hand.wall.remaining() <= FINAL_ROUND:
            return refuse(
                "dongbei_kong_replacement_in_final",
                "no kong now: its replacement would be one of the last four tiles (最后4张不可以杠)",
            )
        p = hand.players[seat]
        if p.flags.get(READY) and hand.options["ready_kong_keeps_wait"]:
            counts = list(p.counts[:NUM_KINDS])
            counts[tile] -= {KONG_EXPOSED: 3, KONG_CONCEALED: 4, KONG_ADDED: 1}[kind]
            melds = len(p.melds) + (0 if kind == KONG_ADDED else 1)
            if waiting_tiles(counts, melds) != p.flags.get(READY_WAITS):
                return refuse(
                    "dongbei_ready_kong_changes_wait",
                    "after 报听 a kong may not change your winning tiles: konging {tile} would",
                    tile=tile_str(tile),
                )
        return None

    # --------------------------------------------------------------------- 报听
    def ready_waits(self, hand: Hand, seat: int, tile: Tile) -> list[Tile]:
        """The winning tiles left after discarding ``tile`` from ``seat``'s hand."""
        p = hand.players[seat]
        counts = list(p.counts[:NUM_KINDS])
        counts[tile] -= 1
        return waiting_tiles(counts, len(p.melds))

    def _ready_ok(self, hand: Hand, waits: Sequence[Tile]) -> bool:
        return bool(waits) and (len(waits) == 1 or not hand.options["ready_single_wait"])

    def extra_own_turn_actions(self, hand: Hand, seat: int) -> list[Action]:
        p = hand.players[seat]
        if p.flags.get(READY) or dongbei_state(hand).final_round:
            return []
        counts = list(p.counts[:NUM_KINDS])
        melds = len(p.melds)
        if not may_be_ready(counts, melds):
            return []
        acts: list[Action] = []
        for t in range(NUM_KINDS):
            if not counts[t]:
                continue
            counts[t] -= 1
            if (
                could_wait(counts, melds)
                and self._ready_ok(hand, waiting_tiles(counts, melds))
                and self.discard_refusal(hand, seat, t) is None
            ):
                acts.append(Action(seat, READY, tile=t))
            counts[t] += 1
        return acts

    def extra_refusal(self, hand: Hand, action: Action) -> Refusal | None:
        if action.kind != READY:
            return refuse("unknown_action", "unknown action {verb!r}", verb=action.kind)
        if action.tiles is not None:
            return refuse("dongbei_ready_names_one_tile", "报听 names one tile: the discard made with it")
        t = action.tile
        if t is None:
            return refuse(
                "dongbei_ready_needs_tile", "报听 is declared with a discard: name the tile (报听时打出一张牌)"
            )
        p = hand.players[action.seat]
        if p.flags.get(READY):
            return refuse("dongbei_already_ready", "you have already declared 听 (已报听)")
        if dongbei_state(hand).final_round:
            return refuse("dongbei_final_no_ready", "no 报听 on the last four tiles")
        if not p.counts[t]:
            return refuse("tile_not_in_hand", "{tile} is not in your hand", tile=tile_str(t))
        refused = self.discard_refusal(hand, action.seat, t)
        if refused is not None:
            return refused
        waits = self.ready_waits(hand, action.seat, t)
        if not waits:
            return refuse(
                "dongbei_ready_needs_wait",
                "after discarding {tile} your hand waits on nothing: 报听 needs a ready hand (听牌)",
                tile=tile_str(t),
            )
        if not self._ready_ok(hand, waits):
            return refuse(
                "dongbei_ready_needs_single_wait",
                "after discarding {tile} your hand waits on {tiles}: 报听 needs a single winning tile (只胡一张牌)",
                tile=tile_str(t),
                tiles=", ".join(tile_str(w) for w in waits),
            )
        return None

    def apply_extra(self, hand: Hand, action: Action, events: list[Event]) -> None:
        if action.kind != READY:
            raise NotImplementedError(action.kind)
        assert action.tile is not None
        p = hand.players[action.seat]
        p.flags[READY] = True
        p.flags[READY_WAITS] = self.ready_waits(hand, action.seat, action.tile)
        events.append(Event("ready", action.seat, {"tile": tile_str(action.tile)}))
        # The declaration *is* the discard: the machine's own discard path opens the claim window.
        hand.discard(action.seat, action.tile, events)

    def forced_action(self, hand: Hand, seat: int) -> Action | None:
        """The system's discard after 报听 and the laying aside of a last-four tile.

        Only when the player has nothing to decide: a possible win or kong waits for them.
        """
        if hand.phase != PLAY or seat != hand.turn:
            return None
        p = hand.players[seat]
        if p.drawn is None or not (p.flags.get(READY) or dongbei_state(hand).final_round):
            return None
        legal = hand.legal_actions(seat)
        if any(a.kind in (WIN, KONG) for a in legal):
            return None
        forced = Action(seat, DISCARD, tile=p.drawn)
        return forced if forced in legal else None

    # ------------------------------------------------------------------ tracking
    def after_discard(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        # 杠后炮: a discard made on the turn of a kong's replacement draw.
        state = dongbei_state(hand)
        state.discard_after_kong = hand.turn_kind == BY_REPLACEMENT
        n = state.nianzhuang_count
        if not 0 <= n < 4:
            return
        # 撵庄: the first four discards are E, S, W, N in turn, all the dealer's tile.
        if seat != n or (n and tile != state.nianzhuang_tile):
            state.nianzhuang_count = -1
            return
        if n == 0:
            state.nianzhuang_tile = tile
        state.nianzhuang_count = n + 1
        if n + 1 == 4:
            events.append(Event("nianzhuang", 0, {"tile": tile_str(tile)}))

    def after_meld(self, hand: Hand, seat: int, meld: Meld, events: list[Event]) -> None:
        # A claim before all three have followed the dealer spoils 撵庄.
        state = dongbei_state(hand)
        if meld.from_seat is not None and 0 <= state.nianzhuang_count < 4:
            state.nianzhuang_count = -1

    # --------------------------------------------------------------------- wins
    def evaluate_win(self, hand: Hand, ctx: WinContext) -> WinVerdict | Refusal:
        if ctx.source != "self_draw" and dongbei_state(hand).final_round:
            return refuse(
                "dongbei_final_no_discard_win",
                "a tile laid aside in the last four cannot be won on: only self-draw wins there",
            )
        counts = ctx.counts[:NUM_KINDS]
        forms = win_forms(counts, len(ctx.melds))
        if forms:
            return WinVerdict(patterns=forms, data={})
        if not ctx.melds and shapes.SEVEN_PAIRS.is_win(counts, 0) and not has_yaojiu(counts):
            return refuse("dongbei_seven_pairs_need_yaojiu", "七小对 must hold a 1, 9 or honour (不可少幺九)")
        return _NOT_A_WIN

    # ------------------------------------------------------------------ scoring
    def settle_win(self, hand: Hand, ctx: WinContext, verdict: WinVerdict) -> Result:
        return settle_win(hand, ctx, verdict.patterns)

    def settle_draw(self, hand: Hand) -> Result:
        return settle_draw(hand)

    def next_dealer_offset(self, result: Result) -> int:
        # 庄赢连庄, 流局庄家继续坐庄; a non-dealer's win passes the deal to the dealer's 下家.
        if result.status == "win" and result.winner not in (None, 0):
            return 1
        return 0

    def next_context(self, result: Result, context: Mapping[str, Any]) -> dict[str, Any]:
        # 飘 is chosen afresh before every deal; nothing else carries over.
        return {}

    # ------------------------------------------------------------ presentation
    def shape_reader(self, table: Mapping[str, Any]) -> ShapeReader:
        """No wilds; 七小对 (with a 幺九) and 十三幺 win beside melds and a pair while nothing
        is laid down (``win_forms``, the same test as a win)."""
        return ShapeReader(
            read=lambda counts: ((list(counts[:NUM_KINDS]), 0),),
            special=lambda n_melds: () if n_melds else (shapes.SEVEN_PAIRS, shapes.THIRTEEN_ORPHANS),
            win_test=lambda counts, n_melds: bool(win_forms(counts, n_melds)),
        )

    def public_info(self, hand: Hand) -> dict[str, Any]:
        state = dongbei_state(hand)
        info: dict[str, Any] = {
            "drawable": max(0, self.drawable(hand)),
            "dead_wall": 0 if hand.kongs_made else DEAD_WALL,
            "final_round": state.final_round,
        }
        if state.die is not None:
            info["die"] = state.die
        if state.nianzhuang_count == 4 and state.nianzhuang_tile is not None:
            info["nianzhuang"] = tile_str(state.nianzhuang_tile)
        piao = hand.context.get("piao")
        if piao:
            info["piao"] = dict(piao)
        return info

    def public_flags(self, flags: Mapping[str, Any]) -> dict[str, Any]:
        # The 听 mark is public; the tiles it waits on are not.
        return {k: v for k, v in flags.items() if k != READY_WAITS}


__all__ = ["Dongbei", "deal_positions", "first_dealer", "opening_wall", "roll_die"]
