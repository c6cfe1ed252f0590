"""The strong bot: plays every rule set from its seat's view alone, by rough expected value.

It reads nothing but ``Hand.view(seat)`` — the very dict the seat's client is sent — through
:class:`~games.engine.insight.seat_view.SeatView` and the view's public parts (ponds, open melds,
public flags, the table centre), so no decision can depend on a hidden tile: another's hand, a
concealed kong, the wall's order.  It uses no randomness: equal views give equal decisions.

**Offence.**  Each discard is worth the chance of winning with what it leaves
(:func:`win_chance`): the distance (向听) and the tile acceptance of the rule set's reading
(:mod:`games.engine.insight.acceptance`: wilds, stand-ins, 七小对 / 八对 included) against the
unseen tiles and the draws left.  A wild is kept.  Where a win's pay grows with the hand
(浙东得), a ready hand is worth its win as the scorer pays it, averaged over its waits
(:mod:`games.engine.insight.win_value`).

**Defence.**  Each discard also risks dealing into a win (:mod:`games.engine.insight.danger`:
each opponent's chance to be ready, 报听 above all, and the tile's chance to be its wait).  Two
or more from ready against an opponent at least :data:`FOLD_THREAT` likely ready, the bot folds:
it throws the safest tile (浙东得's 包牌 triples a tile's risk).  Otherwise the risk weighs
against the offence by the rule set's ``danger_scale`` times its cost of dealing in
(:data:`PROFILES`) plus the own chance thrown away.  Measured in duplicate duels against the
greedy bot, a weight of 0.4 pays where a discard win costs its discarder alone or most
(财神, 温州, 漳州); in 东北, where every loser pays and dealing in adds one 番, any weight cost
more wins than it saved deal-ins, and in 浙东得 the seeds disagreed: there it is 0
(docs/bots.md).

**Claims**: a chow or pung that brings the hand nearer is taken (where the rule set pays for
what it gives up — 浙东得's hand points, a concealed bonus — only when the hand is worth more
after it); a kong that keeps the distance is made (a free draw, 杠分 where it is paid), and in
温州 and 漳州, which pay a kong whatever becomes of the hand, one a step farther too, before a
chow or pung.  In 东北, where an unopened hand (立门) doubles both its win and its payment to
another's win, a claim that only opens the hand is taken when its win chance is too low for 立门
to pay.

**The rule sets' own choices**: every win, 抢金 and 三金倒 are taken; 游金 (单游 / 双游) is
entered while the wall leaves time for the round it bets on, by a chow or pung too, passing a
discard win for it, and so is 温州's 财神牛 (over a soft discard win); a 抢暗杠 guess is made
only on a good bet that would win; 报听 is declared when the ready hand's win chance makes
doubling both ways pay; 温州's 买底 / 顶底 are bet, 东北's 飘 is left at its default, no bet
(:meth:`pre_hand`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from games.engine.hand import Hand
from games.engine.insight.acceptance import (
    DiscardAcceptance,
    ReaderKey,
    discard_acceptance,
    part_acceptance,
    part_distance,
    reader_for,
)
from games.engine.insight.danger import Opponent, danger, threat
from games.engine.insight.reader import ShapeReader
from games.engine.insight.seat_view import SeatView
from games.engine.insight.win_value import dongbei_ready_multiplier, zhedong_ready_total
from games.engine.shapes import UNREACHABLE
from games.engine.state import (
    CHOW,
    DISCARD,
    KONG,
    KONG_CONCEALED,
    KONG_EXPOSED,
    MELD_CHOW,
    MELD_PUNG,
    PASS,
    PUNG,
    WIN,
    Action,
    Meld,
    claimed_from_hand,
    seat_index,
)
from games.engine.tiles import NUM_KINDS, RED, WHITE, Tile, parse_tile, parse_tiles, to_counts
from games.engine.variants.base import PreHandQuestion
from games.engine.variants.dongbei.scoring import READY
from games.engine.variants.wenzhou import hands as wenzhou_hands
from games.engine.variants.zhangzhou import hands as zhangzhou_hands
from games.engine.variants.zhangzhou.rules import ROB_GOLD, ROB_KONG, YOU
from games.engine.variants.zhedong_de import scoring as zhedong_scoring

# How a win is reached: the acceptance a hand typically has at each distance from ready (the
# steps after the first, whose acceptance is measured), and the waits of a typical ready hand.
TYPICAL_ACCEPTANCE: Final = {1: 16, 2: 28, 3: 38, 4: 46}
TYPICAL_WAITS: Final = 6
# Chances per round: one's own draw, plus the others' discards for a win (three of them, not all
# claimable) and for a step (a pung from anyone, a chow from one).
WIN_CHANCES_PER_ROUND: Final = 2.2
STEP_CHANCES_PER_ROUND: Final = 1.3
# Folding: at this distance from ready or more, against an opponent at least this likely ready;
# what is left of the offence then only breaks ties between equally safe tiles.
FOLD_DISTANCE: Final = 2
FOLD_THREAT: Final = 0.9
FOLD_OFFENCE: Final = 0.01
# A farther discard's chance stays below this share of the nearer ones' (see ``_scored``).
NEARER_MARGIN: Final = 0.98
# 浙东得: what one point of a loser's hand is worth, in plain wins (a loser settles each point
# with the other losers, about 1.2 points in all, where a plain win brings about 20).
DE_LOSER_WEIGHT: Final = 0.04
# Passing a discard win for a self-draw: the chance per round that another player wins first,
# and the margin the pass must clear.
OTHERS_WIN_PER_ROUND: Final = 0.5
SELF_DRAW_MARGIN: Final = 0.5
# A wild thrown away is worth this much less (it fills any gap; only 游金 throws one on purpose).
WILD_DISCARD_PENALTY: Final = 1.0
# 游金 (漳州): enter or stay only while more than this many drawable tiles are left (the greedy
# bot's margin: one round of the table and the replacement draws between).
YOU_MIN_LIVE: Final = 8
# 财神牛 (温州): claimed into, over a soft discard win, only while more than this many drawable
# tiles are left (one round of the table and the replacement draws between, as for 游金).
CAISHEN_PAIR_MIN_LIVE: Final = 8
# 抢暗杠 (漳州): guess only at this chance or better that the guessed kind is a concealed kong.
GUESS_MIN_CHANCE: Final = 2 / 3
# 报听 (东北) doubles the declarer's win (three payers) and its payment as a loser (one winner);
# declare while three times the win chance beats this share of the rest.
READY_LOSS_SHARE: Final = 0.6
# 东北 立门: what an unopened hand's doubled payment costs when another wins, in plain wins (one
# payer's share of three, times the chance that somebody else wins the hand).
CLOSED_LOSS: Final = 0.32
# A kong that pays whatever becomes of the hand is made even this many steps farther from ready
# than the best discard (a concealed kong) or than passing (one claimed from a discard, then
# also before a chow or pung that ranks higher).  温州 pays a kong at once: 暗杠 2 from each other
# player, 明杠 3 from its discarder (a soft win brings 3 in all).  漳州 adds a kong's points (暗杠
# 2, 明杠 1) to the seat's base: each loser pays (底分 + points) × K when the seat wins, and the
# other losers pay the points when another wins (every player on a draw).
CONCEALED_KONG_SLACK: Final = {"wenzhou": 1, "zhangzhou": 1}
CLAIMED_KONG_SLACK: Final = {"wenzhou": 1, "zhangzhou": 1}
# The pre-hand bets answered yes, per rule set.  温州's 买底 (the dealer) and 顶底 (a non-dealer)
# each add the dealer's base (底分) to every payment between the dealer and the bettor, whichever
# of the two wins (SPEC D2.3.4); they leave the hand, 财神分 and 杠分 as they are.  A bet pays a
# player who wins more of the hands between the pair than it loses: in duplicate duels against
# the greedy bot (seed 1 and 2, 2,000 deals) both bets together made +0.15 and +0.11 a hand.
PRE_HAND_BETS: Final[dict[str, frozenset[str]]] = {"wenzhou": frozenset({"buy_base", "counter_base"})}


@dataclass(frozen=True, slots=True)
class Profile:
    """What a rule set's settlement means for play (rough figures from greedy-bot hands)."""

    deal_in_cost: float  # what dealing in costs beyond one's share, in units of one's own win
    open_factor: float  # what a win is worth with a chow or pung laid down, against concealed
    self_draw_ratio: float = 1.0  # what a self-drawn win brings against the same win on a discard
    danger_scale: float = 0.0  # how much of the danger estimate weighs against the offence (not folding)


