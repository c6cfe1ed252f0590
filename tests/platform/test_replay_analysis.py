"""The engine's analysis of finished hands on the platform: in the JSON-lines replay (additively:
old replays still load, and ``load`` never trusts what the file says about it), through
``/api/hands/<pk>/analysis/`` (the replay's access rules, cached per hand) and on the replay page."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

from games.engine.insight import analysis as analysis_module
from games.models import Hand
from games.records import replay
from tests.platform.test_replay import bot_match

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("instant_play")]


@pytest.fixture
def owner() -> Any:
    return get_user_model().objects.create_user("analyst", password="pw-123456")


@pytest.fixture
def row(owner: Any) -> Hand:
    cache.clear()
    return Hand.objects.get(table=bot_match(owner, "zhejiang_caishen"))


def lines_of(row: Hand, **kw: Any) -> list[dict[str, Any]]:
    return [json.loads(t) for t in replay.export_lines(row, **kw)]


def test_the_export_carries_each_decisions_judgement_and_the_summary(row: Hand) -> None:
    lines = lines_of(row)
    actions = [d for d in lines if d["type"] == "action"]
    judged = [d for d in actions if "analysis" in d]
    assert judged and len(judged) < len(actions)  # the passes with nothing to claim are no decision
    for d in judged:
        a = d["analysis"]
        assert a["n"] == d["n"] and a["action"]["seat"] == d["action"]["seat"]
        assert a["decision"] in ("turn", "claim") and isinstance(a["clear_mistake"], bool)
        assert 1 <= len(a["best"]) <= 3
        if a["action"]["do"] == "discard":
            assert a["action"]["tile"] == d["action"]["tile"]
    end = lines[-1]
    assert end["type"] == "end" and [s["seat"] for s in end["summary"]] == list("ESWN")
    for s in end["summary"]:
        mine = [d for d in judged if d["analysis"]["seat"] == s["seat"]]
        assert s["decisions"] == len(mine)
        assert s["clear_mistakes"] == sum(d["analysis"]["clear_mistake"] for d in mine)
    # The same analysis the loaded replay recomputes from its validated actions.
    text = "\n".join(json.dumps(d) for d in lines)
    again = replay.loads(text).analyse().to_json()
    assert again["summary"] == end["summary"]
    assert [j["n"] for j in again["judgements"]] == [d["n"] for d in judged]


def test_load_accepts_replays_with_and_without_the_analysis_and_never_trusts_it(row: Hand) -> None:
    new = lines_of(row)
    old = lines_of(row, with_analysis=False)
    assert all("analysis" not in d for d in old) and "summary" not in old[-1]
    assert old[0]["format"] == new[0]["format"] == replay.FORMAT
    for lines in (new, old):
        loaded = replay.load(json.dumps(d) for d in lines)
        assert loaded.final is not None and loaded.final.result is not None
    # An old replay: the analysis is recomputed, the same as the export's.
    recomputed = replay.load(json.dumps(d) for d in old).analyse().to_json()
    assert recomputed["summary"] == new[-1]["summary"]
    # A made-up analysis is no reason to refuse, and changes nothing the loader gives back.
    forged = [dict(d) for d in new]
    for d in forged:
        if "analysis" in d:
            d["analysis"] = {"clear_mistake": "yes", "best": 7}
    forged[-1]["summary"] = "everyone played perfectly"
    loaded = replay.load(json.dumps(d) for d in forged)
    assert loaded.analyse().to_json()["summary"] == new[-1]["summary"]


def test_the_analysis_endpoint(owner: Any, row: Hand) -> None:
    client = Client()
    got = client.get(f"/api/hands/{row.pk}/analysis/")
    assert got.status_code == 200, got.content
    body = got.json()
    assert body["hand"] == row.pk and body["variant"] == "zhejiang_caishen"
    assert [s["seat"] for s in body["summary"]] == list("ESWN")
    lines = lines_of(row)
    assert body["judgements"] == [d["analysis"] for d in lines if "analysis" in d]
    assert body["summary"] == lines[-1]["summary"]
    # Refused as the replay is: a running hand 403, no such hand 404.
    Hand.objects.filter(pk=row.pk).update(status=Hand.PLAYING)
    refused = client.get(f"/api/hands/{row.pk}/analysis/")
    assert refused.status_code == 403 == client.get(f"/api/hands/{row.pk}/replay.jsonl").status_code
    assert refused.json()["detail"] == client.get(f"/api/hands/{row.pk}/replay.jsonl").json()["detail"]
    assert client.get("/api/hands/999999/analysis/").status_code == 404
    Hand.objects.filter(pk=row.pk).update(status=Hand.FINISHED)
    assert client.get(f"/api/hands/{row.pk}/").json()["analysis"] == f"/api/hands/{row.pk}/analysis/"


def test_a_private_tables_analysis_needs_the_room_code(owner: Any) -> None:
    table = bot_match(owner, "wenzhou", is_private=True)
    row = Hand.objects.get(table=table)
    client = Client()
    assert client.get(f"/api/hands/{row.pk}/analysis/").status_code == 404
    client.post("/api/tables/join/", {"room_code": table.room_code}, content_type="application/json")
    assert client.get(f"/api/hands/{row.pk}/analysis/").status_code == 200


def test_the_analysis_is_computed_once_per_hand(row: Hand, monkeypatch: Any) -> None:
    calls = []
    real = analysis_module.analyse

    def counting(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(replay, "analyse", counting)
    client = Client()
    first = client.get(f"/api/hands/{row.pk}/analysis/").json()
    assert client.get(f"/api/hands/{row.pk}/analysis/").json() == first
    assert client.get(f"/api/hands/{row.pk}/replay.jsonl").status_code == 200
    assert client.get(f"/hands/{row.pk}/replay/").status_code == 200
    assert len(calls) == 1


def test_the_replay_page_carries_the_judgements_and_the_summary(row: Hand) -> None:
    data = replay.viewer_frames(replay.export_text(row), replay.analysis_json(row))
    judged = [j for f in data["frames"] for j in f["judgements"]]
    assert judged == replay.analysis_json(row)["judgements"]
    assert data["frames"][0]["judgements"] == []
    for f in data["frames"]:
        assert {j["n"] for j in f["judgements"]} <= set(range(1, f["n"] + 1))
    assert [s["seat"] for s in data["summary"]] == list("ESWN")
    # Without the cached analysis it is recomputed from the replay, to the same.
    assert replay.viewer_frames(replay.export_text(row))["summary"] == data["summary"]
    page = Client().get(f"/hands/{row.pk}/replay/").content.decode()
    assert '"summary"' in page and '"judgements"' in page


def test_a_failing_analysis_leaves_the_replay_whole(row: Hand, owner: Any, monkeypatch: Any, caplog: Any) -> None:
    """The analysis is an extra: when it raises, the replay still exports (without judgements)
    and loads, and its page still opens."""

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("a bug in the analysis")

    monkeypatch.setattr(replay, "analyse", broken)
    lines = lines_of(row)
    assert not any("analysis" in d for d in lines) and "summary" not in lines[-1]
    assert replay.loads("\n".join(json.dumps(d) for d in lines)).steps
    assert "the analysis of hand" in caplog.text
    client = Client()
    client.force_login(owner)
    assert client.get(f"/hands/{row.pk}/replay/").status_code == 200
