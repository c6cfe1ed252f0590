"""D2: 温州麻将 — spec/rules/SPEC.md §D2, source ``spec/rules/002_243bd58765276302.zh.txt``.

Dealer 17 tiles, others 16.  After the deal the 17th tile from the tail is
turned face up: its kind is the 财神 (3 live copies, wild, never discarded,
chowed, punged or konged).  The 16 tiles beyond it are drawn only as kong
replacements; normal draws stop at the 财神 (流局).  Every 白板 is a natural copy
of the 财神's kind (unless the 财神 is 白板 itself): it chows, pungs and wins at
that face — the machine's ``chow_stand_ins`` hook lets it sit in a chow.

Hand analysis lives in :mod:`.hands`, settlement in :mod:`.scoring`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from games.engine.hand import ClaimWindow, Hand, WinContext, WinVerdict
from games.engine.insight.reader import ShapeReader
from games.engine.options import Option, OptionsError, OptionsSchema
from games.engine.refusals import Refusal, refuse
from games.engine.rule_state import RuleState
from games.engine.state import (
    KONG,
    KONG_EXPOSED,
    MELD_CHOW,
    MELD_PUNG,
    PUNG,
    WIN,
    Action,
    BreakdownItem,
    Event,
    Meld,
    Result,
)
from games.engine.tiles import GREEN, NUM_KINDS, RED, WHITE, Tile, parse_tile, standard_set, tile_str
from games.engine.variants.base import NOT_A_WIN, PreHandQuestion, ScenarioError, Variant
from games.engine.variants.wenzhou.hands import (
    CLASS_LABEL,
    EIGHT_PAIRS,
    PAOMA_LABELS,
    PATTERN,
    PATTERN_CLASS,
    Faces,
    Judgement,
    judge,
    paoma_state,
    quick_win,
    win_facts,
)
from games.engine.variants.wenzhou.scoring import (
    TIERS,
    caishen_score,
    dealer_item,
    follow_score,
    hand_score,
    kong_score,
    stakes_from,
)
from games.engine.wall import Wall, rigged_wall
from games.engine.win import draw_result, win_result

RESERVE: Final = 16  # tiles beyond the 财神, drawn only as kong replacements
PASS_PUNG, PASS_WIN = "pass_pung", "pass_win"  # 过碰 / 过胡: private player flags
_PRIVATE_FLAGS: Final = frozenset({PASS_PUNG, PASS_WIN})
_FACES: Final = {w: Faces(w) for w in range(NUM_KINDS)}
_STAND_INS: Final[dict[Tile, Mapping[Tile, Tile]]] = {w: ({WHITE: w} if w != WHITE else {}) for w in range(NUM_KINDS)}
_HONOUR_KINDS: Final = tuple(range(27, NUM_KINDS))
_CLAIM_MELDS: Final = frozenset({MELD_CHOW, MELD_PUNG, KONG_EXPOSED})
_SEATS = "ESWN"


# Asked for every held tile while a 财神 is in hand: made once.
_NO_CAISHEN_DISCARD = refuse("wenzhou_caishen_no_discard", "a 财神 can never be discarded (财神不能打出)")


def _names(tiles: Sequence[Tile]) -> str:
    return " ".join(tile_str(t) for t in tiles)


@dataclass(slots=True)
class WenzhouState(RuleState):
    """D2's hand state: the 财神 turned up behind the reserve, the reserve, and 跟风."""

    flipped: Tile | None = None  # the tile turned up (its kind is the 财神)
    reserve: list[int] = field(default_factory=list)  # wall positions normal draws may not take
    last_discard: Tile | None = None  # the river's last tile, for the follow-the-discard rule
    follow_run: list[int] | None = None  # [victim, face, followers so far] of an open 跟风 run
    follow_streak: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # each seat's 跟风 in a row
    follow_paid: list[list[int]] = field(default_factory=list)  # [victim, amount] per 跟风 paid


def _state(hand: Hand) -> WenzhouState:
    # Inline rather than state_of(): it is read on every turn and every claim check.
    state = hand.state
    assert isinstance(state, WenzhouState)
    return state


