"""听牌 hints at a live table (games/wire/hints.py): a table opts in; then the seat to act finds
``hand.hints`` in its state, computed from its own view; watchers, seats without a decision and
tables without hints get none; a table with hints is never rated and no tournament table has them."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from games import services
from games.engine.tiles import parse_tile, parse_tiles
from games.models import Table
from games.services.reads import render_for
from ratings.services import is_rated
from tests.platform.live_helpers import rigged
from tests.platform.test_create_form import defaults

pytestmark = pytest.mark.django_db


def four_people(prefix: str, hints: bool) -> tuple[Table, list[Any]]:
    User = get_user_model()
    users = [User.objects.create_user(f"{prefix}{i}", password="pw-123456") for i in range(4)]
    table = services.create_table(users[0], "zhejiang_caishen", {}, hands_total=1, hints=hints)
    for u in users:
        services.sit(table.pk, u)
    table.seats.update(ready=True)
    table.refresh_from_db()
    services.start_match(table, first_hand=rigged())  # GOLDEN: chair 0 is East, to discard
    table.refresh_from_db()
    return table, users


def state(table: Table, position: int | None) -> dict[str, Any]:
    return dict(render_for(table, list(table.seats.order_by("position")), position))


def test_the_seat_to_discard_gets_hints_from_its_own_view() -> None:
    table, _ = four_people("h", hints=True)
    east = state(table, 0)["hand"]
    found = east["hints"]
    assert found is not None and found["discards"], east
    # One row per kind East may discard, exactly the kinds of its own hand.
    legal = {a["tile"] for a in east["view"]["legal_actions"] if a["do"] == "discard"}
    assert [d["tile"] for d in found["discards"]] and {d["tile"] for d in found["discards"]} == legal
    assert {parse_tile(d["tile"]) for d in found["discards"]} <= set(parse_tiles(east["view"]["players"][0]["hand"]))
    assert found["distance"] == min(d["distance"] for d in found["discards"])
    # South has no decision while East discards: it gets no discard rows.
    south = state(table, 1)["hand"]["hints"]
    assert south is None or not south["discards"]


def test_watchers_and_tables_without_hints_get_none() -> None:
    table, _ = four_people("w", hints=True)
    assert state(table, None)["hand"]["hints"] is None  # a watcher
    plain, _ = four_people("p", hints=False)
    assert state(plain, 0)["hand"]["hints"] is None


def test_a_table_with_hints_is_never_rated() -> None:
    table, _ = four_people("r", hints=True)
    assert not is_rated(table)
    plain, _ = four_people("q", hints=False)
    assert is_rated(plain)


def test_no_tournament_table_has_hints() -> None:
    owner = get_user_model().objects.create_user("t0", password="pw-123456")
    with pytest.raises(services.Refused) as refused:
        services.create_table(owner, "zhejiang_caishen", {}, stake=0, score_only=True, hints=True)
    assert refused.value.code == "hints_not_in_tournaments"
    assert not Table.objects.exists()


def test_the_api_and_the_form_create_a_table_with_hints() -> None:
    user = get_user_model().objects.create_user("a0", password="pw-123456")
    c = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    c.force_authenticate(user)
    made = c.post("/api/tables/", {"variant": "zhejiang_caishen", "options": {}, "hints": True}, format="json")
    assert made.status_code == 201 and made.json()["hints"] is True
    assert Table.objects.get(pk=made.json()["id"]).hints
    c.force_login(user)
    page = c.post(
        "/tables/new/",
        {
            **defaults("zhejiang_caishen"),
            "variant": "zhejiang_caishen",
            "options_for": "zhejiang_caishen",
            "stake": 1,
            "hands_total": 1,
            "turn_seconds": 20,
            "claim_seconds": 8,
            "hints": "on",
        },
    )
    assert page.status_code == 302, page.content[:500]
    assert Table.objects.order_by("-pk").first().hints  # type: ignore[union-attr]


def test_a_fault_in_the_hints_loses_the_hint_not_the_move(monkeypatch: Any, caplog: Any) -> None:
    """The hints run inside the step's transaction: if they raise, the state still renders (no
    hint) and the discard goes through."""
    import games.wire.hints

    table, users = four_people("f", hints=True)

    def broken(view: Any, **_: Any) -> Any:
        raise RuntimeError("a bug in the hints")

    monkeypatch.setattr(games.wire.hints, "hints", broken)
    assert state(table, 0)["hand"]["hints"] is None
    assert "hints failed" in caplog.text
    hand = state(table, 0)["hand"]
    tile = next(a["tile"] for a in hand["view"]["legal_actions"] if a["do"] == "discard")
    assert services.submit(hand["id"], users[0], {"do": "discard", "tile": tile}, hand["seq"]) > hand["seq"]
    assert state(table, 0)["hand"]["seq"] > hand["seq"]
