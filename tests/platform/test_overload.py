"""Overload: the admission monitor (the running tables' step latency and queue), the refusal of
new tables and matches past it, its prompt recovery, running matches untouched, and timer steps
ahead of socket work."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any
from unittest.mock import patch

import pytest
from asgiref.sync import SyncToAsync
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from core.config import CaishenConfig
from games import services
from games.engine.variants import get_variant
from games.models import Hand, Table
from games.runtime import dbqueue
from games.runtime.process import runtime, table_step
from games.runtime.saturation import SaturationMonitor, Thresholds
from games.runtime.table_steps import TableSteps
from games.services.overload import Overloaded
from tests.polling import wait_until_async

VARIANT = "zhejiang_caishen"
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
BUSY_EN = "The server is busy and is not starting new tables or matches for now."
BUSY_ZH = "服务器正忙，暂不开新桌、不开新局"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeCpu:
    """The process's CPU seconds: ``share`` of a core since the clock started (shown, never used)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock, self.share, self.start = clock, 0.0, clock.now

    def __call__(self) -> float:
        return (self.clock.now - self.start) * self.share


TICK = 0.01  # the simulated table steps' clock resolution (s); the probe reads every ten ticks


def monitor(**kw: Any) -> tuple[SaturationMonitor, FakeClock]:
    """A monitor with its own table steps, on a fake clock the test drives (``play``, ``idle``)."""
    clock = FakeClock()
    # No onset unless a test asks for one: these tests are about the signs themselves.
    settings = {"step_ms": 75.0, "depth": 100.0, "window_s": 2.0, "probe_s": 0.1, "onset_s": 0.0} | kw
    m = SaturationMonitor(
        Thresholds(**settings), clock=clock, depth=lambda: 0, cpu=FakeCpu(clock), steps=TableSteps(clock)
    )
    return m, clock


def play(m: SaturationMonitor, clock: FakeClock, latency_ms: float, seconds: float, per_tick: int = 2) -> None:
    """``seconds`` of running tables: ``per_tick`` table steps handed to the database thread every
    10 ms (200 a second by default), each answered ``latency_ms`` later; the probe reads every
    100 ms.  The steps still out at the end are answered on time (the clock moves on for them)."""
    out: list[tuple[float, int]] = []  # (due, token)

    def answer_due() -> None:
        while out and out[0][0] <= clock.now + 1e-9:
            m.steps.end(out.pop(0)[1])

    for tick in range(round(seconds / TICK)):
        clock.now += TICK
        out.extend((clock.now + latency_ms / 1000, m.steps.begin()) for _ in range(per_tick))
        answer_due()
        if tick % 10 == 9:
            m.observe(0.0)
    while out:
        clock.now = max(clock.now, out[0][0])
        answer_due()


def idle(m: SaturationMonitor, clock: FakeClock, seconds: float, lag_ms: float = 0.0) -> None:
    """``seconds`` with no table step: only the probe's readings."""
    for _ in range(round(seconds / 0.1)):
        clock.now += 0.1 + lag_ms / 1000
        m.observe(lag_ms / 1000)


# ----------------------------------------------------------------------- the monitor
def test_tables_served_on_time_are_not_overloaded() -> None:
    m, clock = monitor()
    play(m, clock, latency_ms=20, seconds=30)
    assert not m.overloaded and m.running and 19 < m.step_ms < 21


def test_an_idle_process_refuses_nothing_whatever_its_cpu_and_loop_say() -> None:
    """No table runs: four sign-ups' password hashing (a full core), a late loop — nothing is
    refused; the figures are still shown."""
    m, clock = monitor()
    m.cpu_source.share = 1.0  # type: ignore[attr-defined]
    idle(m, clock, seconds=20, lag_ms=400)
    assert not m.overloaded and not m.running and m.step_ms == 0
    assert m.cpu > 0.9 and m.lag_ms > 300


def test_a_few_slow_steps_are_not_saturation() -> None:
    m, clock = monitor()
    play(m, clock, latency_ms=20, seconds=5)
    play(m, clock, latency_ms=600, seconds=0.1)  # a collector pause
    play(m, clock, latency_ms=20, seconds=0.5)
    assert not m.overloaded


