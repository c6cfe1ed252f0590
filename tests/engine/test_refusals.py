"""Every refusal of the rules carries a stable code and JSON parameters beside its English reason.

Two checks: a scan of the engine's source (every refusal is built by ``refuse`` with a snake_case
code, one English template per code, its placeholders the parameters given; no refusal hook
returns a bare string), and a property over bot-played hands of every rule set (at many points,
a spread of illegal actions of every verb: each refusal is a ``Refusal`` with a known code, and
``Hand.apply`` raises an ``IllegalAction`` with that code, those parameters and that reason).
"""

from __future__ import annotations

import ast
import json
import pickle
import random
import string
from pathlib import Path
from typing import Any

import pytest

from games.engine.bots import make_bot
from games.engine.driver import decide
from games.engine.hand import Hand
from games.engine.refusals import CODE_PATTERN, UNSPECIFIED, Refusal, refuse
from games.engine.state import CHOW, DISCARD, KONG, PASS, PUNG, WIN, Action, IllegalAction
from games.engine.variants import all_variants
from games.engine.variants.dongbei.scoring import READY
from games.engine.variants.zhangzhou.rules import ROB_GOLD, ROB_KONG

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "games" / "engine"
VERBS = (DISCARD, CHOW, PUNG, KONG, WIN, PASS, READY, ROB_GOLD, ROB_KONG, "fly")


def refuse_calls() -> list[tuple[str, str, list[str], str]]:
    """(code, template, parameter names, where) of every ``refuse(...)`` in the engine."""
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "refuse":
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                code, template = (ast.literal_eval(arg) for arg in node.args[:2])
                found.append((code, template, sorted(k.arg for k in node.keywords if k.arg), where))
    return found


CALLS = refuse_calls()
CODES = {code: template for code, template, _, _ in CALLS}


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_refusal_in_the_engine_has_a_stable_code() -> None:
    assert len(CALLS) > 100  # the scan found the raise sites
    bad = [where for code, _, _, where in CALLS if not CODE_PATTERN.fullmatch(code)]
    assert not bad, f"codes are snake_case: {bad}"
    texts: dict[str, set[str]] = {}
    for code, template, params, where in CALLS:
        texts.setdefault(code, set()).add(template)
        assert placeholders(template) == set(params), f"{where}: the template's placeholders are its params"
    assert not {c: t for c, t in texts.items() if len(t) > 1}, "one code, one English text"


def returns_a_refusal(fn: ast.FunctionDef) -> bool:
    return fn.returns is not None and "Refusal" in ast.unparse(fn.returns)


def test_no_refusal_hook_returns_a_bare_string() -> None:
    # A bare string would reach the player without a code (mypy says the same: the hooks
    # return ``Refusal | None``).
    offences = []
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef) or not returns_a_refusal(fn):
                continue
            for node in ast.walk(fn):
                value = node.value if isinstance(node, ast.Return) else None
                if isinstance(value, ast.JoinedStr) or (isinstance(value, ast.Constant) and value.value is not None):
                    offences.append(f"{path.relative_to(ROOT)}:{node.lineno}")
        for node in ast.walk(tree):
            is_raise = (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "IllegalAction"
            )
            if is_raise and node.args and isinstance(node.args[0], ast.Constant | ast.JoinedStr):
                offences.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offences


def probes(hand: Hand, rng: random.Random) -> list[Action]:
    """A spread of actions, most of them illegal now: every verb, with tiles the seat holds, the
    tile on offer and any tile, chows around the tile on offer, and malformed ones."""
    offered = hand.window.tile if hand.window is not None else rng.randrange(34)
    out = []
    for seat in (*range(4), 7):
        held = sorted(set(hand.players[seat].hand)) if seat < 4 else []
        tiles = [*rng.sample(held, min(2, len(held))), offered, rng.randrange(34)]
        for verb in VERBS:
            out.append(Action(seat, verb))
            out.extend(Action(seat, verb, tile=t) for t in tiles)
        for low in (offered - 2, offered - 1, offered):
            out.append(Action(seat, CHOW, tiles=(low, low + 1, low + 2)))
        out.append(Action(seat, CHOW, tiles=(offered,)))
    out.append(Action(0, DISCARD, tile=99))
    out.append(Action(0, PUNG, tile=3, tiles=(3, 3, 3)))
    return out


def check_refusals(hand: Hand, rng: random.Random, seen: set[str]) -> None:
    for action in probes(hand, rng):
        reason = hand.refusal(action)
        if reason is None:
            continue
        assert isinstance(reason, Refusal), f"{hand.variant.key}: {action} refused without a code: {reason!r}"
        assert reason.code in CODES, reason.code
        json.dumps(reason.params)  # JSON values only
        assert str(reason) == CODES[reason.code].format(**reason.params)
        with pytest.raises(IllegalAction) as caught:
            hand.apply(action)
        assert (str(caught.value), caught.value.code, caught.value.params) == (reason, reason.code, reason.params)
        seen.add(reason.code)


@pytest.mark.parametrize("variant", [v.key for v in all_variants()])
def test_refusals_over_bot_played_hands_all_carry_codes(variant: str) -> None:
    rule_set = next(v for v in all_variants() if v.key == variant)
    seen: set[str] = set()
    for n in range(3):
        rng = random.Random(f"{variant}:{n}")
        hand = rule_set.new_hand(None, None, f"refusals:{variant}:{n}")
        bots = [make_bot("random" if rng.random() < 0.5 else "greedy") for _ in range(4)]
        step = 0
        while not hand.ended:
            if step % 4 == 0:
                check_refusals(hand, rng, seen)
            for action in decide(hand, bots, rng):
                hand.apply(action)
            step += 1
        check_refusals(hand, rng, seen)
    # The probes reach the machine's refusals in every rule set (and some of the rule set's own).
    assert {"not_your_turn", "tile_not_in_hand", "hand_over", "needs_one_tile", "no_such_tile"} <= seen


def test_a_refusal_is_its_english_text() -> None:
    r = refuse("tile_not_in_hand", "{tile} is not in your hand", tile="5m")
    assert r == "5m is not in your hand" and r.code == "tile_not_in_hand" and r.params == {"tile": "5m"}
    back: Any = pickle.loads(pickle.dumps(r))
    assert (back, back.code, back.params) == (r, r.code, r.params)
    exc = IllegalAction(r)
    assert (str(exc), exc.code, exc.params) == ("5m is not in your hand", "tile_not_in_hand", {"tile": "5m"})
    plain = IllegalAction("a reason from elsewhere")
    assert (plain.code, plain.params) == (UNSPECIFIED, {})