PROFILES: Final[dict[str, Profile]] = {
    # The discarder alone pays a discard win; a self-draw is paid by all three.
    "zhejiang_caishen": Profile(deal_in_cost=0.6, open_factor=1.0, self_draw_ratio=3.0, danger_scale=0.4),
    # All pay; 包牌 makes the discarder of a 生 dragon liable for all three.
    "zhedong_de": Profile(deal_in_cost=0.25, open_factor=0.85),
    # All pay by pairs; dealing in costs little more than another's win.
    "wenzhou": Profile(deal_in_cost=0.15, open_factor=1.0, self_draw_ratio=2.0, danger_scale=0.4),
    # All three pay; 承包 in the final round makes the discarder pay all three shares.
    "zhangzhou": Profile(deal_in_cost=0.3, open_factor=1.0, self_draw_ratio=2.0, danger_scale=0.4),
    # 点炮 doubles the discarder's payment.  立门 doubles a concealed hand's win and its payment
    # as a loser alike: no reason to stay concealed.
    "dongbei": Profile(deal_in_cost=0.4, open_factor=1.0, self_draw_ratio=1.5),
}
DEFAULT_PROFILE: Final = Profile(deal_in_cost=0.4, open_factor=1.0)


def win_chance(
    distance: int, acceptance: int, pool: int, rounds: float, win_rate: float = WIN_CHANCES_PER_ROUND
) -> float:
    """The chance to win within ``rounds`` rounds from a hand ``distance`` from ready whose first
    step (its win when ready) ``acceptance`` unseen tiles of ``pool`` would make.

    A small chain: each stage moves on with its per-round chance (the measured acceptance for
    the first, :data:`TYPICAL_ACCEPTANCE` / :data:`TYPICAL_WAITS` after), over whole rounds.
    """
    if distance < 0:
        return 1.0
    if pool <= 0 or rounds <= 0:
        return 0.0
    rates: list[float] = []
    for stage in range(distance + 1):
        left = distance - stage  # the distance of the hand at this stage
        tiles = acceptance if stage == 0 else _typical(left)
        per = win_rate if left == 0 else STEP_CHANCES_PER_ROUND
        rates.append(min(0.95, per * tiles / pool))
    probs = [1.0] + [0.0] * len(rates)  # probs[i]: at stage i; the last: won
    whole = int(rounds)
    for r in range(whole + (1 if rounds > whole else 0)):
        weight = 1.0 if r < whole else rounds - whole
        for i in range(len(rates) - 1, -1, -1):
            moved = probs[i] * rates[i] * weight
            probs[i] -= moved
            probs[i + 1] += moved
    return probs[-1]