def test_slow_table_steps_turn_it_on_within_the_window() -> None:
    m, clock = monitor()
    play(m, clock, latency_ms=20, seconds=5)
    play(m, clock, latency_ms=300, seconds=0.3)
    assert not m.overloaded  # a third of a second of it is not yet saturation
    play(m, clock, latency_ms=300, seconds=2)
    assert m.overloaded and m.step_ms > 75


def test_a_stalled_database_thread_counts_before_its_steps_are_answered() -> None:
    """The tables go on handing steps over, the database thread answers none for a second: the
    waiting steps count by their age so far, before any of them comes back."""
    m, clock = monitor(depth=0)  # the latency alone
    play(m, clock, latency_ms=10, seconds=3)
    waiting = []
    for tick in range(100):
        clock.now += TICK
        waiting += [m.steps.begin(), m.steps.begin()]
        if tick % 10 == 9:
            m.observe(0.0)
    assert m.overloaded and m.running and m.step_ms > 75 and m.depth == 200
    for token in waiting:
        m.steps.end(token)


def test_a_deep_queue_of_table_steps_alone_turns_it_on() -> None:
    m, clock = monitor()
    tokens = [m.steps.begin() for _ in range(150)]  # just handed over: their wait is still short
    m.observe(0.0)
    assert m.overloaded and m.depth == 150 and m.step_ms < 75
    for token in tokens:
        m.steps.end(token)


def test_a_sign_must_hold_for_the_onset_before_anything_is_refused() -> None:
    """A queue deep for one probe, then gone (a sign hovering at its threshold): nothing refused.
    Deep for the whole onset: refused from then on; back under: admitted at the next probe."""
    m, clock = monitor(onset_s=0.5, step_ms=0)  # the queue alone: its steps end when told
    blip = [m.steps.begin() for _ in range(150)]
    m.observe(0.0)
    assert not m.overloaded  # over, but not yet for the onset
    for token in blip:
        m.steps.end(token)
    clock.now += 0.1
    m.observe(0.0)
    assert not m.overloaded and m._over_since is None  # the blip is forgotten
    held = [m.steps.begin() for _ in range(150)]
    readings = []
    for _ in range(7):
        m.observe(0.0)
        readings.append(m.overloaded)
        clock.now += 0.1
    assert readings == [False] * 5 + [True] * 2  # on at 0.5 s, not before
    for token in held:
        m.steps.end(token)
    m.observe(0.0)
    assert not m.overloaded


def test_recovery_is_prompt_once_the_steps_are_fast_again() -> None:
    """No memory past the window: the first reading whose steps are back under the threshold
    admits again — well within a refusal's Retry-After."""
    m, clock = monitor()
    play(m, clock, latency_ms=500, seconds=4)
    assert m.overloaded
    start = clock.now
    while m.overloaded:
        play(m, clock, latency_ms=10, seconds=0.1)
    assert clock.now - start <= m.thresholds.window_s + 0.2 < m.thresholds.retry_after_s


def test_when_the_tables_stop_nothing_is_refused_any_more() -> None:
    m, clock = monitor()
    play(m, clock, latency_ms=500, seconds=4)
    assert m.overloaded
    idle(m, clock, seconds=m.thresholds.window_s + 0.1)
    assert not m.overloaded and not m.running


def test_a_probe_that_stopped_measuring_refuses_nothing() -> None:
    """Overloaded as last measured, but its loop has closed (or it has been silent for a
    minute): the state is not the process's any more and nothing is refused."""
    steps = TableSteps()
    m = SaturationMonitor(Thresholds(step_ms=100, depth=0, window_s=0.5, probe_s=0.01, onset_s=0), steps=steps)
    loop = asyncio.new_event_loop()
    try:
        m.bind(loop)
        token = steps.begin()  # a step that never comes back
        loop.run_until_complete(wait_until_async(lambda: m.overloaded, timeout=10))
        assert m.overloaded and m.refusing()
        steps.end(token)
    finally:
        loop.close()
    assert m.overloaded and not m.refusing() and not m.serving()
    hand_set = SaturationMonitor(Thresholds())
    hand_set.overloaded = True  # never bound (as the tests' own monitors): taken as it is
    assert hand_set.refusing()


