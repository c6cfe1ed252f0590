"""The rows kept between steps (games/runtime/live_rows.py) are only ever a shortcut for the database.

Every UPDATE of a hand, a table or a seat bumps the row's revision, whoever writes it; after every
committed step the rows this process keeps equal the rows a fresh load gives; a write by anyone
else between two steps is seen by the second; a step that fails keeps nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, models, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.engine.tiles import tile_str
from games.models import Hand, PlayerTableSettings, Seat, Table
from games.runtime.process import runtime
from games.services import locks, presets
from games.services.common import Refused
from tests.platform.live_helpers import started

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]


def revision(model: type[models.Model], pk: int) -> int:
    return int(model.objects.values_list("revision", flat=True).get(pk=pk))  # type: ignore[attr-defined]


def test_every_update_of_a_hand_table_or_seat_bumps_its_revision_whoever_writes_it() -> None:
    table, hand, _ = started("rv")
    seat = Seat.objects.filter(table=table).first()
    assert seat is not None
    for model, obj in ((Table, table), (Hand, hand), (Seat, seat)):
        before = revision(model, obj.pk)
        obj.refresh_from_db()
        obj.save()  # the ORM, every column (the revision too: the trigger ignores what is written)
        model.objects.filter(pk=obj.pk).update(revision=before - 5)  # a queryset, a stale value
        with connection.cursor() as cursor:  # raw SQL, the admin's way round
            cursor.execute(f"UPDATE {model._meta.db_table} SET revision = revision WHERE id = %s", [obj.pk])
        assert revision(model, obj.pk) == before + 3, model.__name__


def _fields(obj: models.Model) -> dict[str, Any]:
    """The row's columns as a fresh load holds them (JSON as JSON: a tuple kept in memory and the
    list the column gives back are the same value)."""
    out: dict[str, Any] = {}
    for field in obj._meta.concrete_fields:
        if field.attname not in obj.__dict__:
            continue  # deferred (the snapshot): not part of what a step keeps
        value = getattr(obj, field.attname)
        out[field.attname] = json.loads(json.dumps(value)) if isinstance(field, models.JSONField) else value
    return out


def assert_kept_rows_are_the_database(hand_id: int) -> bool:
    """Whether rows are kept for the hand at the database's revisions (what the next step would
    use); where a kept row's revision is the database's, that it equals a fresh load, column by
    column.  (A step that wrote its table or a seat keeps them at their old revisions: a miss.)"""
    kept = runtime().rows.take_hand(hand_id)
    if kept is None:
        return False
    fresh = Hand.objects.select_related("table").get(pk=hand_id)
    seats = runtime().rows.take_seats(fresh.table_id)
    assert seats is not None, "a kept hand comes with its table's seats"
    fresh_seats = list(Seat.objects.filter(table_id=fresh.table_id).order_by("position"))
    current = kept.hand_revision == fresh.revision
    if current:
        assert {k: v for k, v in _fields(kept.row).items() if k != "snapshot"} == {
            k: v for k, v in _fields(fresh).items() if k != "snapshot"
        }
    if kept.table_revision == fresh.table.revision:
        assert _fields(kept.row.table) == _fields(fresh.table)
    else:
        current = False
    assert [s.pk for s in seats.seats] == [s.pk for s in fresh_seats]
    for kept_seat, (_, kept_revision, _), fresh_seat in zip(seats.seats, seats.revisions, fresh_seats, strict=True):
        if kept_revision == fresh_seat.revision:
            assert _fields(kept_seat) | {"revision": kept_revision} == _fields(fresh_seat)
        else:
            current = False
    runtime().rows.put(kept.row, seats.seats)  # as it was (put takes the revisions the rows carry)
    return current


def one_step(hand: Hand, users: list[Any]) -> None:
    """A person's step: a win when there is one, else a discard by the seat on turn, else a pass."""
    engine = services.decoded_engine(hand)
    for wanted in ("win", "discard", "pass"):
        for position, user in enumerate(users):
            for action in engine.legal_actions(hand.engine_seat(position)):
                if action.kind == wanted:
                    command = {"do": wanted} | ({"tile": tile_str(action.tile)} if action.tile is not None else {})
                    services.submit(hand.pk, user, command, hand.seq)
                    return
    services.wake("hand", hand.pk, hand.seq)  # nobody must decide: the clock's step


