"""Protocol v2: delta frames (games.wire.deltas) give every reader exactly its snapshots.

Real hands of all five rule sets are played through the live services by four people (random
legal choices), with a watcher at the table so the public frames are rendered too.  Every frame
the fan-out hands to the channel layer is kept, and after every step each reader's snapshot is
read as a reconnecting client would get it.  Then, for every reader and from every start seq:
the snapshot at that seq plus the frames that follow, applied in order, is the snapshot after
each later step — and no frame carries anything its reader's own snapshot does not.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import services
from games.engine.variants import all_variants
from games.models import Hand, Table
from games.runtime import fanout
from games.wire import spectating
from games.wire.deltas import VIEW_SNAPSHOT_ONLY, apply_delta, make_delta, state_of
from games.wire.frame_cache import FrameHistory, Received

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("instant_play")]

READERS: list[int | None] = [None, 0, 1, 2, 3]
MAX_STEPS = 600


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A state without the clock reading (milliseconds left, rendered at another moment).

    A new outer dict and hand dict only: the rest is shared with ``state``, only read."""
    out = state_of(state)
    if out.get("hand"):
        out["hand"] = {k: v for k, v in out["hand"].items() if k != "deadline_in_ms"}
    return out


def snapshot(table: Table, position: int | None) -> dict[str, Any]:
    table.refresh_from_db()
    if position is None:
        return dict(spectating.spectator_state(table, delay=0))
    state = services.reads.render_for(table, list(table.seats.all()), position)
    state["table"]["watchers"] = spectating.watcher_count(table.pk)
    return dict(state)


def group_of(table: Table, position: int | None) -> str:
    return fanout.public_group(table.pk) if position is None else fanout.seat_group(table.pk, position)


