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
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final, Protocol

from games.engine import shapes
from games.engine.state import CHOW, DISCARD, KONG, PASS, PUNG, WIN, Action
from games.engine.tiles import NUM_KINDS, Tile

if TYPE_CHECKING:
    from games.engine.hand import Hand

# Shanten answers a GreedyBot remembers; hands repeat within a hand far more than across hands.
MEMO_LIMIT = 20_000


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
        for a in acts:
            if a.kind == WIN:
                return a
        wilds = hand.wilds()
        counts, n_wilds = split_counts(hand.players[seat].hand, wilds)
        discards: list[Action] = []
        claims: list[Action] = []
        kongs: list[Action] = []
        fallback: Action | None = None
        for a in acts:
            if a.kind == DISCARD:
                discards.append(a)
            elif a.kind == KONG:
                kongs.append(a)
            elif a.kind in (CHOW, PUNG):
                claims.append(a)
            elif a.kind == PASS:
                fallback = a
        if discards:
            discard, after = self._best_discard(discards, counts, n_wilds, wilds, rng)
            kong = self._own_kong(kongs, counts, n_wilds, wilds, discard, after)
            return kong if kong is not None else discard
        # A claim window: take the claim that lowers shanten most, else pass.
        tile = hand.window.tile if hand.window is not None else None
        best = self._best_claim(claims + kongs, counts, n_wilds, wilds, tile)
        if best is not None:
            return best
        if fallback is not None:
            return fallback
        # Only variant verbs are left (none in the rule sets so far): any legal one will do.
        return acts[rng.randrange(len(acts))]

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
            used: list[Tile]
            if a.kind == CHOW:
                assert a.tiles is not None
                used = list(a.tiles)
                used.remove(tile)
            elif a.kind == PUNG:
                used = [tile, tile]
            else:
                used = [tile, tile, tile]
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


BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str) -> Bot:
    try:
        return BOTS[name]()
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(BOTS))}") from None