def _typical(distance: int) -> int:
    """The acceptance a hand ``distance`` from ready typically has (its waits when ready)."""
    return TYPICAL_WAITS if distance <= 0 else TYPICAL_ACCEPTANCE.get(distance, 50)


@dataclass(frozen=True, slots=True)
class Table:
    """One decision's reading of the seat's view."""

    view: SeatView
    raw: Mapping[str, Any]
    key: ReaderKey
    reader: ShapeReader
    counts: list[int]  # the concealed hand, 34 kinds (flowers left out)
    wilds: frozenset[Tile]
    opponents: tuple[Opponent, ...]
    pool: int  # tiles the seat has not seen
    rounds: float  # own draws left (about)
    profile: Profile
    closed: bool  # nothing laid down but concealed kongs
    melds: tuple[Meld, ...]  # the seat's own melds
    final_round: bool

    @property
    def variant(self) -> str:
        return self.view.variant


def read_table(raw: Mapping[str, Any], declared: Mapping[int, Sequence[int]] | None = None) -> Table | None:
    """The decision's reading of ``raw``; ``declared``: for an opponent the seat saw declare
    ready (报听) earlier in the hand, the pond sizes it saw then (every tile thrown since that
    the declarer did not win on is not its wait)."""
    view = SeatView.from_view(raw)
    if view is None:
        return None
    key, reader = reader_for(view.variant, view.table)
    table = view.table
    wilds = frozenset(parse_tiles(str(table.get("wilds") or "")))
    ponds = [parse_tiles(p["discards"]) for p in raw["players"]]

    def _since(sizes: Sequence[int] | None) -> frozenset[Tile]:
        if sizes is None:
            return frozenset()
        return frozenset(t for pond, n in zip(ponds, sizes, strict=True) for t in pond[n:])

    opponents = []
    for p in raw["players"]:
        s = seat_index(p["seat"])
        if s == view.seat:
            continue
        flags = p.get("flags") or {}
        opponents.append(
            Opponent(
                seat=s,
                discards=tuple(parse_tiles(p["discards"])),
                open_melds=sum(1 for m in p["melds"] if m.get("kind") != KONG_CONCEALED),
                declared_ready=bool(flags.get(READY)),
                passed=_passed(s, view.seat, ponds),
                safe=_since(declared.get(s)) if declared else frozenset(),
                you=int(flags.get(YOU, 0) or 0),
            )
        )
    me = raw["players"][view.seat]
    drawable = table.get("live_left", table.get("drawable"))
    if drawable is None:
        drawable = max(0, int(raw.get("wall_left") or 0) - 14)
    return Table(
        view=view,
        raw=raw,
        key=key,
        reader=reader,
        counts=to_counts(t for t in view.hand if t < NUM_KINDS),
        wilds=wilds,
        opponents=tuple(opponents),
        pool=sum(max(0, 4 - v) for v in view.visible),
        rounds=int(drawable) / 4,
        profile=PROFILES.get(view.variant, DEFAULT_PROFILE),
        closed=all(m.get("kind") == KONG_CONCEALED for m in me["melds"]),
        melds=tuple(Meld.from_json(m) for m in me["melds"]),
        final_round=bool(table.get("final_round")),
    )


def _passed(seat: int, me: int, ponds: Sequence[Sequence[Tile]]) -> frozenset[Tile]:
    """The last discards of the seats between ``seat`` and ``me`` in turn order: thrown after
    ``seat``'s own last discard when play went round without a claim (a claim skipping seats
    makes this a guess, which the danger estimate only weighs)."""
    out = set()
    s = (seat + 1) % 4
    while s != me:
        if ponds[s]:
            out.add(ponds[s][-1])
        s = (s + 1) % 4
    return frozenset(out)