def play_one_hand(variant: str, seed: int, monkeypatch: Any) -> tuple[Table, dict[str, list[dict[str, Any]]], dict]:
    """Play one hand; returns the table, each group's frames in order, and the snapshots taken
    after every step: {(hand id, seq): {reader: state}}."""
    sent: dict[str, list[dict[str, Any]]] = {}

    def keep(messages: list[tuple[str, dict[str, Any]]]) -> None:
        for group, message in messages:
            if message.get("type") == "table.frame":
                sent.setdefault(group, []).append(message)

    monkeypatch.setattr(fanout, "_send_all", keep)
    User = get_user_model()
    users = [User.objects.create_user(f"v2{variant[:6]}{seed}{i}", password="pw-123456") for i in range(4)]
    table = services.create_table(users[0], variant, {}, hands_total=1)
    for u in users:
        services.sit(table.pk, u)
    spectating.watcher_joined(table.pk)
    for u in users:
        services.set_ready(table.pk, u)
    rng = random.Random(f"{variant}:{seed}")
    snapshots: dict[tuple[int, int], dict[int | None, dict[str, Any]]] = {}
    for _ in range(MAX_STEPS):
        table.refresh_from_db()
        if table.pre_hand:  # 买底 / 顶底 / 飘: everyone asked takes the default
            ph = services.reads.render_for(table, list(table.seats.all()), 0)["table"]["pre_hand"]
            for chair in ph["asked"]:
                if str(chair) not in ph["answers"]:
                    services.choose(table.pk, users[chair], ph["key"], ph["default"])
            continue
        row = Hand.objects.filter(table=table).order_by("-number").first()
        assert row is not None
        if (row.pk, row.seq) not in snapshots:
            snapshots[(row.pk, row.seq)] = {r: snapshot(table, r) for r in READERS}
        if row.status != Hand.PLAYING:
            break
        views = snapshots[(row.pk, row.seq)]
        movers = [c for c in range(4) if views[c]["hand"]["view"]["legal_actions"]]
        assert movers, f"nobody can act at seq {row.seq}"
        chair = rng.choice(movers)
        legal = views[chair]["hand"]["view"]["legal_actions"]
        wins = [a for a in legal if a["do"] == "win"]
        action = (wins or [rng.choice(legal)])[0] if rng.random() < 0.5 else rng.choice(legal)
        command = {k: v for k, v in action.items() if k != "seat"}
        services.submit(row.pk, users[chair], command, row.seq)
    else:
        pytest.fail(f"the hand did not end within {MAX_STEPS} steps")
    return table, sent, snapshots


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(v.key for v in all_variants()))
def test_snapshot_plus_deltas_is_every_later_snapshot(variant: str, monkeypatch: Any, settings: Any) -> None:
    settings.CAISHEN_SPECTATOR_DELAY = 0
    for seed in range(1, 6):  # a hand long enough to say something (抢金 can end one at once)
        table, sent, snapshots = play_one_hand(variant, seed, monkeypatch)
        steps = sorted(snapshots)
        if len(steps) > 10:
            break
    assert len(steps) > 10
    deltas = 0
    for reader in READERS:
        by_seq = {(m["hand"], m["seq"]): json.loads(m["text"]) for m in sent.get(group_of(table, reader), [])}
        expected = {key: comparable(snapshots[key][reader]) for key in steps}
        for start in steps:
            state = state_of(snapshots[start][reader])
            at = start
            for key in steps:
                if key <= start:
                    continue
                # Every step between the snapshots has its frame (one per step for each reader).
                for seq in range(at[1] + 1 if key[0] == at[0] else 1, key[1] + 1):
                    frame = by_seq.get((key[0], seq))
                    assert frame is not None, f"no frame for {reader} at {(key[0], seq)}"
                    if frame["type"] == "delta":
                        assert frame["hand_id"] == state["hand"]["id"] and frame["base"] == state["hand"]["seq"]
                        state = apply_delta(state, frame)
                        deltas += 1
                    else:
                        state = state_of(frame)
                at = key
                assert comparable(state) == expected[key], (reader, start, key)
    assert deltas > 0


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(v.key for v in all_variants()))
def test_no_delta_carries_what_its_readers_snapshot_does_not(variant: str, monkeypatch: Any, settings: Any) -> None:
    settings.CAISHEN_SPECTATOR_DELAY = 0
    table, sent, snapshots = play_one_hand(variant, 2, monkeypatch)
    for reader in READERS:
        for message in sent.get(group_of(table, reader), []):
            frame = json.loads(message["text"])
            after = snapshots.get((message["hand"], message["seq"]))
            if frame["type"] != "delta" or after is None:
                continue
            mine = state_of(after[reader])
            for key in ("table", "seats", "you"):
                if key in frame and key != "table":
                    assert frame[key] == mine[key]
            for key, value in frame["hand"].items():
                if key != "deadline_in_ms":
                    assert value == mine["hand"][key]
            for key, value in frame.get("view", {}).items():
                assert value == mine["hand"]["view"][key]
            for index, entry in frame.get("players", {}).items():
                assert entry == mine["hand"]["view"]["players"][int(index)]
                own = reader is not None and entry["seat"] == after[reader]["hand"]["view"]["seat"]
                if not own and "revealed" not in mine["hand"]["view"]:
                    assert entry["hand"] is None and entry.get("drawn") is None  # no concealed tile


def test_a_kept_answer_is_taken_away_by_the_next_delta() -> None:
    base = {"table": {}, "seats": [], "you": 0, "hand": {"id": 1, "seq": 4, "view": {"answered": "pass", "x": 1}}}
    new = {"table": {}, "seats": [], "you": 0, "hand": {"id": 1, "seq": 5, "view": {"x": 1}}}
    delta = make_delta(base, new)
    assert "answered" in VIEW_SNAPSHOT_ONLY and delta["drop"]["view"] == ["answered"]
    assert apply_delta(base, delta) == new
    # A client whose base came from a snapshot with the answer, while the writer's base had none.
    writer_base = {**base, "hand": {**base["hand"], "view": {"x": 1}}}
    assert apply_delta(base, make_delta(writer_base, new)) == new


def test_history_serves_a_gap_only_when_it_covers_it_for_that_reader() -> None:
    history = FrameHistory(frames=4)
    for seq in range(1, 7):
        history.record("g", Received(9, seq, seq - 1, f"f{seq}", 5))
    assert history.since("g", 9, 3, 5, 6) == ["f4", "f5", "f6"]
    assert history.since("g", 9, 1, 5, 6) is None  # f2 is no longer kept
    assert history.since("g", 9, 3, 7, 6) is None  # another reader's frames
    assert history.since("g", 9, 3, 5, 7) is None  # the newest step has not arrived yet
    assert history.since("g", 8, 3, 5, 6) is None  # another hand
    assert history.since("g", 9, 6, 5, 6) == []  # nothing missed
