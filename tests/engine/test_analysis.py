"""Replay analysis (games.engine.insight.analysis): rigged hands in tile notation, played through
the engine the way a table logs them (every answer to a claim window, passes included)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.engine import scenario
from games.engine.bots import make_bot
from games.engine.hand import CLAIM, Hand
from games.engine.insight.analysis import (
    FEWER_TILES,
    HIGHER_DISTANCE,
    PASSED_WIN,
    WORSENING_CLAIM,
    analyse,
)
from games.engine.simulate import play_hand
from games.engine.state import DISCARD, PASS, PUNG, WIN, Action, seat_index
from games.engine.tiles import parse_tile, parse_tiles
from games.engine.variants import all_variants, get_variant
from tests.engine.rig import fill_hands

V = "zhejiang_caishen"
FLIPPED = "C"  # the wild is F: nobody below holds one


class Log:
    """A hand being played, with the action list a replay would carry."""

    def __init__(self, hands: dict[str, str], wall: str = "", variant: str = V, flipped: str | None = FLIPPED) -> None:
        sc: dict[str, Any] = {"variant": variant, "hands": hands, "wall": wall}
        if flipped is not None:
            sc["flipped"] = flipped
        self.hand: Hand = scenario.build_hand(sc, open_empty_windows=True)
        self.initial = self.hand.to_json()
        self.actions: list[dict[str, Any]] = []

    def do(self, seat: str, kind: str, tile: str | None = None) -> Log:
        """``seat`` acts; a discard first closes an open claim window (the others pass)."""
        if kind == DISCARD:
            self.close()
        act = Action(seat_index(seat), kind, tile=parse_tile(tile) if tile else None)
        self.hand.apply(act)
        self.actions.append(act.to_json())
        return self

    def pass_questions(self) -> Log:
        """Every seat asked a question before the first discard (漳州's 抢金) passes."""
        while not any(a.kind == DISCARD for a in self.hand.legal_actions(0)):
            seat = next(s for s in range(4) if any(a.kind == PASS for a in self.hand.legal_actions(s)))
            self.do("ESWN"[seat], PASS)
        return self

    def close(self) -> None:
        """Every seat still asked by the open claim window passes (as the table logs it)."""
        while self.hand.phase == CLAIM and self.hand.window is not None:
            self.do("ESWN"[self.hand.window.waiting_on()[0]], PASS)

    def drawn_discard(self, seat: str) -> Log:
        """``seat`` discards the tile it just drew."""
        self.close()
        p = self.hand.players[seat_index(seat)]
        assert p.drawn is not None, seat
        return self.do(seat, DISCARD, _s(p.drawn))

    def analysis(self) -> Any:
        return analyse(self.initial, self.actions)


def _s(t: int) -> str:
    from games.engine.tiles import tile_str

    return tile_str(t)


# E: four sets and a pair short of one tile: 9s is the tile to throw (ready on 5p 8p), 7p breaks it.
READY_E = "123m 456m 789m 55p 67p 9s"
AVOID = "F 5p 7p 9s"


def test_a_discard_that_breaks_a_ready_hand_is_a_clear_mistake_with_the_ready_discard_best() -> None:
    log = Log(fill_hands({"E": READY_E}, avoid=AVOID, flipped=FLIPPED))
    log.do("E", DISCARD, "7p").close()
    j = log.analysis().judgements[0]
    assert (j.n, j.seat, j.decision) == (1, 0, "turn")
    assert j.before == 0 and j.after == 1
    assert j.clear_mistake and j.reason == HIGHER_DISTANCE
    assert j.best[0].action == {"seat": "E", "do": "discard", "tile": "9s"}
    assert j.best[0].distance == 0
    waits = {w["tile"]: w["unseen"] for w in j.best[0].to_json()["waits"]["tiles"]}
    assert waits == {"5p": 2, "8p": 4, "F": 4}  # E holds two 5p; F is the wild
    assert not j.chosen_is_best
    assert j.to_json()["chosen"]["unseen"] == j.chosen.gain > 0  # useful tiles, not ready


def test_the_ready_discard_is_not_a_mistake() -> None:
    log = Log(fill_hands({"E": READY_E}, avoid=AVOID, flipped=FLIPPED))
    log.do("E", DISCARD, "9s").close()
    j = log.analysis().judgements[0]
    assert not j.clear_mistake and j.reason is None
    assert j.before == 0 and j.after == 0 and j.chosen_is_best
    assert j.chosen.action["tile"] == "9s"
    assert j.chosen.waits is not None and j.chosen.gain == 10


# E is one from ready with 234m 77m 345p 789p and three loose tiles 6s E S: throwing a wind keeps
# 6s (4s-8s join it), throwing 6s keeps two lone winds: the same distance, far fewer tiles.
LOOSE_E = "234m 77m 345p 789p 6s E S"


def test_a_discard_at_the_best_distance_with_far_fewer_useful_tiles_is_a_clear_mistake() -> None:
    log = Log(fill_hands({"E": LOOSE_E}, avoid="F", flipped=FLIPPED))
    log.do("E", DISCARD, "6s").close()
    j = log.analysis().judgements[0]
    assert j.before == 1 and j.after == 1
    assert j.clear_mistake and j.reason == FEWER_TILES
    top = j.best[0]
    assert top.action["tile"] == "E" and top.distance == 1  # E and S tie; hand order puts E first
    assert [c.action["tile"] for c in j.best[:2]] == ["E", "S"]
    assert top.gain == 28 and j.chosen.gain == 12  # 12 <= 28 / 2 and 16 fewer
    good = Log(fill_hands({"E": LOOSE_E}, avoid="F", flipped=FLIPPED))
    good.do("E", DISCARD, "S").close()
    j = good.analysis().judgements[0]
    assert not j.clear_mistake and j.chosen_is_best


# S waits on 1p / 4p with 123s 456s 789s EE 23p; E throws 4p and S lets it go.
WAIT_S = "123s 456s 789s E E 2p 3p"
E_4P = "1m 3m 5m 7m 9m 4p 6p 8p S S W W N N"  # no chow, pung or win for anyone else


def test_passing_a_win_offered_is_a_clear_mistake_and_taking_it_is_not() -> None:
    hands = fill_hands({"E": E_4P, "S": WAIT_S}, avoid="F 4p", flipped=FLIPPED)
    passed = Log(hands).do("E", DISCARD, "4p").do("S", PASS)
    passed.close()
    j = next(j for j in passed.analysis().judgements if j.seat == 1)
    assert j.decision == "claim" and j.clear_mistake and j.reason == PASSED_WIN
    assert j.best[0].wins and j.best[0].action == {"seat": "S", "do": "win"}
    assert j.before == 0 and j.after == 0  # a pass keeps the hand as it is

    won = Log(hands).do("E", DISCARD, "4p").do("S", WIN)
    won.close()
    analysis = won.analysis()
    j = next(j for j in analysis.judgements if j.seat == 1)
    assert j.chosen.wins and not j.clear_mistake and j.chosen_is_best


def test_a_worsening_pung_is_a_clear_mistake() -> None:
    # S is ready on 9p (123s 456s 123p 345p 9p); punging E's 3p takes a 3p from each of its two
    # chows: after the best discard it is one from ready again.
    hands = fill_hands(
        {"E": "1m 3m 5m 7m 9m 3p 6p 8p S S W W N N", "S": "123s 456s 123p 345p 9p"},
        avoid="F 3p",
        flipped=FLIPPED,
    )
    log = Log(hands).do("E", DISCARD, "3p").do("S", PUNG)
    log.do("S", DISCARD, "9p")
    judged = [j for j in log.analysis().judgements if j.seat == 1]
    pung, discard = judged
    assert pung.decision == "claim" and pung.verdict == "worsens"
    assert pung.before == 0 and pung.after == 1
    assert pung.clear_mistake and pung.reason == WORSENING_CLAIM
    assert any(c.action["do"] == PASS for c in pung.best)  # passing kept it ready
    assert discard.decision == "turn" and not discard.clear_mistake


def test_a_pass_on_an_offer_is_a_decision_and_a_pass_with_nothing_to_claim_is_not() -> None:
    hands = fill_hands(
        {"E": "1m 3m 5m 7m 9m 3p 6p 8p S S W W N N", "S": "123s 456s 123p 345p 9p"},
        avoid="F 3p",
        flipped=FLIPPED,
    )
    log = Log(hands).do("E", DISCARD, "3p").do("S", PASS)
    log.close()  # W and N pass too, with nothing to claim
    judged = log.analysis().judgements
    assert [(j.seat, j.decision) for j in judged] == [(0, "turn"), (1, "claim")]
    passed = judged[1]
    assert passed.chosen.action == {"seat": "S", "do": "pass"} and not passed.clear_mistake
    assert passed.before == passed.after == 0  # still ready on 9p (and the wild)
    assert passed.chosen.waits is not None and passed.chosen.gain == 7
    # A claim that keeps it ready with more waits ranks above the pass; passing is never marked.
    assert any(c.action["do"] in ("chow", "pung") for c in passed.best)


def test_summary_counts_mistakes_and_turns_ready_before_the_end() -> None:
    # E throws 9s (ready on 5p 8p), then draws three harmless tiles and wins on the fourth: 8p.
    # S, W, N throw what they draw.  E draws wall[3], wall[7], wall[11], wall[15].
    draws = ["1s", "2s", "3s", "E", "4s", "5s", "6s", "S", "7s", "8s", "9s", "W", "1s", "2s", "3s", "8p"]
    hands = fill_hands({"E": READY_E}, avoid=AVOID, flipped=FLIPPED, wall=" ".join(draws))
    log = Log(hands, wall=" ".join(draws)).do("E", DISCARD, "9s")
    for _ in range(3):
        for seat in "SWN":
            log.drawn_discard(seat)
        log.drawn_discard("E")  # keeps the ready hand
    for seat in "SWN":
        log.drawn_discard(seat)
    log.close()
    log.do("E", WIN)  # its own turn: nothing to close
    analysis = log.analysis()
    east = analysis.summary[0]
    assert east.decisions == 5  # four discards and the win
    assert east.clear_mistakes == 0
    assert east.ready_turns == 4  # three discards and the self-drawn win after becoming ready
    assert analysis.summary[0].to_json() == {"seat": "E", "decisions": 5, "clear_mistakes": 0, "ready_turns": 4}


def test_a_seats_analysis_does_not_change_with_the_others_hidden_tiles() -> None:
    # The same public play (E throws 7p, S W N throw what they draw, E throws its draw), over two
    # deals alike in everything E sees: only W's and N's concealed tiles differ.
    wall = "1s 2s 3s E"
    base = {"E": READY_E, "S": "123456789m 12p 12s"}
    one = fill_hands({**base, "W": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 4p"}, avoid=AVOID, flipped=FLIPPED, wall=wall)
    two = fill_hands({**base, "W": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p S"}, avoid=AVOID, flipped=FLIPPED, wall=wall)
    assert one["N"] != two["N"] or one["W"] != two["W"]
    out = []
    for hands in (one, two):
        log = Log(hands, wall=wall).do("E", DISCARD, "7p")
        for seat in "SWN":
            log.drawn_discard(seat)
        log.drawn_discard("E")
        out.append([j.to_json() for j in log.analysis().judgements if j.seat == 0])
    assert len(out[0]) == 2
    assert out[0] == out[1]


@pytest.mark.parametrize("variant", sorted(v.key for v in all_variants()))
def test_bot_hands_judgements_follow_the_definition(variant: str) -> None:
    """Random and greedy bots over a few seeded hands of every rule set: each mark is exactly
    the documented rule, ``best`` is ranked, and the summary counts the judgements."""
    rules = get_variant(variant)
    reasons: set[str | None] = set()
    for i in range(3):
        seed = f"analysis-{variant}-{i}"
        initial = rules.new_hand(None, None, seed, open_empty_windows=True).to_json()
        bots = [make_bot("random" if (s + i) % 2 else "greedy") for s in range(4)]
        played = play_hand(rules, seed, bots, keep_events=False)
        analysis = analyse(initial, [a.to_json() for a in played.actions])
        for j in analysis.judgements:
            reasons.add(j.reason)
            ranks = [c.rank() for c in j.best]
            assert ranks == sorted(ranks) and 1 <= len(j.best) <= 3
            assert j.clear_mistake == (j.reason is not None)
            top = j.best[0]
            if j.reason == PASSED_WIN:
                assert top.wins and not j.chosen.wins
            elif j.reason == HIGHER_DISTANCE:
                assert j.decision == "turn" and j.chosen.distance is not None and j.chosen.distance > top.distance
            elif j.reason == FEWER_TILES:
                assert j.chosen.distance == top.distance
                assert j.chosen.gain * 2 <= top.gain and top.gain - j.chosen.gain >= 4
            elif j.reason == WORSENING_CLAIM:
                assert j.verdict == "worsens"
            elif j.decision == "turn" and not top.wins:
                assert j.chosen.distance == top.distance
                assert not (j.chosen.gain * 2 <= top.gain and top.gain - j.chosen.gain >= 4)
        for s in analysis.summary:
            mine = [j for j in analysis.judgements if j.seat == s.seat]
            assert s.decisions == len(mine)
            assert s.clear_mistakes == sum(j.clear_mistake for j in mine)
            assert s.ready_turns is None or s.ready_turns >= 0
        json.dumps(analysis.to_json())
    assert reasons - {None}, "random bots make some clear mistake"


# The first two judgements above in the other four rule sets, computed by hand.  E holds four
# sets (three in the 13-tile rule sets, four in the 16-tile ones: 123s more), the pair 55p and
# 67p 9s.  Throwing 9s is ready on 5p / 8p and the wild: 5p has 2 unseen (E holds two), 8p 4, and
# C, the wild where there is one (the flipped tile shown: 3 unseen), so 9 (6 in 东北, which has no
# wild).  Throwing 7p leaves 6p and 9s loose, one from ready: useful are 4p (456p, 5p alone),
# 5p (555p), 6p (66p), 7p (67p), 8p (6p8p), 7s and 8s (with 9s), 9s (99s) and the wild:
# 4 + 2 + 3 + 3 (E threw one) + 4 + 4 + 4 + 3 = 27 unseen, and 3 more for C: 30.
OTHER_RULE_SETS = {
    # rule set: (E's tiles, the flipped tile, the wild's unseen copies)
    "zhedong_de": ("123m 456m 789m 55p 67p 9s", "C", 3),
    "dongbei": ("123m 456m 789m 55p 67p 9s", None, 0),
    "wenzhou": ("123m 456m 789m 123s 55p 67p 9s", "C", 3),
    "zhangzhou": ("123m 456m 789m 123s 55p 67p 9s", "C", 3),
}


@pytest.mark.parametrize("variant", sorted(OTHER_RULE_SETS))
def test_breaking_a_ready_hand_in_every_rule_set_matches_the_hand_count(variant: str) -> None:
    tiles, flipped, wild_unseen = OTHER_RULE_SETS[variant]
    dealt = len(parse_tiles(tiles))  # the dealer's 14 or 17
    hands = fill_hands({"E": tiles}, avoid="C P 5p 7p 9s", flipped=flipped, dealer_size=dealt)
    log = Log(hands, variant=variant, flipped=flipped)
    log.pass_questions()
    log.do("E", DISCARD, "7p").close()
    j = next(j for j in log.analysis().judgements if j.decision == "turn")
    assert (j.seat, j.before, j.after) == (0, 0, 1)
    assert j.clear_mistake and j.reason == HIGHER_DISTANCE
    best = j.best[0].to_json()
    assert best["action"] == {"seat": "E", "do": "discard", "tile": "9s"} and best["distance"] == 0
    waits = {w["tile"]: w["unseen"] for w in best["waits"]["tiles"]}
    assert waits == {"5p": 2, "8p": 4} | ({"C": wild_unseen} if wild_unseen else {})
    useful = {t["tile"]: t["unseen"] for t in j.to_json()["chosen"]["useful"]["tiles"]}
    expected = {"4p": 4, "5p": 2, "6p": 3, "7p": 3, "8p": 4, "7s": 4, "8s": 4, "9s": 3}
    assert useful == expected | ({"C": wild_unseen} if wild_unseen else {})
    assert j.chosen.gain == 27 + wild_unseen
