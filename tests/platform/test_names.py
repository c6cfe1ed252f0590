"""Table frames name the players from a short-lived cache (games/wire/names.py), never a stale one here."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games.wire.names import display_names

pytestmark = pytest.mark.django_db


def test_names_are_read_once_then_served_from_memory(django_assert_num_queries: Any) -> None:
    User = get_user_model()
    ann, bo = User.objects.create_user("ann"), User.objects.create_user("bo")
    ann.profile.display_name = "安"
    ann.profile.save()
    with django_assert_num_queries(1):
        assert display_names([ann.pk, bo.pk, None]) == {ann.pk: "安", bo.pk: "bo"}
    with django_assert_num_queries(0):
        assert display_names([ann.pk, bo.pk]) == {ann.pk: "安", bo.pk: "bo"}


def test_a_renamed_player_is_shown_by_the_new_name() -> None:
    User = get_user_model()
    ann = User.objects.create_user("ann")
    assert display_names([ann.pk]) == {ann.pk: "ann"}
    ann.profile.display_name = "Ann L."
    ann.profile.save()
    assert display_names([ann.pk]) == {ann.pk: "Ann L."}
    ann.profile.display_name = ""
    ann.profile.save()
    ann.username = "annie"
    ann.save()
    assert display_names([ann.pk]) == {ann.pk: "annie"}


def test_one_due_name_reads_the_tables_names_again_together(
    django_assert_num_queries: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table's names fall due together: when one is due, all of the step's are read again in
    the same query, so the others are not each read on a later step."""
    from games.wire import names

    User = get_user_model()
    players = [User.objects.create_user(f"p{i}") for i in range(4)]
    ids = [p.pk for p in players]
    clock = [1000.0]
    monkeypatch.setattr(names.time, "monotonic", lambda: clock[0])
    names.forget()
    display_names(ids[:1])  # one name read first, on its own
    clock[0] += names.TTL / 2
    with django_assert_num_queries(1):  # the other three are missing: all four read together
        assert display_names(ids) == {p.pk: p.username for p in players}
    clock[0] += names.TTL / 2 + 1  # the first name's first reading is old now: it was read again
    with django_assert_num_queries(0):
        display_names(ids)
    clock[0] += names.TTL / 2  # all four due together
    with django_assert_num_queries(1):
        display_names(ids)