def test_thresholds_come_from_the_environment() -> None:
    env = {
        "CAISHEN_OVERLOAD_STEP_MS": "120",
        "CAISHEN_OVERLOAD_QUEUE": "0",
        "CAISHEN_OVERLOAD_RETRY_AFTER": "12",
        "CAISHEN_OVERLOAD_WINDOW": "3",
        "CAISHEN_OVERLOAD_PROBE_MS": "50",
        "CAISHEN_OVERLOAD_ONSET_MS": "250",
    }
    t = Thresholds.from_config(CaishenConfig.from_environment(env))
    assert (t.step_ms, t.depth, t.retry_after_s, t.window_s, t.probe_s, t.onset_s) == (120, 0, 12, 3, 0.05, 0.25)
    assert Thresholds.from_config(CaishenConfig.from_environment({})) == Thresholds()  # the same defaults
    # Out of range is the nearest bound, as the monitor always took it.
    clamped = Thresholds.from_config(
        CaishenConfig.from_environment({"CAISHEN_OVERLOAD_STEP_MS": "-5", "CAISHEN_OVERLOAD_WINDOW": "0"})
    )
    assert (clamped.step_ms, clamped.window_s) == (0.0, 0.1)
    with pytest.raises(ImproperlyConfigured, match="CAISHEN_OVERLOAD_STEP_MS"):
        CaishenConfig.from_environment({"CAISHEN_OVERLOAD_STEP_MS": "fast"})


def test_switched_off_it_measures_nothing() -> None:
    m, clock = monitor(step_ms=0, depth=0, busy=0)
    play(m, clock, latency_ms=5000, seconds=10, per_tick=5)
    assert not m.overloaded
    loop = asyncio.new_event_loop()
    try:
        m.bind(loop)
        assert not m.serving()
    finally:
        loop.close()


@pytest.mark.django_db(transaction=True)
def test_the_probe_times_real_table_steps_on_the_database_thread() -> None:
    """The real probe on a real loop, the steps run through ``table_step`` on the database
    thread: quick steps pass; steps that take 300 ms turn it on; the tables stop, it clears.
    The steps' durations are on a clock the steps themselves move (a step "takes" what it adds
    to it), so a busy machine's own slowness is not in the figures."""
    clock = FakeClock()
    steps = TableSteps(clock)
    m = SaturationMonitor(
        Thresholds(step_ms=100, depth=0, window_s=0.5, probe_s=0.02, onset_s=0), clock=clock, steps=steps
    )

    def work(seconds: float) -> None:
        clock.now += seconds

    async def probed() -> None:
        """Until the probe has read the steps so far: its next sleep ends before one twice as
        long that starts now (one loop, timers in order)."""
        await asyncio.sleep(2 * m.thresholds.probe_s)

    async def scenario() -> None:
        m.bind(asyncio.get_running_loop())
        for _ in range(10):
            await table_step(work)(0.01)
        await probed()
        assert m.running and not m.overloaded and m.step_ms == pytest.approx(10)
        for _ in range(3):
            await table_step(work)(0.3)
        await probed()
        assert m.overloaded and m.step_ms == pytest.approx(300)  # the last two within the window
        # No table step any more: a window later there is nothing to protect.
        work(m.thresholds.window_s + 0.1)
        await wait_until_async(lambda: not m.overloaded and not m.running, timeout=30)
        assert m.serving()
        assert m._task is not None
        m._task.cancel()

    with patch.object(runtime(), "steps", steps):
        asyncio.run(scenario())
    assert steps.total == 13


def saturate(m: SaturationMonitor, clock: FakeClock) -> None:
    play(m, clock, latency_ms=800, seconds=3)
    assert m.overloaded


# ------------------------------------------------------------------- refusing new work
@pytest.fixture
def busy(monkeypatch: pytest.MonkeyPatch) -> SaturationMonitor:
    """This process saturated, on a fake clock the test drives (feed) to recover."""
    m, clock = monitor()
    saturate(m, clock)
    m.clock_for_tests = clock  # type: ignore[attr-defined]
    monkeypatch.setattr(runtime(), "monitor", m)
    return m


def recover(m: SaturationMonitor) -> None:
    play(m, m.clock_for_tests, latency_ms=5, seconds=3)  # type: ignore[attr-defined]
    assert not m.overloaded


def three_ready_then_busy(users: list[Any], busy: SaturationMonitor) -> Table:
    """A table of four with three ready (the fourth's countdown running), then the process
    saturated: the fourth ready-up would start the match."""
    recover(busy)
    table = services.create_table(users[0], VARIANT, {})
    for u in users:
        services.sit(table.pk, u)
    for u in users[:3]:
        services.set_ready(table.pk, u)
    saturate(busy, busy.clock_for_tests)  # type: ignore[attr-defined]
    return table


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> None:
    settings.CAISHEN_BOT_DELAY = 0
    settings.CAISHEN_SWEEP_SECONDS = 0
    settings.CAISHEN_DISCARD_PAUSE = 0
    settings.CAISHEN_CLAIM_PROTECTION = "pause"


