"""A duplicate round's finished deal keeps its *outcome* secret while another table still plays
it: no reader outside the table that played it learns the winner, the winning tile, the kind,
the breakdown or the points — on any page or API, in statistics, standings or a watcher's
snapshot — and the table's own players see their result and the winner's hand, not the other
concealed hands.  Table 1's hand 1 is rigged so that East wins at once (天和), so the outcome
to keep back is a real win."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from games.engine.tiles import format_tiles
from games.models import Hand, HandStart
from games.records import disclosure
from games.runtime.process import runtime
from games.services import access
from games.wire import spectating
from tests.platform.rating_helpers import HEAVEN, act, deal
from tests.platform.test_duplicate_disclosure import Event, client_for, every_get_url, finish_hand, live_settings

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["live_settings"]  # the fixture, used here too

# Keys only a hand's result carries: while table 1's hand 1 is the only finished hand of the
# whole site, a response naming one of them shows that result.
RESULT_KEYS = ('"win_tile"', '"breakdown"', '"self_drawn"', '"win_kind"', "win_tile", "self_drawn")


def heaven_at_table_1(ev: Event) -> Hand:
    """Table 1's hand 1 re-dealt so that East holds a complete hand; East declares it."""
    row = ev.hand(ev.t1, 1)
    engine = deal(HEAVEN)
    engine.seed, engine.seed_hash = row.seed, row.seed_hash  # keep the round's commitment
    snapshot = engine.to_json()
    Hand.objects.filter(pk=row.pk).update(snapshot=snapshot)
    HandStart.objects.filter(hand=row).update(snapshot=snapshot)
    runtime().engines.clear()  # the engine the deal left in memory is not this one
    act(row, ev.at_t1[row.dealer_position], {"do": "win"})
    row.refresh_from_db()
    assert row.status == Hand.FINISHED and row.result["winner"] == "E", row.result
    return row


def body_of(res: Any) -> str:
    raw = b"".join(res.streaming_content) if res.streaming else res.content
    return raw.decode("utf-8", "replace")


def test_every_url_as_every_reader_while_the_deal_is_open_at_one_table() -> None:
    ev = Event()
    h1 = heaven_at_table_1(ev)
    assert ev.hand(ev.t2, 1).status == Hand.PLAYING and disclosure.withheld(h1)
    east = h1.dealer_position
    winner = ev.at_t1[east]
    hands_t1 = {wind: format_tiles(p.hand) for wind, p in zip("ESWN", deal(HEAVEN).players, strict=True)}

    ids = {"hands": [h.pk for h in Hand.objects.all()], "tables": [ev.t1.pk, ev.t2.pk], "tournaments": [ev.event.pk]}
    urls = every_get_url(ids) + [f"/api/players/{winner.get_username()}/stats/?variant=zhejiang_caishen"]
    readers = {
        "anonymous": None,
        "organiser": ev.organiser,
        "other-table player": ev.at_t2[0],
        "same-table player": ev.at_t1[(east + 1) % 4],
    }
    leaks: dict[str, list[str]] = {}
    for name, user in readers.items():
        c = client_for(user)
        for url in urls:
            text = body_of(c.get(url))
            found = []
            if name != "same-table player":
                found += [k for k in RESULT_KEYS if k in text]
            # South (the same-table reader) sees their own hand; West's and North's nobody.
            hidden = ("W", "N") if name == "same-table player" else ("S", "W", "N")
            found += [f"concealed {hands_t1[w]}" for w in hidden if hands_t1[w] in text]
            if found:
                leaks[f"{name} GET {url}"] = found
    assert leaks == {}

    # The numbers that would give the points away: standings, statistics, hand lists, scores.
    for user in (None, ev.organiser, ev.at_t2[0]):
        c = client_for(user)
        standings = json.loads(body_of(c.get(f"/tournaments/{ev.event.pk}/standings.json")))
        assert all(r["points"] == 0 and r["wins"] == 0 for r in standings["standings"])
        t1 = next(r for r in standings["results"] if r["table"] == 1)
        assert t1["hands"] == 1 and all(chair["points"] == 0 for chair in t1["chairs"])
        stats = c.get(f"/api/players/{winner.get_username()}/stats/?variant=zhejiang_caishen").json()
        assert (stats["hands"], stats["wins"], stats["biggest_hands"]) == (0, 0, []), stats
        listed = c.get(f"/api/tables/{ev.t1.pk}/hands/").json()
        assert [(h["id"], h["status"], h["deltas"]) for h in listed] == [(h1.pk, Hand.FINISHED, None)]
    ev.t1.refresh_from_db()
    assert set(ev.t1.scores.values()) != {0}  # the table's own scores count the win...
    watched = spectating.spectator_state(ev.t1)  # ...a watcher's leave it out
    assert set(watched["table"]["scores"].values()) == {0}
    assert watched["hand"]["view"]["result"] is None and watched["hand"]["deltas"] is None
    late = spectating.spectator_state(ev.t1, now=timezone.now() + timedelta(seconds=30), delay=3)
    assert set(late["table"]["scores"].values()) == {0} and late["hand"]["view"]["result"] is None

    # The same-table player: their result and the winner's hand; no other concealed hand.
    mine = access.state_for_reader(ev.t1, readers["same-table player"])["hand"]
    assert mine["view"]["result"]["winner"] == "E" and mine["deltas"] is not None
    assert set(mine["view"]["revealed"]) == {"E", mine["view"]["seat"]}
    # Their own hand list shows the deltas too.
    own_list = client_for(readers["same-table player"]).get(f"/api/tables/{ev.t1.pk}/hands/").json()
    assert own_list[0]["deltas"] is not None

    # Table 2 finishes hand 1: the outcome is public at once, everywhere.
    finish_hand(ev.t2, 1)
    assert disclosure.may_disclose(h1)
    anon = Client()
    assert anon.get(f"/api/hands/{h1.pk}/").json()["result"]["winner"] == "E"
    standings = json.loads(body_of(anon.get(f"/tournaments/{ev.event.pk}/standings.json")))
    assert any(r["wins"] == 1 for r in standings["standings"])
    assert spectating.spectator_state(ev.t1)["hand"]["view"]["result"]["winner"] == "E"
    assert set(spectating.spectator_state(ev.t1)["table"]["scores"].values()) != {0}