class StrongBot:
    """See the module docstring.  ``choose`` reads ``hand.view(seat)`` and nothing else."""

    name = "strong"

    def __init__(self) -> None:
        # The hand (its public seed hash) and, per opponent seen declared ready in it, the pond
        # sizes at the first sight: what a player at the table remembers.
        self._hand: object = None
        self._declared: dict[int, tuple[int, ...]] = {}

    def choose(self, hand: Hand, seat: int, rng: random.Random, legal: Sequence[Action] | None = None) -> Action:
        raw = hand.view(seat)
        acts = list(legal) if legal is not None else [Action.from_json(a) for a in raw["legal_actions"]]
        if not acts:
            raise ValueError(f"seat {seat} has no legal action to choose from")
        return self.decide(raw, acts)

    def pre_hand(self, variant: str, question: PreHandQuestion, wind: int) -> Any:
        """A pre-hand question's answer.  温州's 买底 / 顶底 are bet (:data:`PRE_HAND_BETS`): they
        double the stakes between the dealer and the bettor, which pays against players who win
        fewer of those hands.  东北's 飘 is left at its default, no bet: it raises the stakes with
        all three at once, and against players as strong as itself a bet has no edge."""
        if question.key in PRE_HAND_BETS.get(variant, ()) and True in question.choices:
            return True
        return question.default

    # ------------------------------------------------------------------ decisions
    def decide(self, raw: Mapping[str, Any], acts: Sequence[Action]) -> Action:
        """One of ``acts`` (the seat's legal actions in the view ``raw``)."""
        self._remember(raw)
        t = read_table(raw, self._declared)
        by_kind: dict[str, list[Action]] = {}
        for a in acts:
            by_kind.setdefault(a.kind, []).append(a)
        if t is None:
            return by_kind.get(PASS, list(acts))[0]
        if t.variant == "zhangzhou":
            you = self._you(t, acts)
            if you is not None:
                return you
        if t.variant == "wenzhou":
            niu = self._caishen_pair(t, acts)
            if niu is not None:
                return niu
        if WIN in by_kind and PASS in by_kind and self._wait_for_self_draw(t):
            return by_kind[PASS][0]
        for kind in (WIN, ROB_GOLD):
            if kind in by_kind:
                return by_kind[kind][0]
        if ROB_KONG in by_kind:
            guess = self._guess(t, by_kind[ROB_KONG])
            if guess is not None:
                return guess
        if DISCARD in by_kind:
            return self._own_turn(t, by_kind)
        if t.view.window_tile is not None:
            claim = self._claim(t, [a for a in acts if a.kind in (CHOW, PUNG, KONG)])
            if claim is not None:
                return claim
        if PASS in by_kind:
            return by_kind[PASS][0]
        return sorted(acts, key=str)[0]

    def _remember(self, raw: Mapping[str, Any]) -> None:
        """Note the opponents newly seen declared ready, with the ponds as they are now."""
        hand = (raw.get("seed_hash"), raw.get("seat"))
        if hand != self._hand:
            self._hand, self._declared = hand, {}
        sizes = tuple(len(parse_tiles(p["discards"])) for p in raw["players"])
        for p in raw["players"]:
            s = seat_index(p["seat"])
            if (p.get("flags") or {}).get(READY) and s not in self._declared:
                self._declared[s] = sizes

    @staticmethod
    def _wait_for_self_draw(t: Table) -> bool:
        """Pass a win on a discard to draw for a self-drawn one, where the rule set pays a
        self-draw ``self_draw_ratio`` times as much and the next own draw wins often enough:
        with ``a`` the chance that it wins and :data:`OTHERS_WIN_PER_ROUND` that someone else
        wins first, passing is worth at least ``ratio · a + (1 - a)(1 - h)`` plain wins (a later
        discard may still be won on), taking it one."""
        window = t.raw.get("window")
        if t.profile.self_draw_ratio <= 1 or window is None or window.get("on") != "discard" or t.rounds < 2:
            return False
        now = part_acceptance(t.key, t.reader, t.counts, t.view.n_melds, t.view.visible)
        if now.distance != 0 or t.pool <= 0:
            return False
        a = min(1.0, now.unseen / t.pool)
        h = OTHERS_WIN_PER_ROUND
        return t.profile.self_draw_ratio * a + (1 - a) * (1 - h) > 1 + SELF_DRAW_MARGIN

    # ------------------------------------------------------------------ own turn
    def _scored(
        self, t: Table, counts: list[int], n_melds: int, kinds: Sequence[Tile], laid: Sequence[Meld] = ()
    ) -> list[tuple[float, DiscardAcceptance]]:
        """Each discard of ``kinds`` from ``counts`` with its gain less its expected loss, best
        first (``laid``: a meld the claim being weighed would lay down)."""
        ranked = self._ranked(t, counts, n_melds, kinds)
        if not ranked:
            return []
        win_rate = self._win_rate(t)
        # ``ranked`` is by distance, then acceptance.  A farther hand is never taken for the
        # faster one however many tiles it accepts (its later steps accept fewer than the
        # chain's typical figures say): each chance is capped below the nearer hands'.
        chances: list[float] = []
        cap = 1.0
        for i, a in enumerate(ranked):
            tiles = a.unseen if a.tiles else _typical(a.distance)
            p = min(win_chance(a.distance, tiles, t.pool, t.rounds, win_rate), cap)
            chances.append(p)
            if i + 1 < len(ranked) and ranked[i + 1].distance > a.distance:
                cap = min(cap, p) * NEARER_MARGIN
        at_stake = max(chances)  # what the hand throws away when it deals in
        cost = t.profile.deal_in_cost * (3 if t.final_round and t.variant == "zhangzhou" else 1)
        has_wilds = bool(t.wilds) or t.variant in ("zhangzhou", "zhedong_de", "wenzhou")
        # Fold: an opponent is most likely ready and this hand is far from it.  Then the safest
        # tile goes, whatever it does to the hand; otherwise the danger only weighs lightly
        # against the offence (the estimate cannot tell who is ready well enough for more).
        fold = ranked[0].distance >= FOLD_DISTANCE and any(threat(o) >= FOLD_THREAT for o in t.opponents)
        out: list[tuple[float, DiscardAcceptance]] = []
        for a, p in zip(ranked, chances, strict=True):
            value = self._value(t, counts, a.tile, p, laid) - (WILD_DISCARD_PENALTY if a.tile in t.wilds else 0.0)
            unseen = max(0, 4 - t.view.visible[a.tile])
            risk = danger(a.tile, t.opponents, unseen, t.wilds, has_wilds)
            liable = 3.0 if self._liable(t, a) else 1.0
            if fold:
                score = value * FOLD_OFFENCE - risk * liable
            else:
                score = value - t.profile.danger_scale * risk * (cost * liable + at_stake)
            out.append((score, a))
        out.sort(key=lambda x: (-x[0], x[1].rank()))
        return out

    @staticmethod
    def _value(t: Table, counts: list[int], thrown: Tile, p: float, laid: Sequence[Meld]) -> float:
        """The worth of a hand with win chance ``p`` after throwing ``thrown``, in units of a
        plain win.  浙东得 pays by the hand's points, winner and losers alike: a win is worth
        its (和 + 10) · 2^番 against the plain 10, and a loser's points settle against the
        other losers' (SPEC D1.3)."""
        if t.variant not in ("zhedong_de", "dongbei"):
            return p
        part = list(counts)
        part[thrown] -= 1
        return StrongBot._part_value(t, part, p, laid)

    @staticmethod
    def _part_value(t: Table, part: Sequence[int], p: float, laid: Sequence[Meld]) -> float:
        """:meth:`_value` of a 3n+1 concealed ``part``.  东北: an unopened hand (立门) adds one
        番 to its win from all three and to its own payment when another wins: worth
        ``2p - CLOSED_LOSS · (1 - p)`` plain wins against an open hand's ``p``, and a ready hand's
        win its 2^番 (:meth:`_ready_multiplier`).  浙东得: see :meth:`_value`."""
        if t.variant == "dongbei":
            closed = t.closed and not laid
            loss = CLOSED_LOSS * (1 - p) if closed else 0.0
            won = StrongBot._ready_multiplier(t, part, [*t.melds, *laid])
            if won is None:
                won = 2.0 if closed else 1.0
            return won * p - loss
        if t.variant != "zhedong_de":
            return p
        melds = [*t.melds, *laid]
        own_wind = 27 + t.view.seat
        concealed = [k for k in range(NUM_KINDS) for _ in range(part[k])]
        total = zhedong_scoring.score_non_winner(concealed, melds, own_wind).total
        won = StrongBot._ready_total(t, part, melds, own_wind)
        if won is None:
            won = 10 + total
        return p * won / 10 + (1 - p) * DE_LOSER_WEIGHT * total

    @staticmethod
    def _ready_multiplier(t: Table, part: Sequence[int], melds: Sequence[Meld]) -> float | None:
        """东北: a ready part's win as 2^番 of the hand itself (立门 included), averaged over its
        waits; None when the part is not ready.  Against the plain 立门 doubling, paired in duels:
        +0.13 ± 0.16 points per hand over 1,000 deals of seed 1, +0.16 ± 0.16 over 2,000 of seed 2
        (docs/bots.md)."""
        ready = part_acceptance(t.key, t.reader, part, len(melds), t.view.visible)
        if ready.distance != 0:
            return None
        me = t.raw["players"][t.view.seat]
        declared = bool((me.get("flags") or {}).get(READY))
        return dongbei_ready_multiplier(part, melds, ready.tiles, declared, t.raw.get("options") or {})

    @staticmethod
    def _ready_total(t: Table, part: Sequence[int], melds: Sequence[Meld], own_wind: Tile) -> float | None:
        """浙东得: a ready part's win as the scorer pays it, averaged over its waits (wait bonuses,
        番 of the triplets its waits complete, the 得 read where they score most); None when the
        part is not ready.  Choosing between ready hands by it, not by the loser's points they
        hold, measured +0.76 ± 0.59 points per hand paired on 2,000 duel deals (docs/bots.md)."""
        ready = part_acceptance(t.key, t.reader, part, len(melds), t.view.visible)
        if ready.distance != 0:
            return None
        de = parse_tile(str(t.view.table["de"]))
        return zhedong_ready_total(part, melds, ready.tiles, de, own_wind, t.raw.get("options") or {})

    @staticmethod
    def _ranked(t: Table, counts: list[int], n_melds: int, kinds: Sequence[Tile]) -> list[DiscardAcceptance]:
        """The discards of ``kinds`` ranked as :func:`discard_acceptance` ranks them, the
        acceptance counted only for those at the nearest distance: a farther one is chosen only
        to fold, for its safety, and the typical acceptance of its distance stands in for its
        own (the full count per discard is most of a decision's cost)."""
        part = list(counts)
        near: list[Tile] = []
        far: list[tuple[Tile, int]] = []
        best = UNREACHABLE
        for k in dict.fromkeys(kinds):
            if k >= NUM_KINDS or not part[k]:
                continue
            part[k] -= 1
            d = part_distance(t.key, t.reader, part, n_melds)
            part[k] += 1
            far.append((k, d))
            best = min(best, d)
        near = [k for k, d in far if d == best]
        out = list(discard_acceptance(t.key, t.reader, counts, n_melds, t.view.visible, near))
        rest = sorted((d, k) for k, d in far if d != best)
        out.extend(DiscardAcceptance(k, d, ()) for d, k in rest)
        return out

    @staticmethod
    def _win_rate(t: Table) -> float:
        # 漳州: with two golds no win on another's tile, only one's own draws.
        if t.variant == "zhangzhou":
            gold = parse_tile(str(t.view.table["gold"]))
            if t.counts[gold] >= 2:
                return 1.0
        return WIN_CHANCES_PER_ROUND

    @staticmethod
    def _liable(t: Table, a: DiscardAcceptance) -> bool:
        """浙东得 包牌: a 生 dragon (no copy seen but one's own) thrown while 2 or more from ready
        makes its discarder pay for all three losers if it is won on."""
        if t.variant != "zhedong_de" or not RED <= a.tile <= WHITE or a.distance < 2:
            return False
        return t.view.visible[a.tile] == t.counts[a.tile]

    def _own_turn(self, t: Table, by_kind: Mapping[str, list[Action]]) -> Action:
        discards = by_kind[DISCARD]
        kinds = [a.tile for a in discards if a.tile is not None]
        scored = self._scored(t, t.counts, t.view.n_melds, kinds)
        if not scored:
            return discards[0]
        best = scored[0][1]
        chosen = next(a for a in discards if a.tile == best.tile)
        kong = self._own_kong(t, by_kind.get(KONG, []), best)
        if kong is not None:
            return kong
        ready = self._declare(t, by_kind.get(READY, []), best)
        return ready if ready is not None else chosen

    def _own_kong(self, t: Table, kongs: Sequence[Action], best: DiscardAcceptance) -> Action | None:
        """A concealed or added kong that leaves the hand no farther from ready than the best
        discard: the four are a meld either way, and the kong adds a draw (and 杠分).  Where a
        concealed kong pays whatever becomes of the hand (温州, 漳州), one that leaves it a step
        farther is made too (:data:`CONCEALED_KONG_SLACK`)."""
        for a in kongs:
            k = a.tile
            if k is None or k in t.wilds:
                continue
            part = list(t.counts)
            part[k] = 0  # a concealed kong takes all four from the hand; an added one the last
            d = part_acceptance(t.key, t.reader, part, t.view.n_melds + 1, t.view.visible).distance
            slack = CONCEALED_KONG_SLACK.get(t.variant, 0) if t.counts[k] == 4 else 0
            if d <= best.distance + slack:
                return a
        return None

    def _declare(self, t: Table, readies: Sequence[Action], best: DiscardAcceptance) -> Action | None:
        """东北 报听 with the chosen discard, when the win chance of the ready hand makes doubling
        both its win (three payers) and its payment as a loser (one winner) pay."""
        match = next((a for a in readies if a.tile == best.tile), None)
        if match is None or best.distance != 0:
            return None
        p = win_chance(0, best.unseen, t.pool, t.rounds)
        return match if 3 * p > READY_LOSS_SHARE * (1 - p) else None

    # ------------------------------------------------------------------ claims
    def _claim(self, t: Table, offers: Sequence[Action]) -> Action | None:
        tile = t.view.window_tile
        if not offers or tile is None or tile in t.wilds:
            return None  # a discarded wild would count at face value (财神: 相公)
        n = t.view.n_melds
        now = part_acceptance(t.key, t.reader, t.counts, n, t.view.visible)
        win_rate = self._win_rate(t)
        p_now = self._part_value(t, t.counts, win_chance(now.distance, now.unseen, t.pool, t.rounds, win_rate), ())
        factor = t.profile.open_factor if t.closed else 1.0
        # 东北: opening an unopened hand sheds 立门's doubled payment, so there a chow or pung
        # that keeps the distance is weighed too.
        opens = t.closed and t.variant == "dongbei"
        best: tuple[float, Action] | None = None
        slack = CLAIMED_KONG_SLACK.get(t.variant, 0)
        paid: Action | None = None  # a kong within the slack that pays whatever the hand becomes
        for a in offers:
            part = list(t.counts)
            used = claimed_from_hand(a.kind, a.tiles, tile)
            for u in used:
                part[u] -= 1
            if min(part) < 0:
                continue
            if a.kind == KONG:
                after = part_acceptance(t.key, t.reader, part, n + 1, t.view.visible)
                if slack and after.distance <= now.distance + slack:
                    paid = a
                if after.distance > now.distance:
                    continue
                kong = Meld(KONG_EXPOSED, (tile,) * 4)
                p = win_chance(after.distance, after.unseen, t.pool, t.rounds, win_rate)
                score = self._part_value(t, part, p, (kong,)) * factor + 0.01
                nearer = True  # a kong is a meld either way and adds a draw (and 杠分)
            else:
                kinds = [k for k in range(NUM_KINDS) if part[k]]
                meld = Meld(MELD_CHOW if a.kind == CHOW else MELD_PUNG, tuple(sorted([*used, tile])))
                scored = self._scored(t, part, n + 1, kinds, (meld,))
                if (
                    not scored
                    or scored[0][1].distance > now.distance
                    or (scored[0][1].distance == now.distance and not opens)
                ):
                    continue
                score = scored[0][0] * factor
                nearer = scored[0][1].distance < now.distance
            # A claim that brings the hand nearer is taken as the greedy bot takes it, unless
            # the rule set pays for what it gives up (浙东得's hand points, a concealed bonus);
            # one that only opens the hand (东北) is taken when the open hand is worth more.
            weighed = factor < 1.0 or t.variant == "zhedong_de" or not nearer
            if (score > p_now or not weighed) and (best is None or score > best[0]):
                best = (score, a)
        if paid is not None and (best is None or best[1].kind != KONG):
            return paid
        return best[1] if best is not None else None

    # ------------------------------------------------------------------ 温州
    @staticmethod
    def _caishen_pair(t: Table, acts: Sequence[Action]) -> Action | None:
        """财神牛: five melds and a lone 财神 wait for any tile, won by self-draw only, a hard
        hand (×2).  Where a discard would win now only as a soft hand (×1: the 财神 stands in
        for a tile) and a chow or pung of it leaves five melds, the 财神 and one more tile, the
        claim is taken and that tile thrown: the next own draw wins at twice the points unless
        another player wins first.  Not on the dealer's first discard, which wins 地胡 (双翻).
        In duplicate duels against the greedy bot, which takes the win, 2,000 deals, paired:
        +0.021 ± 0.016 a hand on seed 1, +0.011 ± 0.017 on seed 2."""
        if not t.wilds or t.rounds * 4 <= CAISHEN_PAIR_MIN_LIVE:
            return None
        wild = min(t.wilds)
        seat = t.view.seat
        win = Action(seat, WIN) in acts
        tile = t.view.window_tile
        if tile is None:
            if win:
                return None
            # After a chow or pung (no win on offer): the discard that leaves 财神牛, if one does.
            into = _into_caishen_pair(list(t.counts), wild, [a.tile for a in acts if a.kind == DISCARD])
            return None if into is None else Action(seat, DISCARD, tile=into)
        window = t.raw.get("window") or {}
        if not win or window.get("on") != "discard":
            return None
        if sum(len(parse_tiles(p["discards"])) for p in t.raw["players"]) <= 1:
            return None  # the dealer's first discard: 地胡
        faces, wilds = wenzhou_hands.Faces(wild).counts(t.counts)
        if not wilds:
            return None
        natural = list(faces)
        natural[wild] += wilds  # every 财神 in its own place (归位): the win is hard then
        natural[wild if tile == WHITE else tile] += 1
        if wenzhou_hands.standard_any(natural, 0):
            return None
        for a in acts:
            part = _after_chow_or_pung(t.counts, a, tile)
            if part is not None and _into_caishen_pair(part, wild, range(NUM_KINDS)) is not None:
                return a
        return None

    # ------------------------------------------------------------------ 漳州
    @staticmethod
    def _you(t: Table, acts: Sequence[Action]) -> Action | None:
        """游金: the discard that enters 单游 / 双游 instead of a smaller win, or, in 游, a pass
        of a discard win (see ``games.engine.bots.GreedyBot._you``, the same bet).

        Outside 游, a chow or pung after which a discard leaves five melds and a lone 金 is
        claimed, a discard win on the same tile passed for it, and that discard is then made
        (:meth:`_claim_into_you`)."""
        table = t.view.table
        if int(table.get("live_left", 0)) <= YOU_MIN_LIVE:
            return None
        me = t.raw["players"][t.view.seat]
        level = int((me.get("flags") or {}).get(YOU, 0) or 0)
        gold = parse_tile(str(table["gold"]))
        seat = t.view.seat
        window = t.raw.get("window")
        if window is not None:
            if not level:
                return StrongBot._claim_into_you(t, acts, gold)
            pass_ = Action(seat, PASS)
            if window.get("on") != "discard" or pass_ not in acts:
                return None
            for a in acts:
                if a.kind == KONG and a.tile is not None:
                    counts = list(t.counts)
                    counts[a.tile] -= 3
                    if zhangzhou_hands.you_shape(counts, gold):
                        return a
            return pass_
        if Action(seat, WIN) not in acts:
            if level:
                return None
            # After a chow or pung (no win on offer): the discard that enters 游, if one does.
            into = _into_you(list(t.counts), gold, [a.tile for a in acts if a.kind == DISCARD])
            return None if into is None else Action(seat, DISCARD, tile=into)
        if level and t.view.drawn is not None and t.view.drawn != gold:
            return None  # the win on this draw is the 游金 itself
        enter: Action | None = None
        for a in acts:
            k = a.tile
            if a.kind != DISCARD or k is None:
                continue
            counts = list(t.counts)
            counts[k] -= 1
            if zhangzhou_hands.you_shape(counts, gold):
                if k == gold:
                    return a  # 双游 beats 单游
                enter = enter or a
        return enter

    @staticmethod
    def _claim_into_you(t: Table, acts: Sequence[Action], gold: Tile) -> Action | None:
        """A chow or pung of a discard after which a discard leaves five melds and a lone 金.
        漳州 enters 游 by any discard that leaves that shape, one after a claim included (SPEC
        D3.2; the 17 tiles before it were five melds and the pair 金 + the thrown tile), and
        then the next own draw wins whatever it is, as 单游 (K 4; 双游, K 8, when the thrown
        tile is a 金).  So the claim is taken even where the same tile would win now as a plain
        discard win (K 1): the greedy bot takes that win.  In duplicate duels against it, 2,000
        deals, paired: +0.071 ± 0.029 a hand on seed 1, +0.103 ± 0.035 on seed 2."""
        tile = t.view.window_tile
        window = t.raw.get("window") or {}
        if tile is None or tile == gold or window.get("on") != "discard":
            return None
        for a in acts:
            part = _after_chow_or_pung(t.counts, a, tile)
            if part is not None and _into_you(part, gold, range(NUM_KINDS)) is not None:
                return a
        return None

    @staticmethod
    def _guess(t: Table, guesses: Sequence[Action]) -> Action | None:
        """抢暗杠: guess a kind the seat has seen no copy of (all four would be in the kong) that
        completes its hand, when the others' concealed kongs make the guess a good bet."""
        me = t.raw["players"][t.view.seat]
        if (me.get("flags") or {}).get(YOU):
            return None
        kongs = sum(
            1
            for p in t.raw["players"]
            if seat_index(p["seat"]) != t.view.seat
            for m in p["melds"]
            if m.get("kind") == KONG_CONCEALED
        )
        unseen = [a for a in guesses if a.tile is not None and not t.view.visible[a.tile]]
        if not unseen or kongs < GUESS_MIN_CHANCE * len(unseen):
            return None
        gold = parse_tile(str(t.view.table["gold"]))
        for a in unseen:
            assert a.tile is not None
            counts = list(t.counts)
            counts[a.tile] += 1
            if zhangzhou_hands.is_win(counts, gold):
                return a
        return None


