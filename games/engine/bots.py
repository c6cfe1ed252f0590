"""Bots that play a :class:`Hand`: for the simulator, property tests and empty seats.

A bot is asked only when ``hand.legal_actions(seat)`` is non-empty and must
return one of those actions.  Callers that already hold the legal list (the
simulator asks every seat each step) pass it as ``legal`` so that a decision
never recomputes it: on an own turn ``legal_actions`` evaluates a self-drawn
win and every kong, which is most of the engine's per-turn cost.

``GreedyBot`` plays for the standard shape (4 melds + a pair) only, measured by
``shapes.shanten`` with the variant's wilds kept apart as jokers.  It is meant
to finish hands quickly and plausibly, not to play well: it ignores scoring,
defence and what the others discard.

It does take the rule sets' own options where they pay (each choice is argued
where it is made): 漳州's 抢金, 游金 (单游 / 双游) and 抢暗杠 guesses, 东北's 报听,
and every win offered, 抢杠胡 included.  Like a person at the table it reads
only what its seat may see: its own tiles and flags, the ponds, the open melds,
face-up wall tiles and the rule set's public state (the 金, the tiles left).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Protocol

from games.engine import shapes
from games.engine.hand import CLAIM, ON_DISCARD, Hand
from games.engine.state import CHOW, DISCARD, KONG, KONG_CONCEALED, PASS, PUNG, WIN, Action, claimed_from_hand
from games.engine.tiles import NUM_KINDS, Tile
from games.engine.variants.base import PreHandQuestion
from games.engine.variants.dongbei.scoring import READY
from games.engine.variants.zhangzhou import hands as zhangzhou_hands
from games.engine.variants.zhangzhou.rules import ROB_GOLD, ROB_KONG, YOU, Zhangzhou
from games.engine.variants.zhangzhou.rules import live as zhangzhou_live
from games.engine.variants.zhangzhou.scoring import zhangzhou_state

# Shanten answers a GreedyBot remembers; hands repeat within a hand far more than across hands.
MEMO_LIMIT = 20_000

# 游金 (漳州): enter 游, or stay in it rather than take a smaller win, only while more than
# this many drawable tiles are left.  Once in 游 the very next own draw wins (any ordinary
# tile completes the lone 金's pair; a flower is replaced), so the bet is one round of the
# table.  The engine's final round is the last 4 tiles (each player's last draw); 8 leaves a
# second round of margin for the replacement draws of flowers and kongs in between.
YOU_MIN_LIVE: Final = 8
# 抢暗杠 (漳州): guess only when the chance that the guessed kind is one of the others'
# concealed kongs is at least NUM / DEN.  A right guess is paid like a 抢杠胡: (1 + W) × 2
# by each of three, 6 底分 for a guesser with no 花杠分.  A wrong one (诈胡) pays each other
# player a self-draw, (1 + W_P) × 2, and the kong's owner has W_P >= 2: at least 10 底分.
# Break-even is near 3 in 5 before counting what simply playing on is worth: ask for 2 in 3.
GUESS_MIN_CHANCE: Final = (2, 3)


class Bot(Protocol):
    def choose(self, hand: Hand, seat: int, rng: random.Random, legal: Sequence[Action] | None = None) -> Action:
        """One of ``hand.legal_actions(seat)`` (given as ``legal`` when the caller has it)."""
        ...


class RandomBot:
    """A uniformly random legal action; ``pass`` is one of the choices whenever it is legal."""

    def choose(self, hand: Hand, seat: int, rng: random.Random, legal: Sequence[Action] | None = None) -> Action:
        acts = legal if legal is not None else hand.legal_actions(seat)
        if not acts:
            raise ValueError(f"seat {seat} has no legal action to choose from")
        return acts[rng.randrange(len(acts))]


def split_counts(tiles: Iterable[Tile], wilds: Iterable[Tile]) -> tuple[list[int], int]:
    """A 34-kind count vector with the wild kinds taken out, and how many wilds there were.

    Flowers (codes >= 34) never belong to a shape, so they are left out.
    """
    counts = [0] * NUM_KINDS
    for t in tiles:
        if t < NUM_KINDS:
            counts[t] += 1
    n = 0
    for w in wilds:
        if w < NUM_KINDS:
            n += counts[w]
            counts[w] = 0
    return counts, n


# For each kind, the slice of kinds within two ranks in its suit (just itself for an honour).
_SPAN: Final = tuple((t - min(t % 9, 2), t + min(8 - t % 9, 2) + 1) if t < 27 else (t, t + 1) for t in range(NUM_KINDS))
# Which loose tile to throw first: honours (0) have no run to grow into, terminals (1) one way, the rest (2) more.
_LOOSE_ORDER: Final = tuple(0 if t >= 27 else (1 if t % 9 in (0, 8) else 2) for t in range(NUM_KINDS))


def isolated(counts: Sequence[int], t: Tile) -> bool:
    """``t`` is a lone copy with no suited neighbour within two ranks."""
    lo, hi = _SPAN[t]
    return counts[t] == 1 and sum(counts[lo:hi]) == 1


def connectivity(counts: Sequence[int], t: Tile) -> int:
    """How much ``t`` works with the rest of ``counts`` (its own copy included in ``counts``).

    A cheap stand-in for "useful tiles lost": copies of the same kind make pairs
    and pungs, suited neighbours within two ranks make runs.  Higher = keep.
    """
    score = 4 * (counts[t] - 1)
    if t < 27:
        rank = t % 9
        for d, weight in ((1, 2), (2, 1)):
            if rank - d >= 0:
                score += weight * min(counts[t - d], 1)
            if rank + d <= 8:
                score += weight * min(counts[t + d], 1)
        # Middle ranks have more ways to grow into a run than terminals.
        score += 1 if 2 <= rank <= 6 else 0
    return score


def seen_counts(hand: Hand, seat: int) -> list[int]:
    """How many of each kind ``seat`` can see: its own tiles and melds, every pond, the others'
    open melds and the face-up wall tiles (never another's concealed kong or hand)."""
    seen = [0] * NUM_KINDS
    tiles: list[Tile] = list(hand.players[seat].hand)
    for s, p in enumerate(hand.players):
        claimed = set(p.claimed_discards)  # those lie in the claimer's meld: counted there
        tiles.extend(t for i, t in enumerate(p.discards) if i not in claimed)
        for m in p.melds:
            if s == seat or m.kind != KONG_CONCEALED:
                tiles.extend(m.tiles)
    tiles.extend(hand.wall.face_up_tiles())
    for t in tiles:
        if t < NUM_KINDS:
            seen[t] += 1
    return seen


class GreedyBot:
    """Wins when it can, claims only to lower its shanten, discards to keep shanten lowest.

    Ties between equally good discards go to the tile that connects least with
    the rest of the hand (pairs and suited neighbours), never a wild while
    another choice is as good; the last ties are broken by ``rng``.
    """

    def __init__(self) -> None:
        self._memo: dict[tuple[bytes, int], int] = {}

    def choose(self, hand: Hand, seat: int, rng: random.Random, legal: Sequence[Action] | None = None) -> Action:
        acts = legal if legal is not None else hand.legal_actions(seat)
        if not acts:
            raise ValueError(f"seat {seat} has no legal action to choose from")
        if hand.variant.key == Zhangzhou.key:
            you = self._you(hand, seat, acts)
            if you is not None:
                return you
        for a in acts:
            # Every win is taken: a discard, a self-draw, 三金倒 and 抢杠胡 (the claim window
            # an added kong opens offers it as a plain WIN) alike.
            if a.kind == WIN:
                return a
        for a in acts:
            # 抢金 is a win too (K 2, as a self-draw), asked once before play: take it.
            if a.kind == ROB_GOLD:
                return a
        wilds = hand.wilds()
        counts, n_wilds = split_counts(hand.players[seat].hand, wilds)
        discards: list[Action] = []
        claims: list[Action] = []
        kongs: list[Action] = []
        readies: list[Action] = []
        guesses: list[Action] = []
        fallback: Action | None = None
        for a in acts:
            if a.kind == DISCARD:
                discards.append(a)
            elif a.kind == KONG:
                kongs.append(a)
            elif a.kind in (CHOW, PUNG):
                claims.append(a)
            elif a.kind == READY:
                readies.append(a)
            elif a.kind == ROB_KONG:
                guesses.append(a)
            elif a.kind == PASS:
                fallback = a
        if guesses:
            guess = self._guess_concealed_kong(hand, seat, guesses)
            if guess is not None:
                return guess
        if discards:
            discard, after = self._best_discard(discards, counts, n_wilds, wilds, rng)
            kong = self._own_kong(kongs, counts, n_wilds, wilds, discard, after)
            if kong is not None:
                return kong
            ready = self._ready(readies, counts, n_wilds, wilds, discard, after)
            return ready if ready is not None else discard
        # A claim window: take the claim that lowers shanten most, else pass.
        tile = hand.window.tile if hand.window is not None else None
        best = self._best_claim(claims + kongs, counts, n_wilds, wilds, tile)
        if best is not None:
            return best
        if fallback is not None:
            return fallback
        # Only variant verbs nobody taught the bot are left: any legal one will do.
        return acts[rng.randrange(len(acts))]

    # ------------------------------------------------------------ rule options
    @staticmethod
    def _you(hand: Hand, seat: int, acts: Sequence[Action]) -> Action | None:
        """漳州 游金: the discard that enters 单游 / 双游 instead of a smaller win, or a pass.

        Five melds, the 金 and one ordinary tile win now as a plain 自摸 (K 2).  Throwing the
        ordinary tile instead leaves five melds and a lone 金, which any ordinary draw
        completes as 单游 (K 4); throwing a 金 to get there (the 金 drawn in 单游, or one of a
        金 pair) is 双游 (K 8), and a 金 drawn in 双游 is 三游 (K 16, the engine's own).  Since
        the next own draw then wins almost surely, the only risks are another player's win
        in the round between and the wall running out, so the bot enters 游 whenever more
        than YOU_MIN_LIVE tiles are left.  It makes the entering discard itself, so it
        never counts on the shape alone to be read as 游.

        In 游 (the public YOU flag set by that discard) a plain discard win (K 1) is passed
        for the same reason, and so is every chow or pung; 抢杠胡 is still taken (a WIN
        offered on an added kong).
        """
        p = hand.players[seat]
        if zhangzhou_live(hand) <= YOU_MIN_LIVE:
            return None
        level = int(p.flags.get(YOU, 0))
        gold: Tile = zhangzhou_state(hand).gold
        if hand.phase == CLAIM:
            w = hand.window
            pass_ = Action(seat, PASS)
            if not level or w is None or w.kind != ON_DISCARD or pass_ not in acts:
                return None
            # A chow or pung would only break the lone 金 up (once a passed win has barred
            # discard wins, 先弃后和, the shanten count takes them for progress); a kong that
            # keeps the shape is a free replacement draw, which wins at once.
            counts = list(p.counts)
            for a in acts:
                if a.kind == KONG and a.tile is not None:
                    counts[a.tile] -= 3
                    keeps = zhangzhou_hands.you_shape(counts, gold)
                    counts[a.tile] += 3
                    if keeps:
                        return a
            return pass_
        if Action(seat, WIN) not in acts:
            return None  # five melds, a 金 and any tile always win: no 游 chance without a win
        if level and p.drawn is not None and p.drawn != gold:
            return None  # the win on this draw is the 游金 itself: take it
        counts = list(p.counts)
        enter: Action | None = None
        for a in acts:
            t = a.tile
            if a.kind != DISCARD or t is None:
                continue
            counts[t] -= 1
            shaped = zhangzhou_hands.you_shape(counts, gold)
            counts[t] += 1
            if shaped:
                if t == gold:
                    return a  # 双游 beats 单游
                enter = enter or a
        return enter

    @staticmethod
    def _guess_concealed_kong(hand: Hand, seat: int, guesses: list[Action]) -> Action | None:
        """漳州 抢暗杠: a guess only when it would win and is a good bet, else ``None`` (pass).

        The guessed kind must complete the bot's hand (a right guess that does not is 诈胡
        all the same).  The kind of a concealed kong is one of which the seat sees no copy
        (all four are in the kong); with K concealed kongs among the others and C such kinds,
        each of them is a kong's with chance K / C.  The bot guesses only at GUESS_MIN_CHANCE
        or better, and never in 游, where its next draw wins a bigger hand anyway.
        """
        p = hand.players[seat]
        if p.flags.get(YOU):
            return None
        kongs = sum(1 for s in range(4) if s != seat for m in hand.players[s].melds if m.kind == KONG_CONCEALED)
        seen = seen_counts(hand, seat)
        unseen = [a for a in guesses if a.tile is not None and not seen[a.tile]]
        num, den = GUESS_MIN_CHANCE
        if not unseen or kongs * den < num * len(unseen):
            return None
        gold: Tile = zhangzhou_state(hand).gold
        counts = list(p.counts)
        for a in unseen:
            assert a.tile is not None
            counts[a.tile] += 1
            wins = zhangzhou_hands.is_win(counts, gold)
            counts[a.tile] -= 1
            if wins:
                return a
        return None

    def _ready(
        self,
        readies: list[Action],
        counts: list[int],
        n_wilds: int,
        wilds: frozenset[Tile],
        discard: Action,
        after_discard: int | None,
    ) -> Action | None:
        """东北 报听 with a discard as good as the best plain one, else ``None``.

        报听 adds 1 番 to the player's win and, as a loser, 1 penalty 番 to what they pay;
        it costs the right to chow, pung or change the hand.  This bot never improves a
        ready hand's wait anyway (shanten cannot tell waits apart) and a chow or pung cannot
        lower shanten 0 short of a win, so the lock costs it nothing it would do; and a
        ready hand wins more often than any one of the three others, whose wins it would pay
        only a share of, so the doubling is worth more than it risks.  "As good": the
        declaration's discard leaves a shanten no higher than the best plain discard's (the
        rule set only offers it on a ready hand, which may be a 七小对 the shanten here,
        standard shapes only, does not see: then the plain discard is kept).
        """
        if not readies:
            return None
        if after_discard is None:
            after_discard = self._after(discard, counts, n_wilds, wilds)
        best: tuple[int, int, Action] | None = None
        for a in readies:
            t = a.tile
            assert t is not None
            if t == discard.tile:
                return a
            s = self._after(a, counts, n_wilds, wilds)
            if s <= after_discard:
                worth = 1000 if t in wilds else connectivity(counts, t)
                if best is None or (s, worth) < best[:2]:
                    best = (s, worth, a)
        return best[2] if best is not None else None

    def _after(self, discard: Action, counts: list[int], n_wilds: int, wilds: frozenset[Tile]) -> int:
        """The shanten left after ``discard``."""
        t = discard.tile
        assert t is not None
        if t in wilds:
            return self._shanten(counts, n_wilds - 1)
        counts[t] -= 1
        s = self._shanten(counts, n_wilds)
        counts[t] += 1
        return s

    # ------------------------------------------------------------ own turn
    def _best_discard(
        self,
        discards: list[Action],
        counts: list[int],
        n_wilds: int,
        wilds: frozenset[Tile],
        rng: random.Random,
    ) -> tuple[Action, int | None]:
        """The discard with the lowest shanten after it, and that shanten when it was computed.

        The shanten after the chosen discard is only needed to judge a kong, so
        it is ``None`` when the choice was made without computing it.
        """
        # An isolated tile (no copy, no suited neighbour within two ranks) can
        # only ever fill a meld or pair slot on its own, and any other spare
        # tile could fill that slot as well: discarding it never raises the
        # shanten above the best possible.  Most discards are such tiles, and
        # they need no shanten evaluation at all.  Honours go first, then
        # terminals (fewest ways to grow), then the rest; ties by rng.
        # (Wild kinds are zeroed in ``counts``, so they are never "isolated".)
        loose: list[Action] = []
        order = 3
        for a in discards:
            t = a.tile
            assert t is not None
            if counts[t] != 1:
                continue
            lo, hi = _SPAN[t]
            if hi - lo > 1 and sum(counts[lo:hi]) != 1:
                continue
            o = _LOOSE_ORDER[t]
            if o < order:
                order, loose = o, [a]
            elif o == order:
                loose.append(a)
        if loose:
            return (loose[rng.randrange(len(loose))] if len(loose) > 1 else loose[0]), None
        # Otherwise order by how little each tile is worth to the hand (wilds
        # last, they fill any gap); the random key makes equal tiles' order
        # depend on rng only.
        ranked: list[tuple[int, float, Action]] = []
        for a in discards:
            assert a.tile is not None
            worth = 1000 if a.tile in wilds else connectivity(counts, a.tile)
            ranked.append((worth, rng.random(), a))
        ranked.sort(key=lambda r: (r[0], r[1]))
        # The shanten of the whole hand (one tile more than after a discard) is
        # a lower bound for every discard: the first tile in keep-order that
        # reaches it is the answer, usually after one or two evaluations.
        floor = self._shanten(counts, n_wilds)
        best: tuple[int, Action] | None = None
        for _, _, a in ranked:
            t = a.tile
            assert t is not None
            if t in wilds:
                s = self._shanten(counts, n_wilds - 1)
            else:
                counts[t] -= 1
                s = self._shanten(counts, n_wilds)
                counts[t] += 1
            if best is None or s < best[0]:
                best = (s, a)
                if s <= floor:
                    break
        assert best is not None
        return best[1], best[0]

    def _own_kong(
        self,
        kongs: list[Action],
        counts: list[int],
        n_wilds: int,
        wilds: frozenset[Tile],
        discard: Action,
        after_discard: int | None,
    ) -> Action | None:
        """A kong whose remaining hand is no worse than the best plain discard.

        The four tiles are a complete meld either way, so a kong seldom changes
        the shanten itself; what it adds is a replacement draw, a free step
        towards a win.  So "no worse" is enough here.
        """
        if not kongs:
            return None
        if after_discard is None:
            t = discard.tile
            assert t is not None
            counts[t] -= 1
            after_discard = self._shanten(counts, n_wilds)
            counts[t] += 1
        for a in kongs:
            t = a.tile
            assert t is not None
            if t in wilds:
                continue  # where a rule set allows it at all, four jokers are worth more in hand
            held = counts[t]
            counts[t] = 0  # a concealed kong takes all four; an added kong the one in hand
            s = self._shanten(counts, n_wilds)
            counts[t] = held
            if s <= after_discard:
                return a
        return None

    def _shanten(self, counts: list[int], n_wilds: int) -> int:
        """``shapes.shanten``, memoised: a seat asks about the same hand on its turn and in windows."""
        key = (bytes(counts), n_wilds)
        s = self._memo.get(key)
        if s is None:
            if len(self._memo) >= MEMO_LIMIT:
                self._memo.clear()
            s = self._memo[key] = shapes.shanten(counts, n_wilds)
        return s

    # --------------------------------------------------------------- claims
    def _best_claim(
        self,
        claims: list[Action],
        counts: list[int],
        n_wilds: int,
        wilds: frozenset[Tile],
        tile: Tile | None,
    ) -> Action | None:
        # Claiming a discarded wild would use it at face value: under 财神 rules a
        # chow of one makes the player 相公 (barred from winning).  Never worth it.
        if not claims or tile is None or tile in wilds:
            return None
        now = self._shanten(counts, n_wilds)
        best: tuple[int, Action] | None = None
        for a in claims:
            used = claimed_from_hand(a.kind, a.tiles, tile)
            for t in used:
                counts[t] -= 1
            s = self._shanten(counts, n_wilds)
            for t in used:
                counts[t] += 1
            # A chow or pung must lower shanten; a kong (see _own_kong) need only keep it.
            good = s <= now if a.kind == KONG else s < now
            if good and (best is None or s < best[0]):
                best = (s, a)
        return best[1] if best is not None else None


def pre_hand_answer(
    bot: Bot, variant: str, question: PreHandQuestion, options: Mapping[str, Any], context: Mapping[str, Any], wind: int
) -> Any:
    """A bot's answer to a rule set's pre-hand question (飘, 买底/顶底): its own ``pre_hand``
    where it has one, else the question's default (what the platform answers for a bot)."""
    answer = getattr(bot, "pre_hand", None)
    return question.default if answer is None else answer(variant, question, wind)


# (imported here: the strong bot's module needs none of this one)
from games.engine.strong_bot import StrongBot  # noqa: E402

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "strong": StrongBot}


def make_bot(name: str) -> Bot:
    try:
        return BOTS[name]()
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(BOTS))}") from None
