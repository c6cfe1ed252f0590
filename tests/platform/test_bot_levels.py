"""Which bot plays an automatic seat (games.services.play.HandStep.bot): an easy bot's chair the
greedy bot, every other automatic seat — a strong bot's chair, 托管, a player who left — the
strong bot."""

from __future__ import annotations

from games.engine import GreedyBot, StrongBot, get_variant
from games.models import Hand, Seat, Table
from games.services.play import HandStep


def step(seats: list[Seat], dealer: int = 1) -> HandStep:
    table = Table(variant="zhejiang_caishen")
    row = Hand(table=table, number=1, dealer_position=dealer)
    return HandStep(row, get_variant("zhejiang_caishen").new_hand({}, None, "levels"), seats)


def test_each_automatic_seat_gets_its_bot() -> None:
    seats = [
        Seat(position=0, is_bot=True, bot_level=Seat.EASY),
        Seat(position=1, is_bot=True, bot_level=Seat.STRONG),
        Seat(position=2, auto_play=True),  # 托管
        Seat(position=3, left=True),
    ]
    s = step(seats, dealer=1)
    by_chair = {s.row.position_of(e): s.bot(e) for e in range(4)}

    assert isinstance(by_chair[0], GreedyBot)
    assert all(isinstance(by_chair[c], StrongBot) for c in (1, 2, 3))


def test_the_chosen_bot_answers_with_a_legal_action() -> None:
    seats = [Seat(position=p, is_bot=True, bot_level=level) for p, level in enumerate([Seat.STRONG, Seat.EASY] * 2)]
    s = step(seats, dealer=0)
    seat = s.engine.turn
    action = s.bot_action(seat)

    assert action in s.engine.legal_actions(seat)


def saved_step(seats: list[Seat], hand_id: int) -> HandStep:
    """A step of a hand with an id, as the hand's every step on the platform is."""
    s = step(seats)
    s.row.pk = hand_id
    return s


def test_a_seats_strong_bot_remembers_the_hand_across_steps() -> None:
    """Each step builds a new HandStep; the seat's strong bot is the one of its earlier steps
    (what it saw declared ready stays known), another seat or hand has its own, and a process
    that forgot it (a restart, another process) makes a new one."""
    from games.runtime.process import runtime

    seats = [Seat(position=p, is_bot=True, bot_level=Seat.STRONG) for p in range(4)]
    bot = saved_step(seats, 41).bot(2)
    assert isinstance(bot, StrongBot)
    assert saved_step(seats, 41).bot(2) is bot
    assert saved_step(seats, 41).bot(3) is not bot
    assert saved_step(seats, 42).bot(2) is not bot
    runtime().bots.clear()
    assert saved_step(seats, 41).bot(2) is not bot