@pytest.fixture
def users(db: Any) -> list[Any]:
    User = get_user_model()
    return [User.objects.create_user(f"o{i}", password="pw-123456") for i in range(4)]


def api(user: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


@pytest.mark.django_db
def test_create_table_answers_503_with_retry_after(users: list[Any], busy: SaturationMonitor) -> None:
    response = api(users[0]).post("/api/tables/", {"variant": VARIANT}, format="json", **EN)
    assert response.status_code == 503
    assert response["Retry-After"] == str(busy.thresholds.retry_after_s)
    assert response.json()["detail"].startswith(BUSY_EN)
    assert not Table.objects.exists()
    # zh-Hans, the site's language
    response = api(users[0]).post("/api/tables/", {"variant": VARIANT}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 503 and response.json()["detail"].startswith(BUSY_ZH)
    # A request that is wrong still hears what is wrong with it, not "busy".
    response = api(users[0]).post("/api/tables/", {"variant": VARIANT, "stake": 0}, format="json", **EN)
    assert response.status_code == 400
    recover(busy)
    assert api(users[0]).post("/api/tables/", {"variant": VARIANT}, format="json").status_code == 201


@pytest.mark.django_db
def test_the_fourth_ready_is_refused_and_the_match_waits_then_starts_after_recovery(
    users: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = services.create_table(users[0], VARIANT, {}, hands_total=1)
    for u in users:
        services.sit(table.pk, u)
    for u in users[:3]:
        services.set_ready(table.pk, u)
    m, clock = monitor()
    monkeypatch.setattr(runtime(), "monitor", m)
    saturate(m, clock)

    response = api(users[3]).post(f"/api/tables/{table.pk}/ready/", {"ready": True}, format="json", **EN)
    assert response.status_code == 503 and int(response["Retry-After"]) > 0
    assert response.json()["detail"].startswith(BUSY_EN)
    table.refresh_from_db()
    assert table.status == Table.WAITING and not table.seats.get(user=users[3]).ready
    assert not Hand.objects.filter(table=table).exists()
    assert m.refusals == 1

    play(m, clock, latency_ms=5, seconds=3)  # the load fell
    assert not m.overloaded
    response = api(users[3]).post(f"/api/tables/{table.pk}/ready/", {"ready": True}, format="json")
    assert response.status_code == 200
    assert Table.objects.get(pk=table.pk).status == Table.PLAYING


@pytest.mark.django_db
def test_bots_that_would_start_a_match_are_refused(users: list[Any], busy: SaturationMonitor) -> None:
    owner = users[0]
    recover(busy)
    table = services.create_table(owner, VARIANT, {})
    services.sit(table.pk, owner)
    services.set_ready(table.pk, owner)
    saturate(busy, busy.clock_for_tests)  # type: ignore[attr-defined]
    response = api(owner).post(f"/api/tables/{table.pk}/bots/", format="json", **EN)
    assert response.status_code == 503 and "Retry-After" in response
    assert Table.objects.get(pk=table.pk).status == Table.WAITING
    assert not table.seats.filter(is_bot=True).exists()  # nothing changed


@pytest.mark.django_db
def test_sitting_and_standing_are_not_refused(users: list[Any], busy: SaturationMonitor) -> None:
    recover(busy)
    table = services.create_table(users[0], VARIANT, {})
    saturate(busy, busy.clock_for_tests)  # type: ignore[attr-defined]
    assert busy.overloaded
    services.sit(table.pk, users[1])
    services.set_ready(table.pk, users[1])  # one ready seat starts nothing
    services.stand(table.pk, users[1])


@pytest.mark.django_db
def test_a_running_match_is_never_refused(users: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Moves, timer steps and the match's next hand go on while the process refuses new matches."""
    me = users[0]
    table = services.create_table(me, VARIANT, {}, hands_total=2)
    services.sit(table.pk, me)
    services.add_bots(table.pk, me)
    services.set_ready(table.pk, me)
    assert Table.objects.get(pk=table.pk).status == Table.PLAYING
    m, clock = monitor()
    monkeypatch.setattr(runtime(), "monitor", m)
    saturate(m, clock)

    moves = 0
    for _ in range(800):
        t = Table.objects.get(pk=table.pk)
        if t.status == Table.FINISHED:
            break
        row = Hand.objects.filter(table=t).order_by("-number").first()
        assert row is not None
        state = services.state_for(t, me)
        legal = [a for a in (state["hand"] or {}).get("view", {}).get("legal_actions", []) if a["do"] != "pass"]
        if row.status == Hand.PLAYING and legal:
            action = {k: v for k, v in legal[0].items() if k != "seat"}
            services.submit(row.pk, me, action, row.seq)  # never Overloaded
            moves += 1
            continue
        if t.ready_deadline is not None:
            Table.objects.filter(pk=t.pk).update(ready_deadline=t.ready_deadline.replace(year=2000))
            services.wake("table", t.pk, services.deadline_token(t.ready_deadline.replace(year=2000)))
            continue
        assert row.deadline_at is not None, "the match stalled"
        Hand.objects.filter(pk=row.pk).update(deadline_at=row.deadline_at.replace(year=2000))
        services.wake("hand", row.pk, row.seq)  # timer steps, the next hand's deal included
    assert Table.objects.get(pk=table.pk).status == Table.FINISHED
    assert moves > 0 and Hand.objects.filter(table=table).count() == 2
    assert m.refusals == 0 and m.overloaded


@pytest.mark.django_db
def test_the_countdown_does_not_unseat_while_matches_are_refused(users: list[Any], busy: SaturationMonitor) -> None:
    recover(busy)
    table = services.create_table(users[0], VARIANT, {})
    for u in users:
        services.sit(table.pk, u)
    for u in users[:3]:
        services.set_ready(table.pk, u)
    table.refresh_from_db()
    assert table.ready_deadline is not None
    saturate(busy, busy.clock_for_tests)  # type: ignore[attr-defined]
    with pytest.raises(Overloaded):
        services.set_ready(table.pk, users[3])
    past = table.ready_deadline.replace(year=2000)
    Table.objects.filter(pk=table.pk).update(ready_deadline=past)
    assert services.wake("table", table.pk, services.deadline_token(past))
    table.refresh_from_db()
    assert table.seats.filter(user=users[3]).exists(), "unseated for a refusal that was the server's"
    assert table.ready_deadline is not None and table.ready_deadline.year > 2000  # the countdown restarted


def test_a_refused_ready_keeps_its_seat_after_the_load_has_fallen(users: list[Any], busy: SaturationMonitor) -> None:
    """Refused while busy, then the load falls before the countdown runs out (the player has
    not asked again yet): the countdown starts again instead of unseating them — once; a
    second run-out with no new refusal unseats as usual."""
    table = three_ready_then_busy(users, busy)
    with pytest.raises(Overloaded):
        services.set_ready(table.pk, users[3])
    recover(busy)
    assert not busy.overloaded
    for expected_seated in (True, False):
        table.refresh_from_db()
        past = table.ready_deadline.replace(year=2000)
        Table.objects.filter(pk=table.pk).update(ready_deadline=past)
        assert services.wake("table", table.pk, services.deadline_token(past))
        assert table.seats.filter(user=users[3]).exists() is expected_seated


# ------------------------------------------------------------------------ HTML and health
@pytest.mark.django_db
def test_the_lobby_and_the_create_form_say_the_server_is_busy(users: list[Any], busy: SaturationMonitor) -> None:
    client = Client()
    client.force_login(users[0])
    html = client.get(reverse("games:lobby"), **EN).content.decode()
    assert "data-busy" in html and BUSY_EN in html
    assert BUSY_ZH in client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    response = client.post(
        reverse("games:create"),
        {"variant": VARIANT, "stake": 1, "hands_total": 4, "turn_seconds": 20, "claim_seconds": 8}
        | {f"opt_{o['key']}": o["default"] for o in get_variant(VARIANT).describe()["options"]},
        **EN,
    )
    assert response.status_code == 503 and response["Retry-After"]
    assert "data-refused" in response.content.decode() and BUSY_EN in response.content.decode()
    recover(busy)
    assert "data-busy" not in client.get(reverse("games:lobby"), **EN).content.decode()


@pytest.mark.django_db
def test_the_table_page_ready_form_flashes_the_reason(users: list[Any], busy: SaturationMonitor) -> None:
    table = three_ready_then_busy(users, busy)
    client = Client()
    client.force_login(users[3])
    response = client.post(reverse("games:ready", args=[table.pk]), {"ready": "true"}, follow=True, **EN)
    assert BUSY_EN in response.content.decode()
    assert Table.objects.get(pk=table.pk).status == Table.WAITING


@pytest.mark.django_db
def test_healthz_shows_the_load_and_stays_green_when_busy(client: Any, busy: SaturationMonitor) -> None:
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200 and body["status"] == "ok"
    assert body["load"]["overloaded"] is True and body["load"]["step_ms"] > 75
    assert body["load"]["tables_running"] is True
    assert {"queue", "steps", "lag_ms", "cpu", "refused", "measured", "snapshots"} <= set(body["load"])


@pytest.mark.django_db
def test_the_schema_documents_503_and_retry_after() -> None:
    schema = APIClient().get("/api/schema/?format=json").json()
    paths = schema["paths"]
    for path, method in (
        ("/api/tables/", "post"),
        ("/api/tables/{id}/ready/", "post"),
        ("/api/tables/{id}/bots/", "post"),
    ):
        answers = paths[path][method]["responses"]
        assert "503" in answers, path
        assert "Retry-After" in answers["503"].get("headers", {}), path


# ------------------------------------------------------------- timers ahead of sockets
def test_the_laned_queue_serves_urgent_work_first() -> None:
    executor = dbqueue.laned_executor()
    order: list[str] = []
    gate = threading.Event()
    try:
        first = executor.submit(gate.wait)
        normal = [executor.submit(order.append, f"socket{i}") for i in range(5)]
        token = dbqueue.URGENT.set(True)
        try:
            urgent = executor.submit(order.append, "timer")
        finally:
            dbqueue.URGENT.reset(token)
        assert executor._work_queue.qsize() == 6
        gate.set()
        for f in [first, *normal, urgent]:
            f.result(timeout=5)
    finally:
        executor.shutdown(wait=True)
    assert order == ["timer", "socket0", "socket1", "socket2", "socket3", "socket4"]


def test_a_timer_step_goes_ahead_of_a_flood_of_socket_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-process timer's step (games/runtime/timers.py) waits for at most the call running now, not
    for the socket reads queued before it on the database thread."""
    monkeypatch.setattr(SyncToAsync, "single_thread_executor", dbqueue.laned_executor())
    order: list[str] = []
    gate = threading.Event()
    monkeypatch.setattr(services, "wake", lambda kind, obj_id, token: order.append(f"wake {kind} {obj_id}"))

    async def scenario() -> None:
        blocked = asyncio.ensure_future(database_sync_to_async(gate.wait)())
        await asyncio.sleep(0.05)
        reads = [asyncio.ensure_future(database_sync_to_async(order.append)(f"read{i}")) for i in range(50)]
        await asyncio.sleep(0.05)
        assert dbqueue.backlog() == 50
        timer = asyncio.ensure_future(runtime().timers.fire("hand", 7, 3))
        await asyncio.sleep(0.05)
        gate.set()
        await asyncio.gather(blocked, timer, *reads)

    asyncio.run(scenario())
    SyncToAsync.single_thread_executor.shutdown(wait=True)
    assert order[0] == "wake hand 7" and len(order) == 51
    assert order[1:] == [f"read{i}" for i in range(50)]  # the sockets keep their order


def test_urgent_work_does_not_leak_into_other_tasks() -> None:
    seen: list[bool] = []

    async def scenario() -> None:
        async def timer() -> None:
            dbqueue.URGENT.set(True)
            seen.append(dbqueue.URGENT.get())

        await asyncio.ensure_future(timer())
        seen.append(dbqueue.URGENT.get())

    asyncio.run(scenario())
    assert seen == [True, False]


def test_install_is_idempotent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SyncToAsync, "single_thread_executor", SyncToAsync.single_thread_executor)
    dbqueue.install()
    laned = SyncToAsync.single_thread_executor
    dbqueue.install()
    assert SyncToAsync.single_thread_executor is laned
    assert isinstance(laned._work_queue, dbqueue.LanedQueue)  # type: ignore[attr-defined]
    future: Future[int] = laned.submit(lambda: 41 + 1)
    assert future.result(timeout=5) == 42
