"""D3: 漳州麻将 — spec/rules/SPEC.md §D3, source ``spec/rules/003_00e02b2141198ee2.zh.txt``.

144 tiles with 8 flowers, 16-tile hands (dealer 17).  A drawn flower is exposed
and replaced from the tail at once (补花; at the start in rounds from the dealer).
After 补花 the dealer's dice count a tile from the replacement end: it turns face
up in place and its kind is the 金 (gold), a wild; the face-up tile stays drawable
and is the tile 抢金 takes.  白板 plays the gold's face everywhere (正金: the gold is
白板 and 白板 stands for nothing).  A discarded gold cannot be claimed; two golds
win only by self-draw; three golds win at once (三金倒).

Machine support this rule set added (docs/engine.md): a *prompt* (``Variant.prompt``
/ ``answer_prompt``) for questions outside the claim windows — 抢金 before play and
抢暗杠 before each draw — and ``before_draw`` to hold a draw back while one is open.
The 白板 stand-in in chows uses ``chow_stand_ins``.  Flowers, 游金, the last four
tiles and 三游 happen in ``after_draw`` / ``after_discard``.

Player flags: ``you`` (0, 1 单游, 2 双游; public) and ``passed_win`` (先弃后和).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import shapes
from games.engine.hand import BY_CLAIM, BY_DEAL, BY_DRAW, BY_REPLACEMENT, CLAIM, ENDED, Hand, WinContext, WinVerdict
from games.engine.insight.reader import ShapeReader
from games.engine.options import Option, OptionsError, OptionsSchema
from games.engine.patterns import matching
from games.engine.refusals import Refusal, refuse
from games.engine.scoring import others
from games.engine.state import (
    KONG_CONCEALED,
    KONG_EXPOSED,
    MELD_PUNG,
    PASS,
    WIN,
    Action,
    Event,
    Meld,
    Player,
    Result,
    seat_name,
)
from games.engine.tiles import NUM_KINDS, WHITE, Tile, format_tiles, is_flower, parse_tile, standard_set, tile_str
from games.engine.variants.base import NOT_A_WIN, ScenarioError, Variant
from games.engine.variants.zhangzhou import hands, scoring
from games.engine.wall import Wall, rigged_wall, seed_commitment

DEALER = 0
STACKS_PER_WALL = 18
ROB_GOLD = "rob_gold"  # 抢金 (scenario verb)
ROB_KONG = "rob_concealed_kong"  # 抢暗杠 (scenario verb, ``tile`` = the guess)
PROMPT = "prompt"  # hand phase while the player to draw is asked first (抢暗杠); nobody holds a 17th tile
SOURCE_ROB_CONCEALED = "robbing_concealed_kong"
YOU = "you"  # player flag: 游金 level
PASSED = "passed_win"  # player flag: 先弃后和 until the player's own next turn
RANK = {WIN: 2, ROB_GOLD: 1, ROB_KONG: 1}  # in a prompt: 三金倒 before 抢金
_NO_STAND_INS: dict[Tile, Tile] = {}
_STAND_INS = {g: {WHITE: g} for g in range(27)}  # 白板 plays a suited gold's face in a chow


def break_ring(ring: Sequence[Tile], dice: tuple[int, int]) -> list[Tile]:
    """The ring (walls of dealer, 下家, 对家, 上家) in head order, broken as D3 says.

    Count the dice sum S seats from the dealer (dealer = 1); in that wall leave S
    stacks and start at stack S + 1 (doc: 3 + 4 = 7 → 对家's wall, from stack 8).
    """
    s = dice[0] + dice[1]
    start = 2 * (((s - 1) % 4) * STACKS_PER_WALL + s % STACKS_PER_WALL)
    return list(ring[start:]) + list(ring[:start])


def live(hand: Hand) -> int:
    """Drawable tiles left before the dead wall (the tiles that must stay unplayed)."""
    return hand.wall.remaining() - int(hand.options["dead_wall"])


def _k(name: str, value: int, label: str) -> Option:
    return Option(name, int, value, label, minimum=1, maximum=1000, house=True)


def _single_kind(key: str, options: Mapping[str, Any]) -> WinVerdict:
    """The verdict of a win with one kind only (a discard, 抢杠, 抢金): K is that kind's value."""
    k = scoring.PATTERN[key].value(options)
    return WinVerdict([key], {"k": k, "parts": [[key, k]]})


class Zhangzhou(Variant):
    key = "zhangzhou"
    display_name = "漳州麻将"
    source = "003_00e02b2141198ee2.zh.txt"
    spec_section = "D3"
    hand_size = 16
    state_type = scoring.ZhangzhouState
    context_keys = frozenset({"dealer_streak"})
    options_schema = OptionsSchema(
        (
            Option(
                "dead_wall",
                int,
                16,
                "tiles never drawn at the end (除去要剩的牌)",
                minimum=0,
                maximum=79,
                house=True,
                help="SPEC D3.3.3: the text does not give the number.",
            ),
            _k("k_discard", 1, "K: discard win (平胡)"),
            _k("k_self_draw", 2, "K: self-draw (自摸)"),
            _k("k_three_golds", 2, "K: 三金倒 (scored as 自摸)"),
            _k("k_rob_gold", 2, "K: 抢金"),
            _k("k_single_you", 4, "K: 单游"),
            _k("k_double_you", 8, "K: 双游"),
            _k("k_triple_you", 16, "K: 三游 (2 × 双游)"),
            _k("factor_kong_bloom", 2, "× for 杠上开花"),
            _k("factor_robbing_kong", 2, "× for 抢杠胡 (an added kong, or a concealed one guessed)"),
            Option(
                "dealer_streak_factor",
                bool,
                True,
                "R: payments with the dealer × the dealer's run (连庄)",
                house=True,
                help="SPEC D3 reads the 连庄 fragment as R = dealer_streak.",
            ),
            Option(
                "discard_payer",
                str,
                "all",
                "who pays a discard win",
                choices=("all", "discarder"),
                help="SPEC D3.3.2: all three losers; 'discarder': the discarder pays all three shares.",
            ),
            Option(
                "winner_points",
                str,
                "in_base",
                "the winner's 花分/杠分",
                choices=("in_base", "separate"),
                help="SPEC D3.3.11: inside (底分 + W); 'separate': each loser pays W × 底分 apart.",
            ),
            Option(
                "gold_drawable",
                bool,
                True,
                "the flipped 金 stays in the wall and is drawn in turn",
                help="SPEC D3.3.4; off: it is never drawn (only 3 golds in play, 抢金 still takes it).",
            ),
            Option(
                "double_you_discard_win",
                bool,
                True,
                "during 双游 the forced discards may be won on",
                help="SPEC D3.3.7: a win yes, a chow or pung no.",
            ),
        )
    )

    # ------------------------------------------------------------ configuration
    def validate_context(self, context: Mapping[str, Any] | None) -> dict[str, Any]:
        ctx = super().validate_context(context)
        streak = ctx.get("dealer_streak", 1)
        if isinstance(streak, bool) or not isinstance(streak, int) or streak < 1:
            raise OptionsError(f"context 'dealer_streak' must be an integer >= 1, got {streak!r}")
        return ctx

    def tile_set(self, options: Mapping[str, Any]) -> list[Tile]:
        return standard_set(with_flowers=True)

    # ------------------------------------------------------------------ set-up
    def break_wall(
        self, ring: list[Tile], dice: tuple[int, int], options: Mapping[str, Any]
    ) -> tuple[list[Tile], dict[str, Any]]:
        # D3's break (the base rotates the ring by D0's rule).
        return break_ring(ring, dice), {"dice": list(dice)}

    def deal_order(self) -> list[tuple[int, int]]:
        """Two stacks (4 tiles) each, dealer first, four rounds; then the dealer's 跳牌."""
        return [(seat, 4) for _ in range(4) for seat in range(4)] + [(DEALER, 1)]

    def after_deal(self, hand: Hand) -> None:
        self._opening_flowers(hand)
        pos, rolls = self._flip_gold(hand)
        scoring.zhangzhou_state(hand).gold_dice = rolls
        hand.wall.mark_face_up(pos, drawable=True)  # it stays in place, face up, and is drawn in turn
        self._start(hand, pos)

    def rig_wall(
        self, total: int, flipped: Tile | None, head: Sequence[Tile], tail: Sequence[Tile], filler: Sequence[Tile]
    ) -> Wall:
        if flipped is None:
            raise ScenarioError("zhangzhou needs 'flipped': the 金 turned up after 补花")
        if is_flower(flipped):
            raise ScenarioError("the 金 cannot be a flower (a flower is put back and the dice rolled again)")
        # spec/DESIGN.md: the gold lies in the replacement-draw order right after the listed tail.
        wall = rigged_wall(total, head, tail, filler, fixed_tail={len(tail): flipped})
        wall.mark_face_up(wall.tail_position(len(tail)), drawable=True)
        return wall

    def after_rig(self, hand: Hand, flipped: Tile | None) -> None:
        (pos,) = hand.wall.face_up
        self._opening_flowers(hand)
        self._start(hand, pos)

    def _opening_flowers(self, hand: Hand) -> None:
        """补花 in rounds: dealer first, each player all the flowers in hand; flowers received
        as replacements wait for the next round, which starts from the dealer again."""
        rounds = 0
        while any(is_flower(t) for p in hand.players for t in p.hand):
            rounds += 1
            for p in hand.players:
                flowers = [t for t in p.hand if is_flower(t)]
                for f in flowers:
                    p.remove(f)
                    p.flowers.append(f)
                for _ in flowers:
                    p.add(hand.wall.draw_tail())
        scoring.zhangzhou_state(hand).flower_rounds = rounds

    def _flip_gold(self, hand: Hand) -> tuple[int, list[list[int]]]:
        """The dealer's dice count from the last tile at the replacement end; a flower is put
        back and the dice rolled again.  The dice come from the hand's seed."""
        rng = random.Random(seed_commitment("gold:" + (hand.seed or "")))
        wall = hand.wall
        ranks = range(wall.tail_cursor, len(wall.tiles))
        order = [p for p in (wall.tail_position(k) for k in ranks) if not wall.taken[p]]
        rolls: list[list[int]] = []
        for _ in range(100):
            dice = [rng.randint(1, 6), rng.randint(1, 6)]
            rolls.append(dice)
            pos = order[dice[0] + dice[1] - 1]
            if not is_flower(wall.tiles[pos]):
                return pos, rolls
        # Unreachable in practice: at most 8 of the 11 tiles the dice can reach are flowers.
        return next(p for p in order if not is_flower(wall.tiles[p])), rolls

    def _start(self, hand: Hand, pos: int) -> None:
        wall = hand.wall
        gold = wall.tiles[pos]
        if not hand.options["gold_drawable"] and pos not in wall.skip:
            wall.skip.add(pos)
            wall.recount()
        state = scoring.zhangzhou_state(hand)
        state.gold, state.gold_pos = gold, pos
        hand.set_wilds([gold])
        self._open_rob_gold(hand)

    # ------------------------------------------------------------------ prompts
    def _open_rob_gold(self, hand: Hand) -> None:
        """三金倒 and 抢金, asked of every player before play, the dealer too.

        "翻出金牌后，如果没人三金倒 … 抢金": a declared 三金倒 (three golds in hand) comes before
        every 抢金, whoever holds them; among 抢金 the dealer first, then 下家, 对家, 上家 (SPEC
        D3.3.5).  The dealer may rob when setting one of the 17 tiles aside leaves a 听牌 16.
        Once the dealer has answered, they may play on while the others decide; the next draw
        waits until everyone asked has answered or nobody left could outbid the best answer.
        """
        state = scoring.zhangzhou_state(hand)
        gold = state.gold
        if hand.wall.taken[state.gold_pos]:
            return
        seats = []
        for s in range(4):
            counts = hand.players[s].counts
            options: list[list[Any]] = []
            if counts[gold] >= 3:
                options.append([WIN, None])
            ready = hands.ready_after_setting_aside(counts, gold) if s == DEALER else hands.is_ready(counts, gold)
            if ready:
                options.append([ROB_GOLD, None])
            if options:
                seats.append({"seat": s, "options": options, "answer": None})
        state.prompt = {"kind": ROB_GOLD, "seats": seats} if seats else None

    def prompt(self, hand: Hand) -> dict[int, list[Action]] | None:
        pr = scoring.zhangzhou_state(hand).prompt
        if not pr or hand.phase == ENDED:
            return None
        out = {
            e["seat"]: [Action(e["seat"], kind, tile=tile) for kind, tile in e["options"]]
            for e in pr["seats"]
            if e["answer"] is None
        }
        return out or None

    def answer_prompt(self, hand: Hand, action: Action, events: list[Event]) -> None:
        state = scoring.zhangzhou_state(hand)
        pr = state.prompt
        assert pr is not None, "an answer needs an open prompt"
        answer = [action.kind, action.tile]
        # Rebuilt, never changed in place: a snapshot may share these objects.
        seats = [dict(e, answer=answer) if e["seat"] == action.seat else e for e in pr["seats"]]
        state.prompt = {"kind": pr["kind"], "seats": seats}
        self._resolve_prompt(hand, events)

    def _resolve_prompt(self, hand: Hand, events: list[Event]) -> None:
        """Resolve once nobody still to answer could outbid the best answer (like 截和)."""
        pr = scoring.zhangzhou_state(hand).prompt
        assert pr is not None, "resolving needs an open prompt"

        def key(kind: str, seat: int) -> tuple[int, int]:
            return RANK.get(kind, 0), -((seat - DEALER) % 4)

        best: tuple[tuple[int, int], int, list[Any]] | None = None
        for e in pr["seats"]:
            a = e["answer"]
            if a is not None and a[0] != PASS and (best is None or key(a[0], e["seat"]) > best[0]):
                best = (key(a[0], e["seat"]), e["seat"], a)
        for e in pr["seats"]:
            if e["answer"] is None:
                if best is None:
                    return
                top = max((key(kind, e["seat"]) for kind, _ in e["options"]), default=(0, 0))
                if top > best[0]:
                    return
        scoring.zhangzhou_state(hand).prompt = None
        if best is None:
            self._prompt_passed(hand, pr, events)
            return
        _, seat, (kind, tile) = best
        if kind == WIN:
            p = hand.players[seat]
            ctx = WinContext(seat, None, "self_draw", None, BY_DEAL, list(p.counts), list(p.melds))
            events.append(Event("three_golds", seat))
            hand.finish_win(ctx, events)
        elif kind == ROB_GOLD:
            self._rob_gold(hand, seat, events)
        else:
            self._rob_concealed_kong(hand, seat, tile, events)

    def _prompt_passed(self, hand: Hand, pr: dict[str, Any], events: list[Event]) -> None:
        state = scoring.zhangzhou_state(hand)
        if pr["kind"] == ROB_GOLD:
            held = state.held_draw
            if held is not None:
                state.held_draw = None
                hand.next_draw(held, events)  # 抢暗杠 may still be asked before it
            return
        state.skip_prompt = True  # asked already: this time the draw goes ahead
        hand.next_draw(pr["seats"][0]["seat"], events)

    def before_draw(self, hand: Hand, seat: int, events: list[Event]) -> bool:
        state = scoring.zhangzhou_state(hand)
        if state.skip_prompt:
            state.skip_prompt = False
            return False
        if self.prompt(hand) is not None:
            # The 抢金 answers are not all in.  The table waits as it does for a claim window, so
            # the pause looks like any other and tells nobody who may rob the gold.
            state.held_draw = seat
            hand.phase = CLAIM
            return True
        # 抢暗杠: before each own draw a player may guess another's concealed kong.  Everyone
        # is asked while one stands, so being asked tells nothing.
        if not any(m.kind == KONG_CONCEALED for s in others(seat) for m in hand.players[s].melds):
            return False
        golds = self.wild_kinds(hand)  # a gold never goes into a meld, so it is no guess
        options = [[ROB_KONG, t] for t in range(NUM_KINDS) if t not in golds]
        state.prompt = {"kind": ROB_KONG, "seats": [{"seat": seat, "options": options, "answer": None}]}
        hand.phase = PROMPT
        events.append(Event("rob_kong_question", seat))
        return True

    # ---------------------------------------------------------------- special wins
    def _rob_gold_refusal(self, hand: Hand, seat: int) -> Refusal:
        """Why ``seat`` may not 抢金 now (it is only ever an answer to the 抢金 prompt)."""
        state = scoring.zhangzhou_state(hand)
        counts = hand.players[seat].counts
        if hand.wall.taken[state.gold_pos]:
            return refuse("zhangzhou_gold_gone", "the flipped 金 is no longer in the wall")
        if any(p.discards for p in hand.players) or hand.turn_kind != BY_DEAL:
            return refuse("zhangzhou_rob_gold_before_play", "抢金 is only possible before play, when you are asked")
        if seat == DEALER and not hands.ready_after_setting_aside(counts, state.gold):
            return refuse("zhangzhou_rob_gold_dealer_not_ready", "抢金 needs 16 of your 17 tiles to be 听牌")
        if seat != DEALER and not hands.is_ready(counts, state.gold):
            return refuse("zhangzhou_rob_gold_not_ready", "抢金 needs your 16 tiles to be 听牌")
        return refuse(
            "zhangzhou_rob_gold_answered", "抢金 is decided before play: only when you are asked, and you have answered"
        )

    def _rob_gold(self, hand: Hand, seat: int, events: list[Event]) -> None:
        """Take the face-up gold into hand and win (the dealer sets one tile aside first)."""
        state = scoring.zhangzhou_state(hand)
        gold = state.gold
        p = hand.players[seat]
        state.prompt = None
        if len(p.hand) + 3 * len(p.melds) > self.hand_size:
            aside = self._set_aside(p, gold)
            p.remove(aside)
            p.discards.append(aside)
            events.append(Event("set_aside", seat, {"tile": tile_str(aside)}))
        hand.wall.taken[state.gold_pos] = True
        hand.wall.recount()
        counts = list(p.counts)
        counts[gold] += 1
        events.append(Event(ROB_GOLD, seat, {"tile": tile_str(gold)}))
        ctx = WinContext(seat, gold, ROB_GOLD, None, hand.turn_kind, counts, list(p.melds))
        hand.finish_win(ctx, events)

    @staticmethod
    def _set_aside(p: Player, gold: Tile) -> Tile:
        """The rightmost tile whose removal leaves the dealer 听牌 (a gold only if nothing else does)."""
        fits = hands.ready_after_setting_aside(p.counts, gold)
        for t in reversed(p.hand):
            if t in fits and t != gold:
                return t
        return fits[0]

    def _rob_concealed_kong(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        """A right guess that completes the hand flips the kong and wins on it; anything else is 诈胡."""
        owner = next(
            (s for s in others(seat) for m in hand.players[s].melds if m.kind == KONG_CONCEALED and m.tiles[0] == tile),
            None,
        )
        p = hand.players[seat]
        if owner is not None:
            counts = list(p.counts)
            counts[tile] += 1
            ctx = WinContext(seat, tile, SOURCE_ROB_CONCEALED, owner, BY_CLAIM, counts, list(p.melds))
            if not isinstance(self.evaluate_win(hand, ctx), str):
                melds = hand.players[owner].melds
                i = next(i for i, m in enumerate(melds) if m.kind == KONG_CONCEALED and m.tiles[0] == tile)
                melds[i] = Meld(MELD_PUNG, (tile,) * 3)  # the robbed kong is broken: no 杠分
                events.append(Event(ROB_KONG, seat, {"tile": tile_str(tile), "from": seat_name(owner)}))
                hand.finish_win(ctx, events)
                return
        actual = {
            seat_name(s): format_tiles(m.tiles[:1])
            for s in others(seat)
            for m in hand.players[s].melds
            if m.kind == KONG_CONCEALED
        }
        hand.result = scoring.settle_false_win(hand, seat, tile_str(tile), actual)
        hand.end_hand(events, Event("false_win", seat, {"guess": tile_str(tile), "concealed_kongs": actual}))

    def _auto_win(self, hand: Hand, seat: int, events: list[Event], why: str) -> bool:
        ctx = hand.self_win_context(seat)
        if isinstance(self.evaluate_win(hand, ctx), str):
            return False
        events.append(Event("auto_win", seat, {"why": why}))
        # The scenario runner accepts a listed draw or win that confirms it.
        scoring.zhangzhou_state(hand).auto_win = seat
        hand.finish_win(ctx, events)
        hand.players[seat].drawn = None
        return True

    # ------------------------------------------------------------------- rules
    def chow_stand_ins(self, hand: Hand) -> Mapping[Tile, Tile]:
        return _STAND_INS.get(scoring.zhangzhou_state(hand).gold, _NO_STAND_INS)

    @staticmethod
    def _double_you_of(hand: Hand, seat: int) -> int | None:
        """The other player whose 双游 restricts ``seat`` now, if any."""
        for s in scoring.zhangzhou_state(hand).double_you:
            if s != seat:
                return int(s)
        return None

    def discard_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None:
        you = self._double_you_of(hand, seat)
        drawn = hand.players[seat].drawn
        if you is not None and drawn is not None and tile != drawn:
            return refuse(
                "zhangzhou_double_you_discard",
                "{seat} is 双游: you may only win by self-draw or discard the tile you just received ({tile})",
                seat=seat_name(you),
                tile=tile_str(drawn),
            )
        return None

    def _claim_blocked(self, hand: Hand, tile: Tile, what: str) -> Refusal | None:
        state = scoring.zhangzhou_state(hand)
        if tile == state.gold:
            return refuse("zhangzhou_no_claim_on_gold", "nobody may {verb} a discarded 金", verb=what)
        if state.double_you:
            you = seat_name(state.double_you[0])
            return refuse(
                "zhangzhou_double_you_no_claims",
                "{seat} is 双游: nobody may chow, pung or kong until {seat}'s next draw",
                seat=you,
            )
        return None

    def chow_refusal(self, hand: Hand, seat: int, tile: Tile, rest: list[Tile]) -> Refusal | None:
        if scoring.zhangzhou_state(hand).gold in rest:
            return refuse("zhangzhou_gold_no_chow", "the 金 in your hand cannot be used in a chow")
        return self._claim_blocked(hand, tile, "chow")

    def pung_refusal(self, hand: Hand, seat: int, tile: Tile) -> Refusal | None:
        return self._claim_blocked(hand, tile, "pung")

    def kong_refusal(self, hand: Hand, seat: int, tile: Tile, kind: str) -> Refusal | None:
        if tile == scoring.zhangzhou_state(hand).gold:
            return refuse("zhangzhou_gold_no_kong", "the 金 cannot be konged")
        if kind == KONG_EXPOSED or self._double_you_of(hand, seat) is not None:
            blocked = self._claim_blocked(hand, tile, "kong")
            if blocked:
                return blocked
        if live(hand) <= 0:
            return refuse("zhangzhou_no_replacement_tile", "no drawable tile is left for the kong's replacement")
        if kind != KONG_EXPOSED and self.prompt(hand) is not None:
            # The replacement draw could take the face-up gold the others may still rob.
            return refuse("zhangzhou_rob_gold_pending", "wait: the others are still deciding on 抢金")
        return None

    def can_draw(self, hand: Hand) -> bool:
        return live(hand) > 0

    def extra_refusal(self, hand: Hand, action: Action) -> Refusal | None:
        kind = action.kind
        prompt = self.prompt(hand)
        if prompt is not None and action.seat in prompt:
            offered = " or ".join(sorted({a.kind for a in prompt[action.seat]}))
            pr = scoring.zhangzhou_state(hand).prompt
            assert pr is not None, "prompt() is open"
            if kind == ROB_GOLD:
                return self._rob_gold_refusal(hand, action.seat)
            if kind == WIN and pr["kind"] == ROB_GOLD:
                return refuse("zhangzhou_three_golds_needed", "三金倒 needs three 金")
            if pr["kind"] == ROB_KONG:
                return refuse(
                    "zhangzhou_answer_rob_kong_first",
                    "answer first: guess a concealed kong ({verb} with a tile) or pass",
                    verb=ROB_KONG,
                )
            return refuse("zhangzhou_answer_first", "answer first: {verbs} or pass", verbs=offered)
        if kind == ROB_GOLD:
            if action.tile is not None:
                return refuse("zhangzhou_rob_gold_names_no_tile", "抢金 names no tile")
            return self._rob_gold_refusal(hand, action.seat)
        if kind == ROB_KONG:
            return refuse(
                "zhangzhou_rob_kong_when_asked",
                "a concealed kong may only be guessed when you are asked, before your own draw",
            )
        return refuse("unknown_action", "unknown action {verb!r}", verb=kind)

    # --------------------------------------------------------------------- wins
    def evaluate_win(self, hand: Hand, ctx: WinContext) -> WinVerdict | Refusal:
        state = scoring.zhangzhou_state(hand)
        opts = hand.options
        gold = state.gold
        p = hand.players[ctx.seat]
        c, golds = hands.split(ctx.counts, gold)
        src = ctx.source
        if src in ("discard", "robbing_kong", SOURCE_ROB_CONCEALED):
            if ctx.tile == gold:
                return refuse("zhangzhou_no_win_on_gold", "nobody may win on a discarded 金 (金不能点炮)")
            if src != SOURCE_ROB_CONCEALED and p.flags.get(PASSED):
                return refuse(
                    "zhangzhou_passed_win",
                    "先弃后和: you passed a win; no win on another's tile until your own next turn",
                )
            if src != SOURCE_ROB_CONCEALED and golds >= 2:
                # 抢杠 is a win on another's tile too; a right 抢暗杠 guess is a special win.
                return refuse(
                    "zhangzhou_two_golds_self_draw", "with two or more 金 you may only win by self-draw (两金必须自摸)"
                )
            if src == "discard" and state.double_you and not opts["double_you_discard_win"]:
                return refuse(
                    "zhangzhou_double_you_no_discard_win",
                    "during 双游 the forced discards cannot be won on at this table",
                )
            if not shapes.is_standard_win(c, golds):
                return NOT_A_WIN
            return _single_kind("discard" if src == "discard" else "robbing_kong", opts)
        shaped = shapes.is_standard_win(c, golds)
        if src == ROB_GOLD:
            if not shaped:
                return refuse("zhangzhou_rob_gold_needs_ready", "抢金 needs a 听牌 hand")
            return _single_kind(ROB_GOLD, opts)
        if not shaped and golds < 3:
            return NOT_A_WIN
        level = int(p.flags.get(YOU, 0))
        triple = state.triple_you == ctx.seat
        facts = scoring.ZhangzhouFacts.of(
            ctx,
            wilds=golds,
            shaped=shaped,
            you_level=level,
            # Judged only where it can count (the shape test is the costly part).
            you_draw=not triple and shaped and level >= 1 and self._you_draw(ctx, gold),
            triple_you=triple,
            after_kong=state.after_kong == ctx.seat,
        )
        kinds = [(p.value(opts), p.key) for p in matching(scoring.SELF_DRAW_KINDS, facts)]
        k, name = max(kinds, key=lambda kv: kv[0])  # the first of equals: 游金, then 三金倒, then 自摸
        parts: list[list[Any]] = [[name, k]]
        patterns = [name]
        bloom = scoring.PATTERN["kong_bloom"]
        if bloom.applies(facts):
            patterns.append(bloom.key)
            parts.append([bloom.key, bloom.value(opts)])
            k *= bloom.value(opts)
        return WinVerdict(patterns, {"k": k, "parts": parts, "golds": golds})

    @staticmethod
    def _you_draw(ctx: WinContext, gold: Tile) -> bool:
        """游金's draw: before it the hand was five melds and a lone gold, and the tile drawn is an
        ordinary one (摸进一张普通牌).  A drawn gold instead wins as plain 自摸 (SPEC D3.4.10), is
        thrown for 双游, or ends a 双游 as 三游.

        The shape alone is not 游: the player must have entered it by a discard (flag ``YOU``,
        set in ``after_discard``), see there."""
        drawn = ctx.tile
        if drawn is None or drawn == gold or ctx.turn_kind not in (BY_DRAW, BY_REPLACEMENT):
            return False
        before = list(ctx.counts)
        before[drawn] -= 1
        return hands.you_shape(before, gold)

    # ------------------------------------------------------------------- hooks
    def after_draw(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        state = scoring.zhangzhou_state(hand)
        p = hand.players[seat]
        if p.flags.get(PASSED):
            p.flags[PASSED] = False  # the player's own turn: 先弃后和 is over
        if hand.turn_kind == BY_DRAW:
            state.after_kong = None
            if seat in state.double_you:  # the 双游 player's next draw ends the restriction
                state.double_you = [s for s in state.double_you if s != seat]
        if not state.final_round and live(hand) < 4:
            state.final_round = True  # this tile is one of the last four drawable ones
            events.append(Event("final_round", None, {"live_left": live(hand)}))
        if is_flower(tile):
            p.remove(tile)
            p.flowers.append(tile)
            p.drawn = None
            events.append(Event("flower", seat, {"tile": tile_str(tile)}))
            if live(hand) <= 0:
                hand.finish_draw(events)  # no tile is left to replace it: 和局
            else:
                hand.replacement_draw(seat, events)
            return
        if p.flags.get(YOU) == 2 and tile == state.gold:
            state.triple_you = seat  # 三游: the hand stops at once
            if self._auto_win(hand, seat, events, "三游"):
                return
            state.triple_you = None  # cannot happen: 5 melds, a lone gold and a drawn gold always win
        if state.final_round:
            self._auto_win(hand, seat, events, "最后四张: a winning draw wins automatically")

    def after_discard(self, hand: Hand, seat: int, tile: Tile, events: list[Event]) -> None:
        state = scoring.zhangzhou_state(hand)
        state.after_kong = None
        p = hand.players[seat]
        gold = state.gold
        old = int(p.flags.get(YOU, 0))
        # Five melds and a lone gold wait for any tile (游金).  The text enters 游 by a discard:
        # the pair is the gold and an ordinary tile, "把普通牌打出" (throw the ordinary one), so
        # a discard that leaves this shape is that throw (the 17 tiles before it were five melds
        # and the pair gold + the thrown tile), whether the 17th tile came by a draw or by a
        # claim (a chow or pung, then this discard): both count.  A hand that only lies in the
        # shape (dealt so, or reached by a kong's replacement) has thrown nothing, and its
        # winning draw is plain 自摸.  Throwing a gold to get there (the drawn one in 单游, or
        # one of a gold pair) is 双游.
        level = (2 if tile == gold else max(old, 1)) if hands.you_shape(p.counts, gold) else 0
        if level != old:
            p.flags[YOU] = level
            events.append(Event("you", seat, {"level": level}))
        if level == 2 and tile == gold:
            state.double_you = [s for s in state.double_you if s != seat] + [seat]
        self._track_fenbing(hand, events)

    def _track_fenbing(self, hand: Hand, events: list[Event]) -> None:
        """分饼: round r counts when the three others' r-th discards all equal the dealer's r-th,
        and every round before it counted too."""
        rounds, broken = scoring.zhangzhou_state(hand).fenbing
        if broken:
            return
        lead = hand.players[DEALER].discards
        follow = [hand.players[s].discards for s in others(DEALER)]
        while len(lead) > rounds:
            x = lead[rounds]
            if any(len(f) > rounds and f[rounds] != x for f in follow):
                broken = True
                break
            if not all(len(f) > rounds for f in follow):
                break
            rounds += 1
            each = hand.options["base"] << (rounds - 1)
            events.append(Event("fenbing", DEALER, {"round": rounds, "tile": tile_str(x), "each": each}))
        scoring.zhangzhou_state(hand).fenbing = [rounds, broken]

    def after_meld(self, hand: Hand, seat: int, meld: Meld, events: list[Event]) -> None:
        hand.players[seat].flags[PASSED] = False  # a claim is the player's turn too
        if meld.is_kong:
            scoring.zhangzhou_state(hand).after_kong = seat

    def on_claim_answer(self, hand: Hand, action: Action) -> None:
        w = hand.window
        if w is None or action.kind == WIN:
            return
        if Action(action.seat, WIN) in w.options.get(action.seat, ()):
            hand.players[action.seat].flags[PASSED] = True  # 先弃后和

    # ----------------------------------------------------------------- scoring
    def settle_win(self, hand: Hand, ctx: WinContext, verdict: WinVerdict) -> Result:
        return scoring.settle_win(hand, ctx, verdict)

    def settle_draw(self, hand: Hand) -> Result:
        return scoring.settle_draw(hand)

    def next_dealer_offset(self, result: Result) -> int:
        # The dealer stays on a win of their own or a 和局 (臭庄); otherwise the 下家 deals.
        if result.status == "win":
            return 0 if result.winner == DEALER else 1
        return 1 if result.win_kind == "false_win" else 0

    def next_context(self, result: Result, context: Mapping[str, Any]) -> dict[str, Any]:
        streak = int(context.get("dealer_streak", 1))
        return {"dealer_streak": streak + 1 if self.next_dealer_offset(result) == 0 else 1}

    # ------------------------------------------------------------ presentation
    def shape_reader(self, table: Mapping[str, Any]) -> ShapeReader:
        """金 is wild and 白板 plays the 金's face (``hands.split``); melds and a pair win."""
        gold = parse_tile(table["gold"])
        return ShapeReader(read=lambda counts: (hands.split(counts, gold),))

    def public_info(self, hand: Hand) -> dict[str, Any]:
        state = scoring.zhangzhou_state(hand)
        gold = state.gold
        return {
            "gold": tile_str(gold),
            "wilds": tile_str(gold),
            "zheng_jin": gold == WHITE,  # 正金: 白板 stands for nothing
            "gold_in_wall": not hand.wall.taken[state.gold_pos],
            "you": {seat_name(s): int(p.flags.get(YOU, 0)) for s, p in enumerate(hand.players) if p.flags.get(YOU)},
            "double_you": [seat_name(s) for s in state.double_you],
            "live_left": max(0, live(hand)),
            "dead_wall": hand.options["dead_wall"],
            "final_round": state.final_round,
            "fenbing_rounds": state.fenbing[0],
        }

    def public_flags(self, flags: Mapping[str, Any]) -> dict[str, Any]:
        # 先弃后和 would tell the others what the player could have won on.
        return {YOU: flags[YOU]} if flags.get(YOU) else {}
