"""The process's state in one object (games/runtime/process.py): one per process, reset in place."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Profile
from games.engine import new_hand
from games.runtime.process import runtime
from games.wire.frame_cache import Received
from games.wire.names import display_names


def test_every_thread_gets_the_one_object() -> None:
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(runtime())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and all(found is runtime() for found in seen)


def test_reset_forgets_in_place_and_keeps_the_start_up_wiring() -> None:
    process = runtime()
    engines, history, monitor = process.engines, process.history, process.monitor
    settle_later = process.connected.settle_later
    engines.put(7, 3, "seed", new_hand("zhejiang_caishen", seed="s"))
    history.record("table.1.seat.0", Received(7, 3, None, "{}", 1))
    process.last_states.remember("table.1.public", 7, 3, {"seq": 3})
    process.snapshots["connect"] += 1
    process.emotes[(1, 0)].append(1.0)
    token = process.steps.begin()
    monitor.overloaded = True

    process.reset()

    assert process.engines is engines and process.history is history and process.monitor is monitor
    assert engines.peek(7, 3, "seed") is None
    assert history.since("table.1.seat.0", 7, 2, 1, 3) is None
    assert process.last_states.base("table.1.public", 7, 3) is None
    assert not process.snapshots and not process.emotes
    assert not monitor.overloaded and process.steps.reading(2.0).waiting == 0
    process.steps.end(token)  # a step from before the reset ends: nothing to count
    assert process.steps.reading(2.0).finished == 0
    assert process.connected.settle_later is settle_later  # wired once at start-up, never forgotten


@pytest.mark.django_db
def test_reset_forgets_the_players_names() -> None:
    """The wire's own caches (below the runtime's room) are forgotten too."""
    ann = get_user_model().objects.create_user("ann")
    assert display_names([ann.pk]) == {ann.pk: "ann"}
    Profile.objects.filter(user=ann).update(display_name="安")  # no signal: the cache keeps "ann"
    assert display_names([ann.pk]) == {ann.pk: "ann"}
    runtime().reset()
    assert display_names([ann.pk]) == {ann.pk: "安"}
