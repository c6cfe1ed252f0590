"""A match between hands: starting it, the rule set's pre-hand questions (买底/顶底, 飘), dealing."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.engine import Hand as EngineHand
from games.engine import PreHandQuestion, get_variant, new_seed
from games.models import Hand, HandStart, Seat, Table
from games.runtime import timers
from games.services import holds, locks, play, reads
from games.services.common import (
    Refused,
    announce_table_change,
    deadline_token,
)

# Who supplies a table's walls instead of a fresh secret seed: (table, hand number) -> seed or
# None; number 0 is the first-dealer roll.  Tournaments' duplicate mode registers one
# (tournaments/apps.py) so every table of a round plays the same walls.
SEED_PROVIDERS: list[Any] = []
# Called with the (locked) table before each hand of a match is dealt, the first included: the
# hand boundary, where tournaments put an organiser's replacement of a seated player into effect
# (tournaments/apps.py).  Each may change the table's seats; the deal reads them afresh after.
BEFORE_HAND: list[Callable[[Table], None]] = []


def provided_seed(table: Table, number: int) -> str | None:
    for provider in SEED_PROVIDERS:
        if (seed := provider(table, number)) is not None:
            return str(seed)
    return None


def start_match(table: Table, first_hand: EngineHand | None = None) -> Hand | None:
    """Begin the match; ``first_hand`` lets tests and tournaments supply a prepared (rigged) hand.

    First the match's stake is held from every human seat's wallet, all or none: if a seat cannot
    cover it any more this raises ``holds.StakeNotCovered`` having changed nothing (the lobby
    unreadies those seats).  The holds are released when the match ends (games.services.settlement).
    """
    holds.take(table, table.seats.all())
    table.status = Table.PLAYING
    # Chair 0 is East; the rule set names the first dealer (东北 rolls a die for it).
    roll = provided_seed(table, 0) or new_seed()
    table.dealer_position = get_variant(table.variant).first_dealer(roll, table.options) % 4
    table.hands_played = 0
    table.context = {}
    table.save()
    Seat.objects.filter(table=table).update(timeouts=0, disconnects=0, auto_play=False)
    if table.offline_grace_seconds:
        # Whoever is not here as the match starts is offline from now: their grace starts now.
        Seat.objects.filter(table=table, connected=False).update(offline_since=timezone.now())
    if first_hand is not None:
        return start_hand(table, first_hand)
    return begin_hand(table)


def begin_hand(table: Table) -> Hand | None:
    """Start the next hand, first asking the rule set's pre-hand questions (买底/顶底, 飘).

    Returns the new hand, or None while people still have questions to answer.
    """
    rules = get_variant(table.variant)
    questions = rules.pre_hand_questions(table.options, table.context)
    if not questions:
        return start_hand(table)
    table.pre_hand = {"questions": [q.to_json() for q in questions], "index": 0, "answers": {}}
    return advance_pre_hand(table)


def current_question(table: Table) -> PreHandQuestion | None:
    ph = table.pre_hand
    if not ph:
        return None
    return PreHandQuestion.from_json(ph["questions"][ph["index"]])


def advance_pre_hand(table: Table, now: datetime | None = None) -> Hand | None:
    """Bots and 托管 seats answer at once; complete questions fold into the context; then deal."""
    rules = get_variant(table.variant)
    seats = list(table.seats.all())
    now = now or timezone.now()
    while (question := current_question(table)) is not None:
        ph = table.pre_hand
        assert ph is not None
        chairs = {wind: (wind + table.dealer_position) % 4 for wind in question.seats}
        for chair in chairs.values():
            s = seats[chair]
            if str(chair) not in ph["answers"] and (s.is_bot or s.auto_play or s.left):
                ph["answers"][str(chair)] = question.default
        if any(str(c) not in ph["answers"] for c in chairs.values()):
            table.ready_deadline = now + timedelta(seconds=table.turn_seconds)
            table.save(update_fields=["pre_hand", "ready_deadline", "context"])
            timers.schedule_on_commit("table", table.pk, deadline_token(table.ready_deadline), table.ready_deadline)
            announce_table_change(table)
            return None
        answers = {wind: ph["answers"][str(chair)] for wind, chair in chairs.items()}
        table.context = rules.apply_pre_hand_answers(table.context, question, answers)
        ph["index"] += 1
        ph["answers"] = {}
        if ph["index"] >= len(ph["questions"]):
            table.pre_hand = None
    table.ready_deadline = None
    table.save(update_fields=["pre_hand", "ready_deadline", "context"])
    return start_hand(table)


def choose(table_id: int, user: User, key: Any, value: Any) -> None:
    """A player's answer to the open pre-hand question."""
    with transaction.atomic():
        table = locks.lock_table(table_id)
        question = current_question(table)
        if table.status != Table.PLAYING or question is None:
            raise Refused("there is no question to answer now", "no_question")
        if key != question.key:
            raise Refused(
                f"the question now is {question.label} ({question.key})",
                "other_question",
                {"question": question.label, "key": question.key},
            )
        seat = table.seats.filter(user=user).first()
        if seat is None:
            raise Refused("you do not sit at this table", "not_seated")
        wind = (seat.position - table.dealer_position) % 4
        if wind not in question.seats:
            raise Refused(f"{question.label} is not yours to choose", "not_your_question", {"question": question.label})
        assert table.pre_hand is not None
        if str(seat.position) in table.pre_hand["answers"]:
            raise Refused("you have already answered", "question_answered")
        if not any(value == c and type(value) is type(c) for c in question.choices):
            allowed = ", ".join(json.dumps(c) for c in question.choices)
            raise Refused(
                f"{question.label}: choose one of {allowed}",
                "choose_one_of",
                {"question": question.label, "choices": allowed},
            )
        table.pre_hand["answers"][str(seat.position)] = value
        if seat.auto_play or seat.timeouts:
            seat.auto_play, seat.timeouts = False, 0
            seat.save(update_fields=["auto_play", "timeouts"])
        advance_pre_hand(table)


def start_hand(table: Table, engine: EngineHand | None = None) -> Hand:
    """Deal (or take the prepared ``engine``) and let bots act until a person must decide."""
    for hook in BEFORE_HAND:
        hook(table)
    rules = get_variant(table.variant)
    if rules.escape_penalty_bases:
        # A leaver who paid the escape penalty is gone: a house bot takes the chair.
        table.seats.filter(left=True, is_bot=False).update(is_bot=True, auto_play=False)
    seed = provided_seed(table, table.hands_played + 1) or new_seed()
    if engine is None:
        engine = rules.new_hand(table.options, table.context, seed=seed, open_empty_windows=True)
    else:
        seed = engine.seed or ""
        # The table plays with claim protection (HandStep.advance), a prepared hand included.
        engine = engine.with_claim_protection()
    row = Hand.objects.create(
        table=table,
        number=table.hands_played + 1,
        dealer_position=table.dealer_position,
        seed=seed,
        seed_hash=engine.seed_hash or "",
        snapshot=engine.to_json(),
    )
    HandStart.objects.create(hand=row, snapshot=row.snapshot)  # a replay's starting point
    step = play.HandStep(row, engine, reads.table_seats(table))  # (as before: the deal locks no seat)
    step.advance()
    step.save()
    announce_table_change(table)
    return row