class Wenzhou(Variant):
    key = "wenzhou"
    display_name = "温州麻将"
    source = "002_243bd58765276302.zh.txt"
    spec_section = "D2"
    hand_size = 16
    state_type = WenzhouState
    kong_after_claim = False  # 碰牌或者吃牌之后，不能马上暗杠
    added_kong_robbable = True
    context_keys = frozenset({"dealer_streak", "buy_base", "counter_base"})
    options_schema = OptionsSchema(
        (
            Option(
                "base_tiers",
                str,
                "1246",
                "底分 ladder by dealer streak (温州通用进阶分)",
                choices=tuple(TIERS),
            ),
            Option("follow_wind", bool, False, "跟风 scoring"),
            Option("no_red_green", bool, False, "无红中发财 (128 tiles)"),
            Option(
                "pair_base",
                str,
                "one",
                "U, the base between two non-dealers",
                choices=("one", "first_tier"),
                help="SPEC D2.3.3: 'one' per the text; 'first_tier' = the ladder's first value (779).",
            ),
            Option(
                "dealer_hands_max",
                int,
                4,
                "most consecutive hands one dealer deals",
                choices=(4, 5),
                help="SPEC D2.3.1: 4; with 5 the fifth hand stays on the top tier.",
            ),
            Option(
                "base_bets",
                str,
                "symmetric",
                "买底/顶底 apply",
                choices=("symmetric", "one_sided"),
                help="SPEC D2.3.4: 'symmetric' in every dealer pair; 'one_sided' only when the bettor wins.",
            ),
            Option(
                "follow_scope",
                str,
                "previous",
                "forced-discard tier 1 (跟打)",
                choices=("previous", "visible"),
                help="SPEC D2.3.8: the previous discard only, or any single honour already visible.",
            ),
            Option(
                "caishen_pairs",
                str,
                "all",
                "财神分 settles between",
                choices=("all", "winner"),
                help="SPEC D2.2: every pair of players, or only the winner with each loser.",
            ),
            Option(
                "caishen_unit",
                str,
                "one",
                "财神分 per 财神",
                choices=("one", "first_tier"),
                help="SPEC D2.3.10: 1 point, or the ladder's first value (779).",
            ),
            Option("caishen_on_draw", bool, True, "财神分 also on a 流局", help="SPEC D2.3.9."),
            Option(
                "earth_window",
                str,
                "first_discard",
                "地胡",
                choices=("first_discard", "before_second"),
                help="SPEC D2.3.11: a win on the dealer's first discard, or any non-dealer win before "
                "the dealer's second discard.",
            ),
        )
    )

    # ------------------------------------------------------------ configuration
    def validate_context(self, context: Mapping[str, Any] | None) -> dict[str, Any]:
        ctx = super().validate_context(context)
        streak = ctx.get("dealer_streak", 1)
        if isinstance(streak, bool) or not isinstance(streak, int) or not 1 <= streak <= 5:
            raise OptionsError(f"context 'dealer_streak' must be 1..5 (the dealer's hand in a row), got {streak!r}")
        if not isinstance(ctx.get("buy_base", False), bool):
            raise OptionsError(f"context 'buy_base' must be true or false, got {ctx['buy_base']!r}")
        counter = ctx.get("counter_base", [])
        if (
            not isinstance(counter, list)
            or any(not isinstance(s, str) or s not in ("S", "W", "N") for s in counter)
            or len(set(counter)) != len(counter)
        ):
            raise OptionsError(f"context 'counter_base' must list non-dealer seats (S, W, N), got {counter!r}")
        return ctx

    def tile_set(self, options: Mapping[str, Any]) -> list[Tile]:
        return standard_set(exclude=(RED, GREEN) if options.get("no_red_green") else ())

    # ------------------------------------------------------------------ set-up
    def deal_order(self) -> list[tuple[int, int]]:
        """4 tiles × 4 rounds to each seat, then the dealer's extra tile (跳牌): 17/16/16/16."""
        return [(seat, 4) for _ in range(4) for seat in range(4)] + [(0, 1)]

    def after_deal(self, hand: Hand) -> None:
        pos = hand.wall.tail_position(RESERVE)
        hand.wall.mark_face_up(pos, drawable=False)
        self._set_up(hand, pos)

    def rig_wall(
        self, total: int, flipped: Tile | None, head: Sequence[Tile], tail: Sequence[Tile], filler: Sequence[Tile]
    ) -> Wall:
        if flipped is None:
            raise ScenarioError("wenzhou needs 'flipped': the tile turned up as the 财神")
        wall = rigged_wall(total, head, tail, filler, fixed_tail={RESERVE: flipped})
        wall.mark_face_up(wall.tail_position(RESERVE), drawable=False)
        return wall

    def after_rig(self, hand: Hand, flipped: Tile | None) -> None:
        self._set_up(hand, hand.wall.tail_position(RESERVE))

    def _set_up(self, hand: Hand, pos: int) -> None:
        wall = hand.wall
        state = _state(hand)
        state.flipped = wall.tiles[pos]
        state.reserve = [wall.tail_position(k) for k in range(RESERVE)]
        state.last_discard = None
        hand.set_wilds([wall.tiles[pos]])

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def faces(hand: Hand) -> Faces:
        return _FACES[hand.state.wilds[0]]

    @staticmethod
    def live_left(hand: Hand) -> int:
        """Tiles normal draws may still take (the reserve behind the 财神 excluded)."""
        wall = hand.wall
        reserved = sum(1 for p in _state(hand).reserve if not wall.taken[p])
        return wall.remaining() - reserved

    # -------------------------------------------------------------------- rules
    def chow_stand_ins(self, hand: Hand) -> Mapping[Tile, Tile]:
        return _STAND_INS[hand.state.wilds[0]]

    def discard_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None:
        wild = hand.state.wilds[0]
        if tile == wild:
            return _NO_CAISHEN_DISCARD
        counts = hand.players[seat].counts
        if 1 not in counts[27:NUM_KINDS]:
            return None  # no single honour: free choice (asked for every held kind, so kept cheap)
        faces = _FACES[wild]
        singles = [x for x in _HONOUR_KINDS if counts[x] == 1 and faces.is_honour(x)]
        if not singles:
            return None
        follow = self._follow_targets(hand, singles)
        if follow:
            if tile in follow:
                return None
            return refuse(
                "wenzhou_follow_single_honour",
                "you must follow the last discard with your single {tiles} (跟打单张风字牌)",
                tiles=_names(follow),
            )
        if tile in singles:
            return None
        return refuse(
            "wenzhou_single_honours_first",
            "you hold single winds/dragons ({tiles}): discard one of them first (先打单张风字牌)",
            tiles=_names(singles),
        )

    def _follow_targets(self, hand: Hand, singles: list[Tile]) -> list[Tile]:
        """Tier 1 of the discard rule: the single honour matching the previous discard
        (or, at tables that say so, any single honour already visible)."""
        last = _state(hand).last_discard
        if hand.options["follow_scope"] == "previous":
            return [last] if last in singles else []
        seen: set[Tile] = set()
        for p in hand.players:
            seen.update(p.discards)
            for m in p.melds:
                seen.update(m.tiles)
        return [t for t in singles if t in seen or t == last]

    def _leaves_only_caishen(self, hand: Hand, seat: int, used: int) -> bool:
        """A claim that would leave nothing but 财神 in hand leaves nothing to discard."""
        p = hand.players[seat]
        return len(p.hand) - used - p.counts[self.faces(hand).wild] <= 0

    def chow_refusal(self, hand: Hand, seat: int, tile: Tile, rest: list[Tile]) -> Refusal | None:
        if self.faces(hand).wild in rest:
            return refuse("wenzhou_caishen_no_chow", "a 财神 may not be used in a chow (财神不能吃牌)")
        if self._leaves_only_caishen(hand, seat, 2):
            return refuse(
                "wenzhou_chow_leaves_only_caishen",
                "after this chow you would hold only 财神, which cannot be discarded",
            )
        return None

    def pung_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None:
        if tile == self.faces(hand).wild:
            return refuse("wenzhou_caishen_no_pung", "a 财神 may not be punged (财神不能碰)")
        if tile in hand.players[seat].flags.get(PASS_PUNG, ()):
            return refuse(
                "wenzhou_passed_pung",
                "过碰: you passed on punging {tile}; you may pung it again after your next draw or pung",
                tile=tile_str(tile),
            )
        if self._leaves_only_caishen(hand, seat, 2):
            return refuse(
                "wenzhou_pung_leaves_only_caishen",
                "after this pung you would hold only 财神, which cannot be discarded",
            )
        return None

    def kong_refusal(self, hand: Hand, seat: int, tile: Tile, kind: str) -> Refusal | None:
        if tile == self.faces(hand).wild:
            return refuse("wenzhou_caishen_no_kong", "a 财神 may not be konged (财神不能杠)")
        return None

    def can_draw(self, hand: Hand) -> bool:
        return self.live_left(hand) > 0

    def forced_action(self, hand: Hand, seat: int) -> Action | None:
        """Holding only 财神 after a replacement draw (two of them: a winning pair), the
        player cannot discard; the win is the only move left."""
        p = hand.players[seat]
        if any(p.counts[t] and self.discard_refusal(hand, seat, t) is None for t in set(p.hand)):
            return None
        return Action(seat, WIN) if hand.self_win_refusal(seat) is None else None

    # --------------------------------------------------------------------- wins
    def evaluate_win(self, hand: Hand, ctx: WinContext) -> WinVerdict | Refusal:
        faces = self.faces(hand)
        c, wilds = faces.counts(ctx.counts)
        self_draw = ctx.source == "self_draw"
        std, pairs, ok = quick_win(c, wilds, len(ctx.melds), self_draw)
        if not ok:
            return NOT_A_WIN
        if not self_draw:
            tile = ctx.tile
            assert tile is not None
            if tile in hand.players[ctx.seat].flags.get(PASS_WIN, ()):
                return refuse(
                    "wenzhou_passed_win",
                    "过胡: you passed on winning with {tile}; not again before your next draw or pung",
                    tile=tile_str(tile),
                )
            pre = list(c)
            pre[faces.face(tile)] -= 1
            state = paoma_state(pre, wilds, len(ctx.melds))
            if state is None and wilds >= 3 and not std:
                state = "three_caishen"
            if state is not None:
                return refuse(
                    "wenzhou_paoma_self_draw_only",
                    "跑马 ({form}): this hand may only be won by self-draw (只能自摸)",
                    form=PAOMA_LABELS[state],
                )
        facts = win_facts(
            ctx,
            c,
            wilds,
            std,
            pairs,
            faces,
            heaven=self_draw and ctx.seat == 0 and ctx.turn_kind == "deal",
            earth=self._is_earth(hand, ctx),
            kong_bloom=self_draw and ctx.turn_kind == "replacement",
        )
        j = judge(facts)
        return WinVerdict(patterns=list(j.patterns), data={"judgement": j})

    def _is_earth(self, hand: Hand, ctx: WinContext) -> bool:
        if ctx.seat == 0:
            return False
        dealer_discards = len(hand.players[0].discards)
        if hand.options["earth_window"] == "before_second":
            return dealer_discards <= 1
        return (
            ctx.source == "discard"
            and ctx.from_seat == 0
            and dealer_discards == 1
            and all(not p.discards for p in hand.players[1:])
        )

    def pick_claim(self, hand: Hand, window: ClaimWindow) -> Action | None:
        """One winner per discard: the bigger hand class first (双翻 > 硬 > 软, the 双翻
        order, 抢杠胡 first among 硬), then the first seat counter-clockwise from the discarder."""
        wins = [a for a in window.responses.values() if a.kind == WIN]
        if not wins:
            return super().pick_claim(hand, window)

        def key(a: Action) -> tuple[tuple[int, int], int]:
            ctx = hand.claim_win_context(a.seat, window.kind, window.seat, window.tile)
            verdict = self.evaluate_win(hand, ctx)
            assert not isinstance(verdict, str), verdict
            judgement: Judgement = verdict.data["judgement"]
            return judgement.priority, -((a.seat - window.seat) % 4)

        return max(wins, key=key)

    # ------------------------------------------------------------------- hooks
    def after_draw(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        flags = hand.players[seat].flags
        flags.pop(PASS_PUNG, None)  # 过碰/过胡 last until the player's next draw
        flags.pop(PASS_WIN, None)

    def after_discard(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        _state(hand).last_discard = tile
        if hand.options["follow_wind"]:
            self._track_follow(hand, seat, tile, events)

    def after_meld(self, hand: Hand, seat: int, meld: Meld, events: list[Event]) -> None:
        if meld.kind == MELD_PUNG:
            flags = hand.players[seat].flags
            flags.pop(PASS_PUNG, None)  # ... or pung
            flags.pop(PASS_WIN, None)
        if meld.kind in _CLAIM_MELDS:
            # The claimed tile leaves the river: nothing to follow, and a 跟风 run is broken.
            state = _state(hand)
            state.last_discard = None
            run = state.follow_run
            if run is not None:
                streak = list(state.follow_streak)
                streak[run[0]] = 0
                state.follow_streak = streak
                state.follow_run = None

    def on_claim_answer(self, hand: Hand, action: Action) -> None:
        w = hand.window
        if w is None or action.kind == WIN:
            return
        offered = w.options.get(action.seat, [])
        flags = hand.players[action.seat].flags
        if Action(action.seat, WIN) in offered:
            flags[PASS_WIN] = sorted({*flags.get(PASS_WIN, []), w.tile})
        if action.kind not in (PUNG, KONG) and Action(action.seat, PUNG) in offered:
            flags[PASS_PUNG] = sorted({*flags.get(PASS_PUNG, []), w.tile})

    def _track_follow(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        """跟风: a followable honour discarded by A and then by the next three players in turn,
        with no claim between, costs A 2^(k-1) to each other player for A's k-th in a row.
        A's streak ends as soon as one of A's discards is not followed.  (State is kept as
        fresh lists in the hand's state, never mutated in place.)"""
        faces = self.faces(hand)
        face = faces.face(tile)
        state = _state(hand)
        streak = list(state.follow_streak)
        run = state.follow_run
        paid = list(state.follow_paid)
        if run is not None:
            victim, run_face, followed = run
            if face == run_face and seat == (victim + followed + 1) % 4:
                followed += 1
                if followed == 3:
                    streak[victim] += 1
                    amount = 2 ** (streak[victim] - 1)
                    paid.append([victim, amount])
                    events.append(Event("follow_wind", victim, {"tile": tile_str(tile), "amount": amount}))
                    run = None
                else:
                    run = [victim, run_face, followed]
                self._store_follow(hand, run, streak, paid)
                return
            streak[victim] = 0
            run = None
        if faces.followable(tile):
            run = [seat, face, 0]
        else:
            streak[seat] = 0
        self._store_follow(hand, run, streak, paid)

    @staticmethod
    def _store_follow(hand: Hand, run: list[int] | None, streak: list[int], paid: list[list[int]]) -> None:
        state = _state(hand)
        state.follow_run = run
        state.follow_streak = streak
        state.follow_paid = paid

    # ----------------------------------------------------------------- scoring
    def settle_win(self, hand: Hand, ctx: WinContext, verdict: WinVerdict) -> Result:
        j: Judgement = verdict.data["judgement"]
        opts = hand.options
        stakes = stakes_from(hand.context, opts)
        winner = ctx.seat
        items: list[BreakdownItem] = []
        for p in j.patterns:
            cls = CLASS_LABEL[PATTERN_CLASS[p]]
            counted = p == j.counted
            detail = cls if counted else f"{cls}, 不叠加 (not counted)"
            items.append(PATTERN[p].item(opts, detail, hand_class=PATTERN_CLASS[p], counted=counted))
        if j.self_draw_double:
            items.append(BreakdownItem("self_draw_double", "自摸翻倍", 2, unit="multiplier", params={"multiplier": 2}))
        if j.kong_bloom:
            items.append(BreakdownItem("kong_bloom", "杠后开花", 2, unit="multiplier", params={"multiplier": 2}))
        wild = self.faces(hand).wild
        held = [ctx.counts[wild] if s == winner else hand.players[s].counts[wild] for s in range(4)]
        side = [
            hand_score(stakes, winner, j.mult),
            caishen_score(held, winner, j.three_caishen_hard, opts["caishen_pairs"] == "winner", self._cs_unit(hand)),
            kong_score([p.melds for p in hand.players], stakes.unit),
            follow_score(_state(hand).follow_paid, stakes.unit),
        ]
        hands_max = opts["dealer_hands_max"]
        if winner == 0:
            last = stakes.streak >= hands_max
            offset, reason, why = (
                (1, f"连庄已满{hands_max}把", "streak_full") if last else (0, "庄家胡牌", "dealer_won")
            )
        else:
            offset, reason, why = 1, "闲家胡牌", "non_dealer_won"
        items.extend(i for i in side if i is not None)
        items.append(dealer_item(stakes, offset, reason, why, hands_max))
        return win_result(ctx, items, ctx.source)

    def settle_draw(self, hand: Hand) -> Result:
        opts = hand.options
        stakes = stakes_from(hand.context, opts)
        wild = self.faces(hand).wild
        side: list[BreakdownItem | None] = [
            kong_score([p.melds for p in hand.players], stakes.unit),
            follow_score(_state(hand).follow_paid, stakes.unit),
        ]
        if opts["caishen_on_draw"]:
            held = [p.counts[wild] for p in hand.players]
            side.append(caishen_score(held, None, False, opts["caishen_pairs"] == "winner", self._cs_unit(hand)))
        hands_max = opts["dealer_hands_max"]
        if hand.kongs_made:
            offset, reason, why = 1, "流局有杠", "draw_with_kong"
        elif stakes.streak >= hands_max:
            offset, reason, why = 1, f"连庄已满{hands_max}把", "streak_full"
        else:
            offset, reason, why = 0, "流局无杠", "draw_without_kong"
        items = [BreakdownItem("exhaustive_draw", "流局"), *(i for i in side if i is not None)]
        items.append(dealer_item(stakes, offset, reason, why, hands_max))
        return draw_result(items)

    @staticmethod
    def _cs_unit(hand: Hand) -> int:
        opts = hand.options
        per = 1 if opts["caishen_unit"] == "one" else TIERS[opts["base_tiers"]][0]
        return int(per * opts["base"])

    def next_dealer_offset(self, result: Result) -> int:
        for item in result.breakdown:
            if item.name == "dealer":
                return int(item.value)
        return 0 if result.winner == 0 else 1

    def pre_hand_questions(self, options: Mapping[str, Any], context: Mapping[str, Any]) -> list[PreHandQuestion]:
        """买底 by the dealer, then 顶底 by the non-dealers, before the deal ("在摸牌前").

        A bet made earlier in this dealership is an obligation (必须连续买底 / 必须跟顶): that
        seat is not asked again, its bet stands.
        """
        questions = []
        if not context.get("buy_base"):
            questions.append(PreHandQuestion("buy_base", "买底", (0,), (False, True), False))
        obliged = set(context.get("counter_base", ()))
        free = tuple(s for s in (1, 2, 3) if _SEATS[s] not in obliged)
        if free:
            questions.append(PreHandQuestion("counter_base", "顶底", free, (False, True), False))
        return questions

    def apply_pre_hand_answers(
        self, context: Mapping[str, Any], question: PreHandQuestion, answers: Mapping[int, Any]
    ) -> dict[str, Any]:
        ctx = dict(context)
        if question.key == "buy_base":
            ctx["buy_base"] = bool(answers.get(0, False))
        elif question.key == "counter_base":
            seats = set(ctx.get("counter_base", ())) | {_SEATS[s] for s, yes in answers.items() if yes}
            ctx["counter_base"] = sorted(seats, key=_SEATS.index)
        else:
            raise ValueError(f"wenzhou asks no {question.key!r}")
        return ctx

    def next_context(self, result: Result, context: Mapping[str, Any]) -> dict[str, Any]:
        """The next hand's pre-hand state.  While the dealer keeps the deal, a 买底 or 顶底
        made during the dealership carries over as an obligation (必须连续买底 / 必须跟顶):
        the platform may add new bets before the deal but never drop these."""
        if self.next_dealer_offset(result) != 0:
            return {"dealer_streak": 1, "buy_base": False, "counter_base": []}
        return {
            "dealer_streak": int(context.get("dealer_streak", 1)) + 1,
            "buy_base": bool(context.get("buy_base", False)),
            "counter_base": list(context.get("counter_base", [])),
        }

    # ------------------------------------------------------------ presentation
    def shape_reader(self, table: Mapping[str, Any]) -> ShapeReader:
        """财神 is wild and 白板 plays its face (``Faces``); 八对 wins beside melds and a pair
        while nothing is laid down (``quick_win``, which also takes five of a face)."""
        faces = Faces(parse_tile(table["wilds"]))

        def win_test(counts: Sequence[int], n_melds: int) -> bool:
            c, w = faces.counts(counts)
            return quick_win(c, w, n_melds, False)[2]

        return ShapeReader(
            read=lambda counts: (faces.counts(counts),),
            special=lambda n_melds: () if n_melds else (EIGHT_PAIRS,),
            win_test=win_test,
        )

    def public_info(self, hand: Hand) -> dict[str, Any]:
        faces = self.faces(hand)
        stakes = stakes_from(hand.context, hand.options)
        flipped = _state(hand).flipped
        assert flipped is not None, "the 财神 is turned up before play"
        return {
            "wilds": tile_str(faces.wild),
            "flipped": tile_str(flipped),
            "stand_in": f"P={tile_str(faces.wild)}" if faces.stand_in else "",
            "dealer_streak": stakes.streak,
            "base_tier": stakes.tier,
            "buy_base": stakes.buy_base,
            "counter_base": " ".join(_SEATS[s] for s in sorted(stakes.counter_base)),
            "live_left": self.live_left(hand),
        }

    def public_flags(self, flags: Mapping[str, Any]) -> dict[str, Any]:
        # 过碰/过胡 would tell the others what the player could have claimed.
        return {k: v for k, v in flags.items() if k not in _PRIVATE_FLAGS}
