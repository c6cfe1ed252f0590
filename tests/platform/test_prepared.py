"""games.runtime.prepared: the step's queries compiled once give what the ORM gives (the integration
suite runs the same code on PostgreSQL through whole matches)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Hand, HandAction, HandEvent, Seat, Table
from games.runtime.prepared import PreparedInsert, PreparedSelect, PreparedUpdate
from tests.platform.live_helpers import started

pytestmark = pytest.mark.django_db

HAND_WITH_TABLE = PreparedSelect(lambda pk: Hand.objects.select_related("table").defer("snapshot").filter(pk=pk))
HAND_LOCKED = PreparedSelect(lambda pk: Hand.objects.select_for_update().filter(pk=pk))
SEATS = PreparedSelect(lambda table_id: Seat.objects.filter(table_id=table_id))


def test_a_prepared_select_builds_the_instances_the_orm_builds() -> None:
    table, hand, _ = started()
    hand.deadline_at = timezone.now() + timedelta(seconds=5)
    hand.result = {"winner": 1, "points": [3, -1, -1, -1]}
    hand.save()
    expected = Hand.objects.select_related("table").get(pk=hand.pk)

    (got,) = HAND_WITH_TABLE(hand.pk)

    for field in Hand._meta.concrete_fields:
        if field.attname != "snapshot":
            assert getattr(got, field.attname) == getattr(expected, field.attname), field.attname
    assert got.deadline_at is not None and got.deadline_at.tzinfo is not None  # converted, aware
    assert got.result == {"winner": 1, "points": [3, -1, -1, -1]}  # JSON decoded
    assert "snapshot" not in got.__dict__  # deferred, loaded on access like the ORM's
    with CaptureQueriesContext(connection) as queries:
        assert got.table.options == expected.table.options  # select_related: no query
        assert got.table.scores == expected.table.scores
    assert len(queries) == 0
    assert got.snapshot == expected.snapshot
    assert not got._state.adding and got._state.db == "default"


def test_a_prepared_select_runs_its_sql_without_compiling_again() -> None:
    table, hand, _ = started()
    SEATS(table.pk)  # compiled here
    with CaptureQueriesContext(connection) as queries:
        seats = SEATS(table.pk)
    assert [s.position for s in seats] == [0, 1, 2, 3]  # Meta.ordering kept
    assert [s.pk for s in seats] == list(table.seats.values_list("pk", flat=True))
    assert len(queries) == 1 and str(table.pk) in queries[0]["sql"]
    assert all(isinstance(s.ready, bool) and s.ready for s in seats)  # SQLite's 0/1 converted


def test_unknown_and_out_of_range_keys_find_nothing() -> None:
    assert HAND_WITH_TABLE(987654) == []
    assert HAND_WITH_TABLE(2**70) == []  # the ORM's answer too, where the driver would overflow
    assert HAND_WITH_TABLE(-(2**70)) == []


def test_arguments_are_checked() -> None:
    with pytest.raises(TypeError, match="expected 1 argument"):
        HAND_WITH_TABLE(1, 2)
    # The builder's query must take exactly its arguments as parameters, in order.
    fixed = PreparedSelect(lambda pk: Hand.objects.filter(pk=pk, seq=3))
    with pytest.raises(ValueError, match="must be exactly its 1 argument"):
        fixed(1)


@pytest.mark.django_db(transaction=True)  # (a plain django_db test runs inside a transaction)
def test_locking_outside_a_transaction_is_refused_every_time() -> None:
    table, hand, _ = started()
    with transaction.atomic():
        assert [h.pk for h in HAND_LOCKED(hand.pk)] == [hand.pk]  # compiled inside a transaction
    with pytest.raises(TransactionManagementError):
        HAND_LOCKED(hand.pk)  # and refused outside one afterwards, as the ORM refuses


def test_a_prepared_update_writes_only_its_fields() -> None:
    table, hand, _ = started()
    update = PreparedUpdate(Hand, ["seq", "deadline_at", "result"])
    stale = Hand.objects.get(pk=hand.pk)
    when = timezone.now().replace(microsecond=123456)
    stale.seq, stale.deadline_at, stale.result = 41, when, {"x": [1, "二"]}
    stale.status = "changed-but-not-listed"
    update(stale)
    fresh = Hand.objects.get(pk=hand.pk)
    assert (fresh.seq, fresh.deadline_at, fresh.result) == (41, when, {"x": [1, "二"]})
    assert fresh.status == Hand.PLAYING and fresh.snapshot == hand.snapshot


def test_a_prepared_update_of_a_missing_row_fails_loudly() -> None:
    table, hand, _ = started()
    ghost = Hand.objects.get(pk=hand.pk)
    Hand.objects.filter(pk=hand.pk).delete()
    with pytest.raises(DatabaseError, match="did not affect exactly one row"):
        PreparedUpdate(Hand, ["seq"])(ghost)


def test_a_prepared_update_takes_concrete_fields_only() -> None:
    with pytest.raises(ValueError, match="only concrete fields"):
        PreparedUpdate(Hand, ["seq", "events"])


def test_a_prepared_insert_writes_every_row_with_auto_now_add() -> None:
    table, hand, _ = started()
    before = timezone.now()
    insert = PreparedInsert(HandEvent)
    base = HandEvent.objects.filter(hand=hand).count()
    insert([HandEvent(hand=hand, seq=900, index=i, kind="test", event={"i": i, "t": "发"}) for i in range(3)])
    insert([HandEvent(hand=hand, seq=901, index=0, kind="one", event={})])
    insert([])
    rows = list(HandEvent.objects.filter(hand=hand, seq__gte=900))
    assert [(r.seq, r.index, r.kind, r.event) for r in rows] == [
        (900, 0, "test", {"i": 0, "t": "发"}),
        (900, 1, "test", {"i": 1, "t": "发"}),
        (900, 2, "test", {"i": 2, "t": "发"}),
        (901, 0, "one", {}),
    ]
    assert all(r.created_at >= before for r in rows)
    assert HandEvent.objects.filter(hand=hand).count() == base + 4


def test_a_prepared_insert_keeps_the_constraints() -> None:
    table, hand, _ = started()
    insert = PreparedInsert(HandEvent)
    insert([HandEvent(hand=hand, seq=950, index=0, kind="a", event={})])
    with pytest.raises(DatabaseError), transaction.atomic():
        insert([HandEvent(hand=hand, seq=950, index=0, kind="again", event={})])
    assert list(HandEvent.objects.filter(hand=hand, seq=950).values_list("kind", flat=True)) == ["a"]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the direct path is SQLite's")
def test_statements_sent_past_djangos_cursor_keep_its_errors_and_its_broken_transaction_check() -> None:
    """On SQLite the prepared statements go to the driver directly (no query logging here, none
    wrapped), yet a constraint still raises Django's IntegrityError, and a block marked for
    rollback refuses every further statement, as through Django's cursor."""
    from games.runtime import prepared

    assert prepared._direct(connection), "the test must run the direct path"
    table, hand, _ = started()
    insert = PreparedInsert(HandAction)
    row = [hand.pk, 951, 0, {"seat": 0, "kind": "pass"}, 1, timezone.now()]
    insert.rows([row])
    with pytest.raises(IntegrityError), transaction.atomic():
        insert.rows([row])
    with transaction.atomic():
        with pytest.raises(IntegrityError), transaction.atomic():  # a savepoint, rolled back
            insert.rows([row])
        assert HAND_WITH_TABLE(hand.pk)[0].seq == hand.seq  # the outer block goes on
    with pytest.raises(TransactionManagementError), transaction.atomic():
        transaction.set_rollback(True)  # a block marked broken (as the ORM marks one on its errors)
        HAND_WITH_TABLE(hand.pk)
    assert HandAction.objects.filter(hand=hand, seq=951).count() == 1


