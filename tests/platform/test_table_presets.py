"""Server-side automatic actions of a player's table settings (games/services/presets.py), on a
rigged hand of four people: auto-win wins, 摸切 discards the drawn tile, auto-pass passes after
the uniform pause (not sooner), and the player's own answer before that is the one applied."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import services
from games.engine.state import PUNG, WIN
from games.engine.tiles import parse_tiles
from games.engine.variants import get_variant
from games.models import Hand, PlayerTableSettings, Table
from games.records.rebuild import event_log

pytestmark = pytest.mark.django_db(transaction=True)
VARIANT = "zhejiang_caishen"
_tags = itertools.count()
# E deals; S draws 5s after E's discard.  With "win" S holds 123m 456m 789p 234s 5s: the 5s wins
# (自摸).  With "no_win" S holds 9s for 5s: nothing but discards.  N holds C C: E's C is pungable.
HANDS = {
    "E": "1m 4m 7m 2p 5p 8p 1s 4s 7s E S W N C",
    "win": "123m 456m 789p 234s 5s",
    "no_win": "123m 456m 789p 234s 9s",
    "W": "2m 5m 8m 1p 4p 7p 2s 5s 8s E S W F",
    "N": "9m 9p 8s 6m 6p 6s 8m 7s P F C C W",
}
PAUSE = 0.6


class Clock:
    def __init__(self) -> None:
        self.now = timezone.now()

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(settings: Any, monkeypatch: Any) -> Clock:
    settings.CAISHEN_CLAIM_PROTECTION = "pause"
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_DISCARD_PAUSE = PAUSE
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_TIMERS = "inprocess"
    settings.CAISHEN_SPECTATOR_DELAY = 0
    c = Clock()
    monkeypatch.setattr(timezone, "now", c)
    return c


def table_of(south: str, **prefs: dict[str, bool]) -> tuple[Table, Hand, list[Any]]:
    """Four people on the rigged deal; ``prefs`` by seat letter ("S", "N") switch settings on."""
    User = get_user_model()
    tag = next(_tags)
    users = [User.objects.create_user(f"pre{tag}_{i}", password="pw-123456") for i in range(4)]
    for letter, chosen in prefs.items():
        PlayerTableSettings.objects.create(user=users["ESWN".index(letter)], **chosen)
    table = services.create_table(users[0], VARIANT, {}, stake=1, hands_total=1, claim_seconds=5)
    for i, u in enumerate(users):
        services.sit(table.pk, u, i)
    table.seats.update(ready=True)
    table.refresh_from_db()
    deal = [parse_tiles(HANDS[k]) for k in ("E", south, "W", "N")]
    services.start_match(table, get_variant(VARIANT).rigged_hand(deal, parse_tiles("3m")[0], parse_tiles("5s"), []))
    return table, Hand.objects.get(table=table), users


def discard(hand: Hand, user: Any, tile: str) -> Hand:
    services.submit(hand.pk, user, {"do": "discard", "tile": tile}, hand.seq)
    return Hand.objects.get(pk=hand.pk)


def let_the_clock_run(clock: Clock, row: Hand, seconds: float) -> Hand:
    clock.now += timedelta(seconds=seconds)
    services.wake("hand", row.pk, row.seq)
    return Hand.objects.get(pk=row.pk)


def kinds(row: Hand) -> list[str]:
    return [e.kind for _, e in event_log(row)]


def test_auto_win_takes_the_self_drawn_win(clock: Clock) -> None:
    _table, hand, users = table_of("win", S={"auto_win": True})
    row = let_the_clock_run(clock, discard(hand, users[0], "N"), PAUSE)
    assert row.status == Hand.FINISHED
    assert WIN in kinds(row)


def test_without_auto_win_the_win_waits_for_the_player(clock: Clock) -> None:
    _table, hand, users = table_of("win")
    row = let_the_clock_run(clock, discard(hand, users[0], "N"), PAUSE)
    assert row.status == Hand.PLAYING
    engine = services.decoded_engine(row)
    assert engine.turn == 1 and any(a.kind == WIN for a in engine.legal_actions(1))


def test_tsumogiri_discards_the_drawn_tile(clock: Clock) -> None:
    _table, hand, users = table_of("no_win", S={"tsumogiri": True})
    row = let_the_clock_run(clock, discard(hand, users[0], "N"), PAUSE)
    engine = services.decoded_engine(row)
    assert [str(t) for t in engine.players[1].discards][-1:] == [str(parse_tiles("5s")[0])]
    assert engine.players[1].drawn is None


def test_tsumogiri_does_not_throw_away_a_win(clock: Clock) -> None:
    _table, hand, users = table_of("win", S={"tsumogiri": True})
    row = let_the_clock_run(clock, discard(hand, users[0], "N"), PAUSE)
    assert row.status == Hand.PLAYING
    assert services.decoded_engine(row).players[1].drawn is not None


def test_without_tsumogiri_the_turn_waits(clock: Clock) -> None:
    _table, hand, users = table_of("no_win")
    row = let_the_clock_run(clock, discard(hand, users[0], "N"), PAUSE)
    assert services.decoded_engine(row).players[1].drawn is not None


def test_auto_pass_passes_a_claim_after_the_uniform_pause_not_sooner(clock: Clock) -> None:
    table, hand, users = table_of("win", N={"auto_pass_claims": True})
    row = discard(hand, users[0], "C")
    assert row.deadline_at - row.window_opened_at == timedelta(seconds=PAUSE)  # the pause, not claim_seconds
    assert services.decoded_engine(row).window is not None
    row = let_the_clock_run(clock, row, PAUSE)
    engine = services.decoded_engine(row)
    assert engine.window is None and engine.turn == 1  # passed: South draws
    assert not engine.players[3].melds
    assert table.seats.get(position=3).timeouts == 0  # an auto-pass is no timeout


def test_without_auto_pass_the_claim_gets_the_claim_clock(clock: Clock) -> None:
    table, hand, users = table_of("win")
    row = discard(hand, users[0], "C")
    assert row.deadline_at - row.window_opened_at == timedelta(seconds=table.claim_seconds)


def test_the_players_own_claim_before_the_pause_wins_over_auto_pass(clock: Clock) -> None:
    _table, hand, users = table_of("win", N={"auto_pass_claims": True})
    row = discard(hand, users[0], "C")
    services.submit(row.pk, users[3], {"do": "pung"}, row.seq)
    row = let_the_clock_run(clock, Hand.objects.get(pk=row.pk), PAUSE)
    engine = services.decoded_engine(row)
    assert [m.kind for m in engine.players[3].melds] == [PUNG]