def _into_you(counts: list[int], gold: Tile, kinds: Iterable[Tile | None]) -> Tile | None:
    """漳州: the kind of ``kinds`` whose discard from ``counts`` leaves five melds and a lone 金
    (游金's shape), a 金 first (双游 beats 单游); None if none does."""
    found: Tile | None = None
    for k in kinds:
        if k is None or not counts[k]:
            continue
        counts[k] -= 1
        shaped = zhangzhou_hands.you_shape(counts, gold)
        counts[k] += 1
        if shaped:
            if k == gold:
                return k
            found = k if found is None else found
    return found


def _into_caishen_pair(counts: list[int], wild: Tile, kinds: Iterable[Tile | None]) -> Tile | None:
    """温州: the kind of ``kinds`` (a 财神 is never thrown) whose discard from ``counts`` leaves
    melds only and a lone 财神 (财神牛); None if none does."""
    for k in kinds:
        if k is None or k == wild or not counts[k]:
            continue
        counts[k] -= 1
        faces, wilds = wenzhou_hands.Faces(wild).counts(counts)
        counts[k] += 1
        if wilds >= 1 and wenzhou_hands.melds_only(faces, wilds - 1):
            return k
    return None


def _after_chow_or_pung(counts: Sequence[int], claim: Action, tile: Tile) -> list[int] | None:
    """The concealed counts after ``claim`` (a chow or pung of the discarded ``tile``) takes its
    tiles from the hand; None for another kind of action or one the hand cannot make."""
    if claim.kind not in (CHOW, PUNG):
        return None
    part = list(counts)
    for u in claimed_from_hand(claim.kind, claim.tiles, tile):
        part[u] -= 1
    return part if min(part) >= 0 else None


__all__ = ["PROFILES", "StrongBot", "read_table", "win_chance"]
