"""One driver: the live table and the simulator play a seeded hand action for action alike.

Both ask the engine's driver (games.engine.driver.turn) who must act, apply what the rules
force first, pass empty claim windows the same way (claim protection: a window after every
discard) and give each bot the same randomness (decision_rng).  Here four bots play the same
seeded hands through the live services — at once (no bot delay) and step by step through the
timers' wake-ups — and through games.engine.simulate.play_hand: the action logs are equal.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.engine import all_variants, get_variant, new_hand
from games.engine.bots import GreedyBot
from games.engine.simulate import hand_seed, play_hand
from games.models import Hand, HandAction, Seat, Table

pytestmark = pytest.mark.django_db

VARIANTS = [v.key for v in all_variants()]


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_TIMERS = "inprocess"
    settings.CAISHEN_SPECTATOR_DELAY = 0


def bots_only_match(variant: str, seed: str) -> Hand:
    """A table of four easy house bots (the greedy bot, as the simulator's below) whose first
    hand is the seeded deal ``seed``."""
    owner = get_user_model().objects.create_user(f"owner-{seed[:8]}", password="pw-123456")
    table = services.create_table(owner, variant, {}, hands_total=1)
    Seat.objects.filter(table=table).update(is_bot=True, ready=True, bot_level=Seat.EASY)
    services.start_match(Table.objects.get(pk=table.pk), first_hand=new_hand(variant, seed=seed))
    return Hand.objects.get(table=table)


def live_log(hand: Hand) -> list[dict[str, Any]]:
    return list(HandAction.objects.filter(hand=hand).order_by("seq", "index").values_list("action", flat=True))


def simulated_log(variant: str, seed: str) -> list[dict[str, Any]]:
    played = play_hand(get_variant(variant), seed, [GreedyBot() for _ in range(4)])
    return [a.to_json() for a in played.actions]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("index", [0, 1])
def test_the_live_table_plays_a_seeded_hand_as_the_simulator_does(variant: str, index: int) -> None:
    seed = hand_seed(f"one-driver-{variant}", index)
    hand = bots_only_match(variant, seed)
    assert hand.status == Hand.FINISHED  # no person at the table, no bot delay: played at once
    log = live_log(hand)
    assert len(log) > 20
    assert log == simulated_log(variant, seed)


def test_the_timers_step_through_the_same_hand(settings: Any) -> None:
    """With a bot delay every bot move waits for its deadline and comes from a timer's wake-up
    (games.services.wakes): still the very same actions."""
    settings.CAISHEN_BOT_DELAY = 0.8
    variant = "zhejiang_caishen"
    seed = hand_seed("one-driver-timers", 0)
    hand = bots_only_match(variant, seed)
    for _ in range(500):
        hand.refresh_from_db()
        if hand.status == Hand.FINISHED:
            break
        assert hand.deadline_at is not None
        Hand.objects.filter(pk=hand.pk).update(deadline_at=hand.deadline_at.replace(year=2000))
        assert services.wake("hand", hand.pk, hand.seq)
    assert hand.status == Hand.FINISHED and hand.seq > 10  # many steps, one log
    assert live_log(hand) == simulated_log(variant, seed)
