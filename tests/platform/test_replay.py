"""Replays (games/records/replay.py): export a finished hand as JSON lines, import it with full
re-validation by the engine, refuse corrupted logs with the line and the reason."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import services
from games.engine.tiles import parse_tiles
from games.engine.variants import all_variants, get_variant
from games.models import Hand, HandAction, Table
from games.records import replay

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("instant_play")]

HANDS_PER_VARIANT = 6


@pytest.fixture
def owner() -> Any:
    return get_user_model().objects.create_user("organiser", password="pw-123456")


def bot_match(owner: Any, variant: str, hands: int = 1, is_private: bool = False) -> Table:
    """A table of four bots; with no bot delay every hand plays out inside the service calls."""
    table = services.create_table(owner, variant, {}, hands_total=hands, is_private=is_private)
    services.add_bots(table.pk, owner)
    table.refresh_from_db()
    while table.status == Table.PLAYING:
        row = services.current_hand(table)
        assert row is not None and row.status == Hand.FINISHED, "bots alone finish a hand in one step"
        Hand.objects.filter(pk=row.pk).update(deadline_at=row.deadline_at.replace(year=2000))
        services.wake("hand", row.pk, row.seq)
        table.refresh_from_db()
    return table


@pytest.mark.slow
def test_round_trip_over_random_bot_hands_of_every_rule_set(owner: Any) -> None:
    keys = [v.key for v in all_variants()]
    assert len(keys) >= 5
    for key in keys:
        table = bot_match(owner, key, hands=HANDS_PER_VARIANT)
        rows = list(table.hands.order_by("number"))
        assert len(rows) == HANDS_PER_VARIANT
        for row in rows:
            text = replay.export_text(row)
            lines = text.splitlines()
            header = json.loads(lines[0])
            assert header["variant"] == key and header["seed"] == row.seed
            assert header["seed_hash"] == row.seed_hash
            loaded = replay.loads(text)
            assert len(loaded.steps) == HandAction.objects.filter(hand=row).count()
            assert loaded.final is not None and loaded.final.result is not None
            assert loaded.final.result.to_json() == row.result
            # Every tile in the log is in the CONTRACT notation.
            for line in lines[1:]:
                data = json.loads(line)
                if data["type"] == "action" and "tile" in data["action"]:
                    parse_tiles(data["action"]["tile"])


def rigged_hand() -> Any:
    golden = {
        "E": "6s 1m 1m 4p 5p 7p 8p 1s 2s E S W N C",
        "S": "234m 567m 999p 55s 3p 8s",
        "W": "C 3p 6s S 8p 9s 6p 4m 7s 6s 6m 1s E",
        "N": "2p 5m E 2m 5s 4p 4p 7m 8s 3p 9s 9s 8m",
    }
    return get_variant("zhejiang_caishen").rigged_hand(
        [parse_tiles(golden[s]) for s in "ESWN"], parse_tiles("3m")[0], [], []
    )


def test_a_rigged_hand_without_seed_round_trips_from_its_initial_snapshot(owner: Any) -> None:
    table = services.create_table(owner, "zhejiang_caishen", {}, hands_total=1)
    for s in table.seats.all():
        s.is_bot, s.ready = True, True
        s.save()
    services.start_match(table, first_hand=rigged_hand())
    row = Hand.objects.get(table=table)
    assert row.status == Hand.FINISHED and not row.seed
    loaded = replay.loads(replay.export_text(row))
    assert loaded.header["seed"] is None
    assert loaded.steps and sorted(parse_tiles(loaded.header["hands"]["S"])) == sorted(
        parse_tiles("234m 567m 999p 55s 3p 8s")
    )


@pytest.fixture
def exported(owner: Any) -> list[str]:
    table = bot_match(owner, "zhejiang_caishen")
    return replay.export_lines(Hand.objects.get(table=table))


def refused(lines: list[str]) -> replay.ReplayError:
    with pytest.raises(replay.ReplayError) as info:
        replay.load(lines)
    return info.value


def first(lines: list[str], kind: str, **match: Any) -> int:
    for i, text in enumerate(lines):
        data = json.loads(text)
        if data["type"] == kind and all(data.get(k) == v for k, v in match.items()):
            return i
    raise AssertionError(kind)


def test_corrupted_logs_are_refused_with_line_and_reason(exported: list[str]) -> None:
    # Not JSON.
    bad = [*exported]
    bad[3] = "{oops"
    err = refused(bad)
    assert err.line == 4 and "not JSON" in err.reason
    # A discard changed to a tile the seat does not hold (or another tile: the engine refuses
    # it or its events disagree).
    i = first(exported, "action")
    data = json.loads(exported[i])
    bad = [*exported]
    data["action"]["do"] = "win"
    data["action"].pop("tile", None)
    bad[i] = json.dumps(data)
    err = refused(bad)
    assert err.line == i + 1 and "illegal action" in err.reason
    # An event tampered with: the tile drawn is not the wall's.
    j = next(
        k
        for k, t in enumerate(exported)
        if json.loads(t)["type"] == "event" and json.loads(t)["event"]["kind"] == "draw"
    )
    data = json.loads(exported[j])
    data["event"]["private"]["tile"] = "9m" if data["event"]["private"]["tile"] != "9m" else "8m"
    bad = [*exported]
    bad[j] = json.dumps(data)
    err = refused(bad)
    assert err.line == j + 1 and "differs from the engine" in err.reason
    # A dropped event line.
    bad = exported[:j] + exported[j + 1 :]
    err = refused(bad)
    assert err.line == j + 1
    # A truncated log.
    err = refused(exported[:-1])
    assert "no end line" in err.reason
    # Another seed: the wall no longer matches.
    header = json.loads(exported[0])
    header["seed"] = header["initial"]["seed"] = "0" * 32
    err = refused([json.dumps(header), *exported[1:]])
    assert err.line == 1 and "hash" in err.reason
    # A wall edited in the snapshot (hash and seed untouched).
    header = json.loads(exported[0])
    header["initial"]["wall"]["tiles"] = list(reversed(header["initial"]["wall"]["tiles"]))
    err = refused([json.dumps(header), *exported[1:]])
    assert err.line == 1 and "seed does not deal" in err.reason
    # The result rewritten.
    end = json.loads(exported[-1])
    end["result"]["deltas"] = {"E": 1000, "S": -1000, "W": 0, "N": 0}
    err = refused([*exported[:-1], json.dumps(end)])
    assert err.line == len(exported) and "result" in err.reason


def test_replay_api_serves_finished_hands_only(owner: Any) -> None:
    table = bot_match(owner, "wenzhou")
    row = Hand.objects.get(table=table)
    client = Client()
    got = client.get(f"/api/hands/{row.pk}/replay.jsonl")
    assert got.status_code == 200
    assert got["Content-Type"].startswith("application/jsonl") or got["Content-Type"].startswith("application/x-ndjson")
    assert "attachment" in got["Content-Disposition"]
    replay.loads(got.content.decode())
    record = client.get(f"/api/hands/{row.pk}/").json()
    assert record["replay_url"] == f"/hands/{row.pk}/replay/"
    assert record["replay_jsonl"] == f"/api/hands/{row.pk}/replay.jsonl"
    # A running hand answers 403.
    Hand.objects.filter(pk=row.pk).update(status=Hand.PLAYING)
    assert client.get(f"/api/hands/{row.pk}/replay.jsonl").status_code == 403
    assert client.get("/api/hands/999999/replay.jsonl").status_code == 404


def test_private_tables_replays_need_the_room_code(owner: Any) -> None:
    table = bot_match(owner, "zhejiang_caishen", is_private=True)
    row = Hand.objects.get(table=table)
    client = Client()
    assert client.get(f"/api/hands/{row.pk}/replay.jsonl").status_code == 404
    assert client.get(f"/hands/{row.pk}/replay/").status_code == 404
    client.post("/api/tables/join/", {"room_code": table.room_code}, content_type="application/json")
    assert client.get(f"/api/hands/{row.pk}/replay.jsonl").status_code == 200
    assert client.get(f"/hands/{row.pk}/replay/").status_code == 200


def test_replay_page_carries_frames(owner: Any) -> None:
    table = bot_match(owner, "dongbei")
    row = Hand.objects.get(table=table)
    page = Client().get(f"/hands/{row.pk}/replay/")
    assert page.status_code == 200
    body = page.content.decode()
    assert 'id="replay-data"' in body and "replay/replay.js" in body
    frames = replay.viewer_frames(replay.export_text(row))["frames"]
    assert frames[0]["n"] == 0 and frames[-1]["state"]["result"] == row.result


def test_the_check_endpoint_revalidates_an_uploaded_replay(exported: list[str]) -> None:
    client = Client(enforce_csrf_checks=False)
    text = "\n".join(exported) + "\n"
    ok = client.post("/api/replays/check/", text, content_type="application/jsonl")
    assert ok.status_code == 200, ok.content
    assert ok.json()["valid"] and ok.json()["variant"] == "zhejiang_caishen"
    bad = client.post("/api/replays/check/", "\n".join(exported[:-1]), content_type="application/jsonl")
    assert bad.status_code == 400 and bad.json()["line"] == len(exported)
