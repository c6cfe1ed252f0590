"""The admission monitor's utilisation sign: the database thread's share of the time spent
running calls (games/runtime/dbqueue.py measures it, games/runtime/saturation.py decides by it).

A thread busy 85 % of the time still answers each step within the latency sign on average,
while every burst of steps arriving together queues: past ``busy`` the process refuses new
tables even when the mean step latency looks fine."""

from __future__ import annotations

import dataclasses
import queue
from typing import Any

import pytest

from games.runtime.dbqueue import LanedQueue, urgent
from games.runtime.saturation import SaturationMonitor, Thresholds
from games.runtime.table_steps import TableSteps


class Clock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


def test_the_queue_counts_the_time_between_handing_a_call_out_and_the_next_ask() -> None:
    clock = Clock()
    work = LanedQueue(clock=clock)
    work.put("a")
    with urgent():
        work.put("b")
    assert work.get() == "b" and work.busy_seconds() == 0.0  # urgent first; just handed out
    clock.now += 0.25
    assert work.busy_seconds() == pytest.approx(0.25)  # the running call counts as it runs
    assert work.get() == "a"  # the worker asks again: "b" ran 0.25 s
    clock.now += 0.5
    work.put("c")
    assert work.get() == "c"
    assert work.busy_seconds() == pytest.approx(0.75)
    clock.now += 1.0  # the worker then waits: an empty queue's wait is not busy time
    with pytest.raises(queue.Empty):
        work.get(block=False)
    clock.now += 3.0
    assert work.busy_seconds() == pytest.approx(1.75)


class Busy:
    """The database thread's busy seconds, driven by the test: ``share`` of each second."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.share = 0.0
        self.total = 0.0
        self.at = clock.now

    def __call__(self) -> float:
        self.total += (self.clock.now - self.at) * self.share
        self.at = self.clock.now
        return self.total


def monitor(clock: Clock, source: Busy, **kw: Any) -> SaturationMonitor:
    thresholds = dataclasses.replace(
        Thresholds(step_ms=20.0, depth=100.0, busy=0.7, window_s=2.0, probe_s=0.1, onset_s=0.0), **kw
    )
    return SaturationMonitor(thresholds, clock=clock, cpu=lambda: 0.0, steps=TableSteps(clock), busy=source)


def run(m: SaturationMonitor, clock: Clock, seconds: float, steps_running: bool = True) -> None:
    """Probe every 100 ms for ``seconds``; with tables running, one quick step (2 ms) per probe."""
    for _ in range(round(seconds / 0.1)):
        if steps_running:
            token = m.steps.begin()
            clock.now += 0.002
            m.steps.end(token)
            clock.now += 0.098
        else:
            clock.now += 0.1
        m.observe()


def test_a_busy_database_thread_closes_admission_while_steps_are_quick() -> None:
    clock = Clock()
    busy = Busy(clock)
    m = monitor(clock, busy)
    busy.share = 0.5
    run(m, clock, 10)
    assert not m.overloaded and m.busy == pytest.approx(0.5, abs=0.02) and m.step_ms < 20
    busy.share = 0.9
    run(m, clock, 10)
    assert m.overloaded and m.busy > 0.85 and m.step_ms < 20  # the latency alone would admit
    assert m.state()["db_busy"] == pytest.approx(m.busy, abs=0.01)
    busy.share = 0.4
    run(m, clock, 10)
    assert not m.overloaded


def test_the_sign_follows_the_share_over_the_window_not_one_probe() -> None:
    clock = Clock()
    busy = Busy(clock)
    m = monitor(clock, busy)
    busy.share = 0.3
    run(m, clock, 10)
    busy.share = 1.0
    run(m, clock, 0.2)  # two probes of a fully busy thread: a burst, not a saturated thread
    assert not m.overloaded and m.busy < 0.7


def test_without_running_tables_or_with_the_sign_off_nothing_is_refused() -> None:
    clock = Clock()
    busy = Busy(clock)
    busy.share = 1.0  # snapshots for watchers, say, with no table playing
    idle = monitor(clock, busy)
    run(idle, clock, 10, steps_running=False)
    assert idle.busy > 0.9 and not idle.overloaded
    off = monitor(clock, busy, busy=0.0)
    run(off, clock, 10)
    assert off.busy > 0.9 and not off.overloaded


def test_the_threshold_comes_from_the_environment() -> None:
    from core.config import CaishenConfig

    config = CaishenConfig.from_environment({"CAISHEN_OVERLOAD_BUSY": "0.55"})
    assert Thresholds.from_config(config).busy == 0.55
    assert Thresholds.from_config(CaishenConfig.from_environment({})).busy == 0.5
    assert Thresholds.from_config(CaishenConfig.from_environment({"CAISHEN_OVERLOAD_BUSY": "3"})).busy == 1.0