def test_after_every_step_the_kept_rows_equal_a_fresh_load(settings: Any) -> None:
    settings.CAISHEN_BETWEEN_HANDS_SECONDS = 0
    table, hand, users = started("kr")
    Table.objects.filter(pk=table.pk).update(hands_total=2)
    kept_steps = 0
    for step in range(1000):
        table.refresh_from_db()
        if table.status != Table.PLAYING:
            break
        row = Hand.objects.filter(table=table).order_by("-number").first()
        assert row is not None
        if row.status != Hand.PLAYING:
            services.wake("hand", row.pk, row.seq)  # the next hand
            continue
        if step in (5, 9):
            # A timeout: the clock's step writes the seat (timeouts, and at the second 托管).
            Hand.objects.filter(pk=row.pk).update(deadline_at=timezone.now().replace(year=2000))
            row.refresh_from_db()
            services.wake("hand", row.pk, row.seq)
        else:
            one_step(row, users)
        kept_steps += assert_kept_rows_are_the_database(row.pk)
    assert table.status == Table.FINISHED and table.hands_played == 2, (table.hands_played, kept_steps)
    assert kept_steps > 15 and runtime().rows.hits > 15  # the steps did use what they kept


def test_a_write_between_two_steps_is_seen_by_the_second() -> None:
    table, hand, users = started("kw")
    one_step(hand, users)
    hand.refresh_from_db()
    # Another writer (another process, the lobby, an admin) changes the table and a seat.
    Table.objects.filter(pk=table.pk).update(turn_seconds=37)
    Seat.objects.filter(table=table, position=2).update(auto_play=True)
    with transaction.atomic():
        row = locks.lock_hand(hand.pk)
        seats = locks.lock_seats(row.table)
        assert row.table.turn_seconds == 37
        assert seats[2].auto_play
    # And a write to the hand's own row (the sweeper's deadline, a kept window answer).
    one_step(hand, users)
    hand.refresh_from_db()
    Hand.objects.filter(pk=hand.pk).update(window_opened_at=None, deadline_at=timezone.now())
    moved = Hand.objects.get(pk=hand.pk).deadline_at
    with transaction.atomic():
        assert locks.lock_hand(hand.pk).deadline_at == moved


def test_a_command_refused_before_it_changed_anything_keeps_the_rows_a_failed_step_keeps_none() -> None:
    table, hand, users = started("kf")
    one_step(hand, users)
    hand.refresh_from_db()
    assert assert_kept_rows_are_the_database(hand.pk)
    hits = runtime().rows.hits
    with pytest.raises(Refused, match="stale command"):
        services.submit(hand.pk, users[0], {"do": "pass"}, hand.seq - 1)
    with pytest.raises(Refused, match="malformed command"):
        services.submit(hand.pk, users[0], {"do": "discard", "tile": "not a tile"}, hand.seq)
    # (three rows reused: the hand for each, the seats for the second)
    assert runtime().rows.hits == hits + 3 and assert_kept_rows_are_the_database(hand.pk)
    # A move the rules refuse is refused by the step itself, part-way: nothing it held is kept.
    engine = services.decoded_engine(hand)
    position = next(p for p in range(4) if hand.engine_seat(p) == engine.turn)
    held = {tile_str(t) for t in engine.players[engine.turn].hand}
    absent = next(t for t in ("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m") if t not in held)
    with pytest.raises(Refused):
        services.submit(hand.pk, users[position], {"do": "discard", "tile": absent}, hand.seq)
    assert runtime().rows.take_hand(hand.pk) is None


