"""The bot simulator: determinism, validated == trusted, and output that parses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.bots import make_bot
from games.engine.simulate import OUTCOMES, hand_seed, main, outcome_of, play_hand, simulate
from games.engine.state import Result
from games.engine.variants import VARIANT_MODULES, all_variants, get_variant

V = "zhejiang_caishen"
VARIANTS = [v.key for v in all_variants()]
ROOT = Path(__file__).resolve().parents[2]


def parse(out: str) -> dict[str, str]:
    """``key: value`` lines up to the profile (which has its own format)."""
    fields: dict[str, str] = {}
    for line in out.splitlines():
        if line.startswith("profile ("):
            break
        key, sep, value = line.partition(": ")
        assert sep, f"unparsable line {line!r}"
        fields[key] = value
    return fields


def pairs(value: str) -> dict[str, int]:
    return {k: int(v) for k, v in (item.split("=") for item in value.split())}


def check_output(fields: dict[str, str], hands: int) -> None:
    run = dict(item.split("=") for item in fields["run"].split())
    assert int(run["hands"]) == hands
    assert float(fields["hands_per_s"]) > 0 and float(fields["hands_per_cpu_s"]) > 0
    assert float(fields["seconds"]) > 0 and float(fields["warmup_seconds"]) >= 0
    outcomes = pairs(fields["outcomes"])
    assert set(OUTCOMES) <= set(outcomes) and sum(outcomes.values()) == hands
    patterns = pairs(fields["patterns"])
    assert all(n > 0 for n in patterns.values())
    events = pairs(fields["events"])
    assert events["hand_end"] == hands and events["discard"] > 0 and all(n > 0 for n in events.values())
    assert float(fields["avg_abs_delta"]) >= 0 and float(fields["avg_actions"]) > 0
    float(fields["avg_winner_score"])
    assert fields["zero_sum"] == f"ok hands={hands}"


@pytest.mark.parametrize("bot", ["greedy", "random"])
def test_main_prints_parsable_figures(bot: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--variant", V, "--hands", "6", "--seed", "t", "--bot", bot]) == 0
    check_output(parse(capsys.readouterr().out), 6)


def test_profile_prints_the_top_functions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--variant", V, "--hands", "3", "--seed", "p", "--profile"]) == 0
    out = capsys.readouterr().out
    check_output(parse(out), 3)
    assert "profile (self time), top 20:" in out and "profile (cumulative time), top 20:" in out
    assert "hand.py" in out


def test_bad_arguments_exit_with_usage(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--variant", "nope"], ["--variant", V, "--hands", "0"], ["--variant", V, "--bot", "x"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
    capsys.readouterr()


def test_module_runs_from_the_command_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine.simulate", "--variant", V, "--hands", "4", "--seed", "cli"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    check_output(parse(proc.stdout), 4)


def test_a_fresh_process_knows_every_rule_set() -> None:
    # games.engine.bots imports 漳州's module for its verbs before anything asks the registry,
    # which once left the registry with that one rule set ("unknown variant 'dongbei'").
    code = "import games.engine.simulate; from games.engine.variants import all_variants; "
    code += "print(*[v.key for v in all_variants()])"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert set(proc.stdout.split()) == set(VARIANT_MODULES)


def test_a_variant_end_of_its_own_is_its_outcome() -> None:
    assert outcome_of(Result(status="draw", win_kind="false_win")) == "false_win"  # 漳州 诈胡
    assert outcome_of(Result(status="draw")) == "exhaustive_draw"
    assert outcome_of(Result(status="win", winner=1, self_drawn=True, win_kind="you_single")) == "self_draw"


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("bot", ["greedy", "random"])
def test_trusted_apply_gives_the_same_history(variant: str, bot: str) -> None:
    v = get_variant(variant)
    for i in range(8):
        seed = hand_seed("trusted", i)
        bots = [make_bot(bot) for _ in range(4)]
        checked = play_hand(v, seed, bots)
        trusted = play_hand(v, seed, [make_bot(bot) for _ in range(4)], trusted=True)
        assert trusted.actions == checked.actions
        assert [e.to_json() for e in trusted.events] == [e.to_json() for e in checked.events]
        assert trusted.hand.to_json() == checked.hand.to_json()
    a = simulate(variant, 10, "same", bot)
    b = simulate(variant, 10, "same", bot, trusted=True)
    assert a.figures() == b.figures()


def test_runs_are_reproducible_and_seeds_differ() -> None:
    assert simulate(V, 8, "r").figures() == simulate(V, 8, "r").figures()
    seeds = {hand_seed("r", i) for i in range(100)} | {hand_seed("s", i) for i in range(100)}
    assert len(seeds) == 200
    one = play_hand(get_variant(V), hand_seed("r", 3), [make_bot("greedy") for _ in range(4)])
    again = play_hand(get_variant(V), hand_seed("r", 3), [make_bot("greedy") for _ in range(4)])
    assert one.actions == again.actions and one.result.to_json() == again.result.to_json()


def test_every_hand_is_zero_sum_and_counted() -> None:
    stats = simulate(V, 30, "z", "random")
    assert stats.hands == 30 and sum(stats.outcomes.values()) == 30
    assert stats.patterns["hand_value"] == stats.wins
    assert stats.abs_delta_total % 2 == 0  # zero-sum: the gains equal the losses


def test_greedy_hands_are_quick() -> None:
    # A loose smoke bound (CI machines vary); the real figure comes from the CLI run.
    stats = simulate(V, 40, "quick")
    assert stats.hands / stats.cpu_seconds > 20