def test_plain_rows_insert_what_instances_would() -> None:
    """``rows``: the same rows as instances give, from tuples in ``field_names`` order (what the
    hand's step writes its logs with), and a row of the wrong length is refused before any SQL."""
    table, hand, _ = started()
    insert = PreparedInsert(HandEvent)
    assert insert.field_names == ["hand_id", "seq", "index", "kind", "event", "created_at"]
    now = timezone.now()
    insert.rows([(hand.pk, 960, i, "row", {"i": i, "t": "发"}, now) for i in range(2)])
    insert.rows([])
    got = list(HandEvent.objects.filter(hand=hand, seq=960).values_list("index", "kind", "event", "created_at"))
    assert got == [(0, "row", {"i": 0, "t": "发"}, now), (1, "row", {"i": 1, "t": "发"}, now)]
    with pytest.raises(ValueError, match="needs 6 values"):
        insert.rows([(hand.pk, 961, 0, "short")])
    assert not HandEvent.objects.filter(hand=hand, seq=961).exists()


@pytest.mark.parametrize("model", [Hand, HandAction, Seat, Table])
def test_the_quick_preparation_on_sqlite_gives_what_each_field_gives(model: Any) -> None:
    """The short cut for values already of their column's type (games.runtime.prepared) hands the
    driver exactly what the field's own get_db_prep_save would, and leaves every other value to it."""
    from datetime import UTC, datetime
    from datetime import timezone as dt_timezone
    from zoneinfo import ZoneInfo

    from games.runtime.prepared import _preparer, _sqlite_preparer

    assert connection.vendor == "sqlite"
    samples: list[Any] = [
        None, 0, 7, -3, 2**40, True, False, "", "text", "中文", "5", 3.5,
        datetime(2026, 12, 6, 15, 4, 5, 123456, tzinfo=UTC),
        datetime(2026, 12, 6, 15, 4, 5, tzinfo=UTC),
        datetime(2026, 12, 6, 23, 4, 5, tzinfo=ZoneInfo("Asia/Shanghai")),
        datetime(2026, 12, 6, 15, 4, 5, tzinfo=dt_timezone(timedelta(hours=1))),
        {"seat": 1, "do": "discard"}, [1, 2],
    ]  # fmt: skip
    for field in model._meta.concrete_fields:
        quick, own = _sqlite_preparer(field), _preparer(field)
        for value in samples:
            try:
                expected = own(value, connection)
            except Exception as exc:  # a value the field refuses is refused the same way
                with pytest.raises(type(exc)):
                    quick(value, connection)
                continue
            assert quick(value, connection) == expected and type(quick(value, connection)) is type(expected), (
                field.name,
                value,
            )