def test_another_hand_with_the_same_id_is_not_answered_from_the_kept_rows() -> None:
    """A restored database (or a test's) deals a new hand under an old id: its seed differs,
    whatever its revision."""
    table, hand, users = started("ks")
    one_step(hand, users)
    kept = runtime().rows.take_hand(hand.pk)
    assert kept is not None
    Hand.objects.filter(pk=hand.pk).update(seed="another deal")
    kept.row.revision = revision(Hand, hand.pk)  # kept at the very revision the row now has
    runtime().rows.put(kept.row, list(kept.row.table.seats.order_by("position")))
    with transaction.atomic():
        assert locks.lock_hand(hand.pk).seed == "another deal"


def test_a_seat_under_a_kept_id_and_revision_but_another_user_is_not_taken_for_the_kept_one() -> None:
    """A database restored under a running process can give a seat row a kept id and revision
    with someone else in it: the check reads the seat's user too."""
    table, hand, users = started("ku")
    one_step(hand, users)
    kept = runtime().rows.take_seats(table.pk)
    assert kept is not None
    stranger = get_user_model().objects.create_user("stranger")
    Seat.objects.filter(pk=kept.seats[3].pk).update(user=stranger)
    kept.seats[3].revision = revision(Seat, kept.seats[3].pk)  # kept at the very revision it now has
    runtime().rows.put_seats(table.pk, kept.seats)
    with transaction.atomic():
        seats = locks.lock_seats(Table.objects.get(pk=table.pk))
    assert seats[3].user_id == stranger.pk


def test_nobody_at_all_is_no_such_hand() -> None:
    User = get_user_model()
    User.objects.create_user("nobody")
    with transaction.atomic(), pytest.raises(Refused):
        locks.lock_hand(987_654)


def test_a_step_reads_its_seats_and_the_peoples_settings_with_its_hand_in_one_statement() -> None:
    """With the rows kept, a step's first statement reads the seats' revisions and the people's
    automatic settings too — the settings as they are now, like a read of their own."""
    table, hand, users = started("k1")
    one_step(hand, users)
    hand.refresh_from_db()
    PlayerTableSettings.objects.create(user=users[1], auto_win=True)
    PlayerTableSettings.objects.create(user=users[2], tsumogiri=True, sound=False)
    PlayerTableSettings.objects.create(user=users[3], sound=False)  # nothing automatic
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        row = locks.lock_hand(hand.pk, seats_next=True)
        seats, automatic = locks.lock_step_seats(row)
    assert len(queries) == 1, [q["sql"] for q in queries]
    assert [s.pk for s in seats] == list(
        Seat.objects.filter(table=table).order_by("position").values_list("pk", flat=True)
    )
    assert automatic is not None
    read = presets.from_flags(automatic, [u.pk for u in users])
    loaded = presets.load(u.pk for u in users)
    assert set(read) == set(loaded) == {users[1].pk, users[2].pk}
    for user_id, settings_row in loaded.items():
        assert [getattr(read[user_id], f) for f in presets.AUTOMATIC_FIELDS] == [
            getattr(settings_row, f) for f in presets.AUTOMATIC_FIELDS
        ]


def test_seats_read_by_one_transactions_check_are_never_taken_by_another() -> None:
    """A step that ended before it locked its seats (a finished hand's wake-up, a stale command)
    leaves its check unread: a later step of the same hand reads the seats afresh."""
    table, hand, users = started("k2")
    one_step(hand, users)
    hand.refresh_from_db()
    with transaction.atomic():
        locks.lock_hand(hand.pk, seats_next=True)  # and no lock_step_seats
    Seat.objects.filter(table=table, position=2).update(auto_play=True)
    with transaction.atomic():
        row = locks.lock_hand(hand.pk)
        seats, automatic = locks.lock_step_seats(row)
    assert seats[2].auto_play and automatic is None
